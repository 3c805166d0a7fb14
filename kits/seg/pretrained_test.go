package seg

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"paddle/core/config"
	"paddle/core/nn"
	"paddle/core/tensor"
	"paddle/core/workflow"
)

// tinyRunner is a runner for tinyPPLiteSeg's shape with classes classes
// and the given extra model / backbone keys.
func tinyRunner(t *testing.T, classes int, modelKeys, backboneKeys string) *runner {
	t.Helper()
	y := fmt.Sprintf(`model:
  type: PPLiteSeg
  backbone: {type: STDC1, base: 16, layers: [1, 1, 1]%s}
  arm_out_chs: [8, 16, 16]
  seg_head_inter_chs: [8, 8, 8]
  cm_out_ch: 16
%s
train_dataset: {type: Dataset, num_classes: %d}
`, backboneKeys, modelKeys, classes)
	cfg, err := config.Parse("seg", "x.yaml", []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	w, err := build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return w.(*runner)
}

// savedSource saves a 5-class tiny PP-LiteSeg whose batch-norm statistics
// are not their initial values (so loading them is visible) and returns
// the folder and its tensors by name (copies).
func savedSource(t *testing.T) (string, map[string][]float64) {
	t.Helper()
	src := tinyPPLiteSegSeed(t, 5, 7)
	r := rand.New(rand.NewPCG(9, 9))
	for _, b := range src.Buffers() {
		if b.V.T.DType() == tensor.Float32 {
			b.V.T.CopyFrom(tensor.Rand(r, tensor.Float32, 0.5, 1.5, b.V.T.Shape()...))
		}
	}
	dir := t.TempDir()
	if err := workflow.SaveCheckpoint(dir, src, nil, workflow.State{}, nil); err != nil {
		t.Fatal(err)
	}
	return dir, values(src)
}

func values(m Model) map[string][]float64 {
	out := map[string][]float64{}
	for _, p := range append(m.Params(), m.Buffers()...) {
		out[p.Name] = slices.Clone(p.V.T.Cast(tensor.Float64).F64())
	}
	return out
}

// check compares every tensor of m with src (want loaded) or with before
// (want kept), as loaded(name) says.
func check(t *testing.T, m Model, src, before map[string][]float64, loaded func(string) bool) {
	t.Helper()
	nLoaded := 0
	for name, v := range values(m) {
		want, what := before[name], "kept"
		if loaded(name) {
			want, what, nLoaded = src[name], "loaded", nLoaded+1
		}
		if !slices.Equal(v, want) {
			t.Errorf("%s: want it %s", name, what)
		}
	}
	if nLoaded == 0 {
		t.Error("nothing was loaded")
	}
}

func isHeadClassifier(name string) bool {
	return strings.HasPrefix(name, "heads.") && strings.Contains(name, ".cls.")
}

// model.pretrained loads every tensor but the classifiers, whose class
// count differs (5 in the checkpoint, 3 here), which keep their initial
// values; model.backbone.pretrained loads only the backbone, from a whole
// model's checkpoint or a backbone's alone.
func TestPretrainedLoading(t *testing.T) {
	dir, src := savedSource(t)

	r := tinyRunner(t, 3, "  pretrained: "+dir, "")
	m, err := r.newModel()
	if err != nil {
		t.Fatal(err)
	}
	before := values(m)
	if err := r.loadPretrained(m); err != nil {
		t.Fatal(err)
	}
	check(t, m, src, before, func(n string) bool { return !isHeadClassifier(n) })

	r = tinyRunner(t, 3, "", ", pretrained: "+dir)
	m, _ = r.newModel()
	before = values(m)
	if err := r.loadPretrained(m); err != nil {
		t.Fatal(err)
	}
	check(t, m, src, before, func(n string) bool { return strings.HasPrefix(n, backbonePrefix) })

	// a backbone's own checkpoint (names without the backbone. prefix)
	bbDir := t.TempDir()
	srcModel := tinyPPLiteSegSeed(t, 5, 7)
	if err := workflow.SaveCheckpoint(bbDir, srcModel.Backbone, nil, workflow.State{}, nil); err != nil {
		t.Fatal(err)
	}
	r = tinyRunner(t, 3, "", ", pretrained: "+bbDir)
	m, _ = r.newModel()
	before = values(m)
	if err := r.loadPretrained(m); err != nil {
		t.Fatal(err)
	}
	bbSrc := map[string][]float64{}
	for _, p := range append(srcModel.Params(), srcModel.Buffers()...) {
		bbSrc[p.Name] = slices.Clone(p.V.T.Cast(tensor.Float64).F64())
	}
	check(t, m, bbSrc, before, func(n string) bool {
		// the backbone's parameters come from the checkpoint; its
		// batch-norm statistics there are the initial ones anyway
		return strings.HasPrefix(n, backbonePrefix)
	})
}

// Pretrained mistakes name the config file and the key.
func TestPretrainedErrors(t *testing.T) {
	unetDir := t.TempDir()
	unet, err := newUNet(UNetOpts{NumClasses: 3, BaseChannels: 4}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if err := workflow.SaveCheckpoint(unetDir, unet, nil, workflow.State{}, nil); err != nil {
		t.Fatal(err)
	}
	// a checkpoint of another kind of model (a linear layer)
	foreign := t.TempDir()
	lin, err := nn.NewLinear(nn.LinearOptions{In: 5, Out: 7}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if err := workflow.SaveCheckpoint(foreign, lin, nil, workflow.State{}, nil); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "none")
	for _, tt := range []struct{ model, backbone, want string }{
		{"  pretrained: " + missing, "", "x.yaml: model.pretrained: "},
		{"", ", pretrained: " + missing, "x.yaml: model.backbone.pretrained: "},
		{"  pretrained: " + unetDir, "", "x.yaml: model.pretrained: pretrained weights " + unetDir + ": no tensor matches"},
		{"", ", pretrained: " + foreign, "x.yaml: model.backbone.pretrained: pretrained weights " + foreign + ": no tensor matches"},
		{"  pretrained: https://example.invalid/model.pdparams", "", "only a local checkpoint folder"},
	} {
		r := tinyRunner(t, 3, tt.model, tt.backbone)
		m, err := r.newModel()
		if err != nil {
			t.Fatal(err)
		}
		if err := r.loadPretrained(m); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q %q: got %v, want %q", tt.model, tt.backbone, err, tt.want)
		}
	}
	// a model without a backbone cannot take backbone weights; a UNet
	// takes a whole-model checkpoint of its own kind
	cfg, err := config.Parse("seg", "x.yaml", []byte("model: {type: UNet, base_channels: 4, pretrained: "+unetDir+"}\ntrain_dataset: {type: Dataset, num_classes: 3}\n"))
	if err != nil {
		t.Fatal(err)
	}
	w, err := build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	um, _ := w.(*runner).newModel()
	if err := w.(*runner).loadPretrained(um); err != nil {
		t.Errorf("UNet from a UNet checkpoint: %v", err)
	}
}
