package seg

import (
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/ag"
	"paddle/core/config"
	pio "paddle/core/io"
	"paddle/core/io/pdparams"
	"paddle/core/nn"
	"paddle/core/tensor"
	"paddle/core/workflow"
	"paddle/core/workflow/pdtest"
)

const (
	pdDir     = "testdata/paddleseg"
	pdFixture = pdDir + "/pp_liteseg_stdc1_b8.pdparams"
	pdConfig  = pdDir + "/pp_liteseg_stdc1_b8.yaml"
)

// pdInput is pp_liteseg_ref.py's test_input: sin(0.37 i)·cos(0.011 i).
func pdInput(shape ...int) *tensor.Tensor {
	v := make([]float32, tensor.Shape(shape).NumElements())
	for i := range v {
		v[i] = float32(math.Sin(0.37*float64(i)) * math.Cos(0.011*float64(i)))
	}
	return tensor.FromSlice(v, shape...)
}

// pdModel builds the model of config file path (overrides applied) with
// every tensor zeroed, so a tensor that loading misses shows.
func pdModel(t *testing.T, path string, overrides ...string) Model {
	t.Helper()
	cfg, err := config.Load(path, overrides...)
	if err != nil {
		t.Fatal(err)
	}
	r, err := build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	m, err := r.(*runner).newModel()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range append(m.Params(), nn.Buffers(m)...) {
		p.V.T.Fill(0)
	}
	return m
}

// pdCheck loads the PaddleSeg-named .pdparams fixture strictly (as
// --weights does) into m and compares m's eval logits on input with the
// NumPy forward's.
func pdCheck(t *testing.T, m Model, fixture, logits string, input *tensor.Tensor) {
	t.Helper()
	if _, err := workflow.LoadCheckpoint(fixture, m, nil); err != nil {
		t.Fatal(err)
	}
	want, err := pio.ReadNpy(logits)
	if err != nil {
		t.Fatal(err)
	}
	got := m.Logits(ag.Const(input), false)[0].T
	if !got.Shape().Equal(want.Shape()) {
		t.Fatalf("logits %v, the NumPy forward gives %v", got.Shape(), want.Shape())
	}
	d := 0.0
	g, w := got.Contiguous().Float64s(), want.Float64s()
	for i := range g {
		d = max(d, math.Abs(g[i]-w[i]))
	}
	t.Logf("max abs diff from PaddleSeg's forward (NumPy): %.3g", d)
	if d > 1e-4 {
		t.Fatalf("logits differ from the NumPy forward by %g", d)
	}
}

// TestPaddleSegPdparams loads a PP-LiteSeg (STDC1's layers at base 8)
// written under PaddleSeg's names by scripts/ref/pp_liteseg_ref.py, with
// random weights, and checks that it predicts the logits that script's
// NumPy forward of PaddleSeg's network gives. Its UAFM _scale is 1.25, so
// a model that ignored it would fail.
func TestPaddleSegPdparams(t *testing.T) {
	m := pdModel(t, pdConfig)
	if _, ok := m.(workflow.PaddleNamer); !ok {
		t.Fatalf("%T has no PaddleSeg name map", m)
	}
	pdCheck(t, m, pdFixture, pdDir+"/pp_liteseg_stdc1_b8_logits.npy", pdInput(1, 3, 80, 112))
	for i, a := range m.(*PaddleLiteSeg).ARMs {
		if s := a.Scale.T.Float64s()[0]; s != 1.25 {
			t.Errorf("arms.%d.scale = %g, want the file's 1.25", i, s)
		}
	}
}

// TestPaddleSegPdparamsWithoutScale loads the fixture as PaddleSeg saved
// it before UAFM_SpAtten had a _scale (August 2022): it loads strictly,
// with scale 1.
func TestPaddleSegPdparamsWithoutScale(t *testing.T) {
	f, err := pdparams.Read(pdFixture)
	if err != nil {
		t.Fatal(err)
	}
	var entries []pdparams.Entry
	for _, n := range f.Names {
		if !strings.HasSuffix(n, "._scale") {
			entries = append(entries, pdparams.Entry{Name: n, T: f.Tensors[n]})
		}
	}
	if len(entries) != len(f.Names)-3 {
		t.Fatalf("the fixture has %d _scale tensors, want 3", len(f.Names)-len(entries))
	}
	old := filepath.Join(t.TempDir(), "old.pdparams")
	if err := pdparams.Write(old, entries); err != nil {
		t.Fatal(err)
	}
	m := pdModel(t, pdConfig)
	if _, err := workflow.LoadCheckpoint(old, m, nil); err != nil {
		t.Fatal(err)
	}
	for i, a := range m.(*PaddleLiteSeg).ARMs {
		if s := a.Scale.T.Float64s()[0]; s != 1 {
			t.Errorf("arms.%d.scale = %g, want 1", i, s)
		}
	}
}

// TestPaddleSegNeedsPaddleLayers: this port's own PP-LiteSeg (biases where
// PaddleSeg has none and the reverse) has no map from PaddleSeg's names;
// paddle_layers needs an STDC backbone.
func TestPaddleSegNeedsPaddleLayers(t *testing.T) {
	m := pdModel(t, pdConfig, "model.paddle_layers=false")
	_, err := workflow.LoadCheckpoint(pdFixture, m, nil)
	if err == nil || !strings.Contains(err.Error(), "no map from PaddlePaddle") {
		t.Fatalf("err = %v", err)
	}
	if _, err := newPaddleLiteSeg(&PPLiteSeg{}); err == nil || !strings.Contains(err.Error(), "STDC backbone") {
		t.Fatalf("a non-STDC backbone: err = %v", err)
	}
}

// TestPaddleSegWeightsWriteBack: export --format pdparams writes the
// fixture's names, shapes and values back.
func TestPaddleSegWeightsWriteBack(t *testing.T) {
	m := pdModel(t, pdConfig)
	if _, err := workflow.LoadCheckpoint(pdFixture, m, nil); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out.pdparams")
	if err := workflow.WritePaddleWeights(out, m); err != nil {
		t.Fatal(err)
	}
	if err := pdtest.SameFile(out, pdFixture); err != nil {
		t.Fatal(err)
	}
}

// TestPaddleSegFullSize checks PaddleSeg's registered STDC1 and STDC2 (base
// 64) with PP-LiteSeg's default and Cityscapes widths: pp_liteseg_ref.py
// writes each .pdparams (about 50 MB, so not committed) and its NumPy
// logits at test time. Skipped without /usr/bin/python3 and NumPy.
func TestPaddleSegFullSize(t *testing.T) {
	if testing.Short() {
		t.Skip("writes two 50 MB checkpoints")
	}
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import numpy").Run(); err != nil {
		t.Skipf("%s with numpy (Debian python3-numpy) writes the fixtures: %v", py, err)
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		name, backbone, arm, heads string
		classes, h, w              int
	}{
		{"stdc1", "STDC1", "[64, 96, 128]", "[64, 64, 64]", 4, 64, 96},
		{"stdc2", "STDC2", "[32, 64, 128]", "[32, 64, 64]", 4, 128, 128},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if out, err := exec.Command(py, "../../scripts/ref/pp_liteseg_ref.py", dir, tc.name).CombinedOutput(); err != nil {
				t.Fatalf("pp_liteseg_ref.py: %v\n%s", err, out)
			}
			m := pdModel(t, pdConfig, "model.backbone.type="+tc.backbone, "model.backbone.base=64",
				"model.arm_out_chs="+tc.arm, "model.seg_head_inter_chs="+tc.heads, "model.cm_out_ch=128",
				fmt.Sprintf("model.num_classes=%d", tc.classes))
			pdCheck(t, m, filepath.Join(dir, tc.name+".pdparams"), filepath.Join(dir, tc.name+"_logits.npy"), pdInput(1, 3, tc.h, tc.w))
		})
	}
}

// TestPaddleSegCommands runs `seg predict -c ... --weights x.pdparams` and
// `seg export --format pdparams`, which writes the fixture back.
func TestPaddleSegCommands(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runPaddle(t, "seg", "predict", "-c", pdConfig, "--weights", pdFixture, "--output", dir, "--format", "jsonl",
		filepath.Join("..", "ocr", "testdata", "images", "line.png"))
	if code != 0 || !strings.Contains(out, `"class_pixels"`) {
		t.Fatalf("predict: exit %d\n%s\n%s", code, out, errOut)
	}
	written := filepath.Join(dir, "x.pdparams")
	if code, _, errOut := runPaddle(t, "seg", "export", "-c", pdConfig, "--weights", pdFixture, "--format", "pdparams", "--output", written); code != 0 {
		t.Fatalf("export: exit %d\n%s", code, errOut)
	}
	if err := pdtest.SameFile(written, pdFixture); err != nil {
		t.Fatal(err)
	}
}

// TestPaddleSegBackbonePretrained: a PaddleSeg STDC backbone .pdparams
// (features.*, as PaddleSeg's backbone pretrained weights are named) loads
// through model.backbone.pretrained into this port's own PP-LiteSeg.
func TestPaddleSegBackbonePretrained(t *testing.T) {
	f, err := pdparams.Read(pdFixture)
	if err != nil {
		t.Fatal(err)
	}
	var entries []pdparams.Entry
	for _, n := range f.Names {
		if rest, ok := strings.CutPrefix(n, backbonePrefix); ok {
			entries = append(entries, pdparams.Entry{Name: rest, T: f.Tensors[n]})
		}
	}
	path := filepath.Join(t.TempDir(), "stdc.pdparams")
	if err := pdparams.Write(path, entries); err != nil {
		t.Fatal(err)
	}
	m := pdModel(t, pdConfig, "model.paddle_layers=false")
	if err := loadBackbone(path, m); err != nil {
		t.Fatal(err)
	}
	exact := pdModel(t, pdConfig)
	if _, err := workflow.LoadCheckpoint(pdFixture, exact, nil); err != nil {
		t.Fatal(err)
	}
	want := nn.State(exact)
	for name, got := range nn.State(m) {
		if strings.HasPrefix(name, backbonePrefix) && !strings.HasSuffix(name, "num_batches_tracked") {
			if d := pdtest.MaxDiff(got, want[name]); d != 0 {
				t.Fatalf("%s differs from the file by %g", name, d)
			}
		}
	}
}
