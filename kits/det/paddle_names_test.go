package det

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"paddle/core/config"
	"paddle/core/io/pdparams"
	"paddle/core/workflow"
	"paddle/core/workflow/pdtest"
)

// lcnetFixture is PaddleClas's PPLCNet x0.25 (10 classes, class_expand 64)
// under PaddleClas's names, each tensor pdtest.Pattern(zoo.PPLCNet's name
// for it), written by scripts/ref/pdparams_ref.py.
const lcnetFixture = "../../core/zoo/testdata/pplcnet_x0_25.pdparams"

// lcnet025Model is the tiny test PicoDet with an LCNet x0.25 backbone.
func lcnet025Model(t *testing.T) *PicoDet {
	t.Helper()
	p := tinyConfig(t, t.TempDir(), tinyOpts{size: 64, epochs: 1, lightAug: true})
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	y := strings.Replace(string(b), "scale: 0.35", "scale: 0.25", 1)
	if y == string(b) {
		t.Fatal("the tiny config has no LCNet scale 0.35 to change")
	}
	if err := os.WriteFile(p, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := config.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	r, err := build(c)
	if err != nil {
		t.Fatal(err)
	}
	m, err := r.(*runner).newModel()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// checkBackbone says whether every backbone tensor of m holds the
// fixture's pattern of its zoo.PPLCNet name and the neck kept its values.
func checkBackbone(t *testing.T, m *PicoDet, neckBefore map[string][]float64) {
	t.Helper()
	n := 0
	for _, p := range append(m.Params(), m.Buffers()...) {
		rest, ok := strings.CutPrefix(p.Name, "backbone.")
		if !ok {
			if !slices.Equal(f64(p), neckBefore[p.Name]) {
				t.Errorf("%s changed; only the backbone maps", p.Name)
			}
			continue
		}
		if strings.HasSuffix(p.Name, "num_batches_tracked") {
			continue
		}
		if d := pdtest.MaxDiff(p.V.T, pdtest.Pattern(rest, p.V.T.Shape())); d > 1e-6 {
			t.Errorf("%s: off the PaddleClas file by %g", p.Name, d)
		}
		n++
	}
	if n < 100 {
		t.Errorf("checked %d backbone tensors, want them all", n)
	}
}

// TestPicoDetPretrainFromPaddleClas: pretrain_weights may be PaddleClas's
// PPLCNet .pdparams (PaddleDetection's PicoDet configs start from
// PPLCNet_x0_75_pretrained.pdparams): the backbone loads, the classifier
// (last_conv, fc) is ignored, neck and head keep their values.
func TestPicoDetPretrainFromPaddleClas(t *testing.T) {
	m := lcnet025Model(t)
	before := map[string][]float64{}
	for _, p := range append(m.Params(), m.Buffers()...) {
		before[p.Name] = f64(p)
	}
	if _, err := workflow.LoadPretrained(lcnetFixture, m); err != nil {
		t.Fatal(err)
	}
	checkBackbone(t, m, before)
}

// TestPicoDetBackboneFromPaddleDetection: a PaddleDetection PicoDet
// checkpoint (backbone.conv1..., neck.*, head.*) gives its backbone to
// pretrain_weights; --weights with it fails naming what this port's neck
// lacks, since PaddleDetection's LCPAN and PicoHeadV2 are other layers.
func TestPicoDetBackboneFromPaddleDetection(t *testing.T) {
	f, err := pdparams.Read(lcnetFixture)
	if err != nil {
		t.Fatal(err)
	}
	var entries []pdparams.Entry
	for _, n := range f.Names {
		if !strings.HasPrefix(n, "fc.") && !strings.HasPrefix(n, "last_conv.") {
			entries = append(entries, pdparams.Entry{Name: "backbone." + n, T: f.Tensors[n]})
		}
	}
	entries = append(entries, pdparams.Entry{Name: "neck.conv_t.convs.0.conv.weight", T: f.Tensors["conv1.conv.weight"]})
	path := filepath.Join(t.TempDir(), "picodet.pdparams")
	if err := pdparams.Write(path, entries); err != nil {
		t.Fatal(err)
	}
	m := lcnet025Model(t)
	before := map[string][]float64{}
	for _, p := range append(m.Params(), m.Buffers()...) {
		before[p.Name] = f64(p)
	}
	if _, err := workflow.LoadPretrained(path, m); err != nil {
		t.Fatal(err)
	}
	checkBackbone(t, m, before)
	_, err = workflow.LoadCheckpoint(path, lcnet025Model(t), nil)
	if err == nil || !strings.Contains(err.Error(), "neck.conv_t.convs.0.conv.weight") {
		t.Fatalf("--weights with a PaddleDetection PicoDet: err = %v", err)
	}
}
