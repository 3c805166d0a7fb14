package det

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/hub"
	pio "paddle/core/io"
	"paddle/core/runtime"
	"paddle/core/runtime/ortcheck"
	"paddle/core/tensor"
	"paddle/core/workflow"
	"paddle/core/zoo"
)

// ppocrv4 skips without PP-OCRv4 in the model store.
func ppocrv4(t *testing.T) {
	t.Helper()
	if _, ok := hub.Path("ppocrv4"); !ok {
		t.Skip("model store: ppocrv4 is not pulled (paddle model pull ppocrv4)")
	}
}

// PicoDet on the imported PP-OCRv4 backbone trains through the commands
// (2 steps, Momentum with L2 and gradient clipping): freeze_at 0 keeps
// the stem and blocks2 exactly at the imported weights, the other
// stages move; the trained model exports.
func TestTrainImportedBackbone(t *testing.T) {
	ppocrv4(t)
	stamps, bgs := realPhotos(t)
	set := filepath.Join(t.TempDir(), "set")
	if code, _, errOut := runPaddle(t, "det", "synth", "--output", set, "--train", "8", "--eval", "2", "--size", "96", "--seed", "3",
		"--stamps", stamps, "--backgrounds", bgs); code != 0 {
		t.Fatal(errOut)
	}
	cfg := tinyConfig(t, set, tinyOpts{size: 96, epochs: 1, lightAug: true, extra: "max_iters: 2\n"})
	raw, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	y := string(raw)
	y = strings.Replace(y, "PicoDet: {backbone: LCNet,", "PicoDet: {backbone: PPLCNetV3,", 1)
	y = strings.Replace(y, "LCNet: {scale: 0.35, feature_maps: [3, 4, 5]}",
		"PPLCNetV3: {model_file: "+DefaultBackboneModel+", feature_maps: [3, 4, 5], freeze_at: 0, lr_mult_list: [1, 1, 1, 1, 0.5, 1]}", 1)
	if err := os.WriteFile(cfg, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	if code, _, errOut := runPaddle(t, "det", "train", "-c", cfg, "--output", out); code != 0 {
		t.Fatalf("train: %s", errOut)
	}
	ck, err := pio.LoadCheckpoint(filepath.Join(out, "latest"))
	if err != nil {
		t.Fatal(err)
	}
	orig, err := zoo.NewImported(zoo.ImportedOptions{}, "PPLCNetV3") // as the config imports it (BGR stem reversed)
	if err != nil {
		t.Fatal(err)
	}
	moved := map[int]float64{} // stage → mean |Δ| per element
	count := map[int]int{}
	for _, p := range orig.Params() {
		got, ok := ck.Model["backbone."+p.Name]
		if !ok {
			t.Fatalf("checkpoint has no backbone.%s", p.Name)
		}
		a, b := p.V.T.Float64s(), got.Float64s()
		s := orig.Stage(p.Name)
		for i := range a {
			d := a[i] - b[i]
			if d < 0 {
				d = -d
			}
			moved[s] += d
		}
		count[s] += len(a)
	}
	for s := range 6 {
		moved[s] /= float64(max(count[s], 1))
	}
	t.Logf("mean |Δ| per stage: %v", moved)
	if moved[0] != 0 || moved[1] != 0 {
		t.Errorf("freeze_at 0: the stem (%g) and blocks2 (%g) changed", moved[0], moved[1])
	}
	for _, s := range []int{2, 3, 5} {
		if moved[s] == 0 {
			t.Errorf("stage %d did not train", s)
		}
	}
	// The trained model exports; paddle's runtime and ONNX Runtime (when
	// installed) on the export match the Go forward.
	exp := filepath.Join(t.TempDir(), "exp")
	if code, _, errOut := runPaddle(t, "det", "export", "--weights", filepath.Join(out, "latest"), "--output", exp); code != 0 {
		t.Fatalf("export: %s", errOut)
	}
	c, err := config.Load(cfg)
	if err != nil {
		t.Fatal(err)
	}
	wr, err := build(c)
	if err != nil {
		t.Fatal(err)
	}
	model, err := wr.(*runner).newModel()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := workflow.LoadCheckpoint(filepath.Join(out, "latest"), model, nil); err != nil {
		t.Fatal(err)
	}
	x := tensor.Randn(rand.New(rand.NewPCG(9, 9)), tensor.Float32, 0, 1, 2, 3, 96, 96)
	var scores *tensor.Tensor
	ag.NoGrad(func() { scores = ag.Sigmoid(model.Run(ag.Const(x), false).Cls).T })
	p, err := runtime.Load(filepath.Join(exp, "model.onnx"), runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Run(map[string]*tensor.Tensor{"image": x})
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := tensor.MaxDiff(got["scores"], scores, 0, 0); d > 1e-5 {
		t.Errorf("paddle runtime on the export: scores differ by %g", d)
	}
	ortcheck.Compare(t, filepath.Join(exp, "model.onnx"), map[string]*tensor.Tensor{"image": x},
		ortcheck.Output{Name: "scores", Want: scores, Tol: 1e-4})
}

// LRMult gives the imported backbone's parameters their stage's
// multiplier (0 when frozen) and everything else 1.
func TestPicoDetLRMult(t *testing.T) {
	ppocrv4(t)
	at := 0
	m, err := NewPicoDetImported(PPLCNetV3Opts{StageTraining: zoo.StageTraining{LRMultList: []float64{1, 1, 0.2, 0.3, 0.4, 0.5}, FreezeAt: &at}},
		LCPANOpts{OutChannels: 32}, PicoHeadOpts{ConvFeat: PicoFeatOpts{NumConvs: 1}}, 3, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"backbone.conv2d_0.w_0": 0, "backbone.conv2d_394.w_0": 0, "backbone.conv2d_396.w_0": 0.2,
		"backbone.conv2d_414.w_0": 0.5, "neck.lateral.0.conv.weight": 1}
	names := map[string]bool{}
	for _, p := range m.Params() {
		names[p.Name] = true
	}
	for name, w := range want {
		if !names[name] && strings.HasPrefix(name, "backbone.") {
			t.Errorf("no parameter %s", name)
		}
		if got := m.LRMult(name); got != w {
			t.Errorf("LRMult(%s) = %g, want %g", name, got, w)
		}
	}
	if _, err := NewPicoDetImported(PPLCNetV3Opts{FeatureMaps: []int{4, 5, 6}}, LCPANOpts{OutChannels: 32}, PicoHeadOpts{}, 3, rand.New(rand.NewPCG(1, 2))); err == nil ||
		!strings.Contains(err.Error(), "feature_maps") {
		t.Errorf("feature_maps [4 5 6]: %v, want an error naming feature_maps", err)
	}
}
