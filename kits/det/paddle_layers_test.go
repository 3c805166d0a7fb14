package det

import (
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
)

const (
	pdDetDir     = "testdata/paddledet"
	pdDetConfig  = pdDetDir + "/picodet_s_tiny.yml"
	pdDetFixture = pdDetDir + "/picodet_s_tiny.pdparams"
)

// pdDetInput is picodet_ref.py's (pp_liteseg_ref.py's) test_input: sin(0.37 i)·cos(0.011 i).
func pdDetInput(shape ...int) *tensor.Tensor {
	v := make([]float32, tensor.Shape(shape).NumElements())
	for i := range v {
		v[i] = float32(math.Sin(0.37*float64(i)) * math.Cos(0.011*float64(i)))
	}
	return tensor.FromSlice(v, shape...)
}

// pdDetModel builds the model of config path (overrides applied) with every
// tensor zeroed, so a tensor that loading misses shows.
func pdDetModel(t *testing.T, path string, overrides ...string) *PicoDet {
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

func maxAbsDiff(t *testing.T, what string, got *tensor.Tensor, npy string) float64 {
	t.Helper()
	want, err := pio.ReadNpy(npy)
	if err != nil {
		t.Fatal(err)
	}
	if got.Shape().NumElements() != want.Shape().NumElements() {
		t.Fatalf("%s: %v, the NumPy forward gives %v", what, got.Shape(), want.Shape())
	}
	d := 0.0
	g, w := got.Contiguous().Float64s(), want.Float64s()
	for i := range g {
		d = max(d, math.Abs(g[i]-w[i]))
	}
	t.Logf("%s: max abs diff from PaddleDetection's forward (NumPy): %.3g", what, d)
	return d
}

// TestPaddleDetPicoDetPdparams: a PaddleDetection PicoDet checkpoint
// (picodet_v2's LCNet + LCPAN with a stride-64 level + PicoHeadV2 with
// PicoSE and the alignment head, written by scripts/ref/picodet_ref.py with
// random weights) loads strictly into a zeroed paddle_layers model, as
// --weights loads it, and the head's scores, box-distribution logits and
// decoded boxes match the NumPy forward written from PaddleDetection's
// sources.
func TestPaddleDetPicoDetPdparams(t *testing.T) {
	m := pdDetModel(t, pdDetConfig)
	if _, err := workflow.LoadCheckpoint(pdDetFixture, m, nil); err != nil {
		t.Fatal(err)
	}
	out := m.Run(ag.Const(pdDetInput(1, 3, 64, 96)), false)
	scores := ag.Sigmoid(out.Cls).T
	boxes := m.Head.Decode(out.Reg, m.Head.AnchorsFor(64, 96)).T
	for _, c := range []struct {
		what string
		got  *tensor.Tensor
		npy  string
		tol  float64
	}{
		{"scores", scores, "_scores.npy", 1e-4},
		{"box distribution logits", out.Reg.T, "_regs.npy", 1e-4},
		{"boxes (pixels)", boxes, "_boxes.npy", 1e-3},
	} {
		if d := maxAbsDiff(t, c.what, c.got, pdDetDir+"/picodet_s_tiny"+c.npy); d > c.tol {
			t.Errorf("%s: off PaddleDetection's forward by %g (bound %g)", c.what, d, c.tol)
		}
	}
}

// TestPaddleLayersTrain: the paddle_layers model trains with the kit's
// loss over its four levels: every parameter (the stride-64 convs, PicoSE,
// the alignment branch included) gets a gradient, and a few SGD steps on
// one batch lower the loss.
func TestPaddleLayersTrain(t *testing.T) {
	cfg, err := config.Load(pdDetConfig)
	if err != nil {
		t.Fatal(err)
	}
	r, err := build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	run := r.(*runner)
	m, err := run.newModel()
	if err != nil {
		t.Fatal(err)
	}
	x := ag.Const(pdDetInput(2, 3, 64, 96))
	anc := m.Head.AnchorsFor(64, 96)
	if n := 8*12 + 4*6 + 2*3 + 1*2; anc.Len() != n {
		t.Fatalf("%d anchors, want %d over strides 8 to 64", anc.Len(), n)
	}
	gts := [][][4]float64{{{4, 4, 60, 60}, {40, 8, 90, 30}}, {{10, 20, 30, 50}}}
	classes := [][]int{{1, 0}, {2}}
	var first, last float64
	for step := range 12 {
		loss, parts := m.Head.Loss(m.Run(x, true), anc, gts, classes, run.loss)
		if parts.Positives == 0 {
			t.Fatal("no positive anchors")
		}
		loss.Backward()
		v := loss.T.Cast(tensor.Float64).Float64s()[0]
		if step == 0 {
			first = v
			for _, p := range m.Params() {
				if p.V.Grad == nil {
					t.Errorf("%s has no gradient", p.Name)
				}
			}
		}
		last = v
		t.Logf("step %d loss %.4f %+v", step, v, parts)
		for _, p := range m.Params() {
			if p.V.Grad != nil {
				g := p.V.Grad.Cast(tensor.Float32).Contiguous().F32()
				w := p.V.T.Contiguous().F32()
				for i := range w {
					w[i] -= 0.2 * g[i]
				}
				p.V.T = tensor.FromSlice(w, p.V.T.Shape()...)
				p.V.Grad = nil
			}
		}
	}
	t.Logf("loss %.4f → %.4f", first, last)
	if !(last < first) || math.IsNaN(last) {
		t.Errorf("loss went %g → %g in 12 SGD steps on one batch", first, last)
	}
}

// TestPaddleDetDuplicateMustMatch: PicoHeadV2 saves head_cls<l> twice (also
// as head_cls_list.<l>); a file whose copies differ is not one model and
// fails naming both.
func TestPaddleDetDuplicateMustMatch(t *testing.T) {
	f, err := pdparams.Read(pdDetFixture)
	if err != nil {
		t.Fatal(err)
	}
	var entries []pdparams.Entry
	for _, n := range f.Names {
		v := f.Tensors[n]
		if n == "head.head_cls_list.1.bias" {
			v = v.Contiguous().Clone()
			v.F32()[0]++
		}
		entries = append(entries, pdparams.Entry{Name: n, T: v})
	}
	path := filepath.Join(t.TempDir(), "dup.pdparams")
	if err := pdparams.Write(path, entries); err != nil {
		t.Fatal(err)
	}
	_, err = workflow.LoadCheckpoint(path, pdDetModel(t, pdDetConfig), nil)
	if err == nil || !strings.Contains(err.Error(), "head.head_cls_list.1.bias differs from head.head_cls1.bias") {
		t.Fatalf("got %v, want the differing copies named", err)
	}
}

// TestPaddleDetFullSize: picodet_ref.py writes PaddleDetection's
// picodet_s_320_coco_lcnet as configured (LCNet 0.75, 96 channels, 80
// classes) at test time; on a 320×320 input the loaded model matches its
// NumPy forward. Skipped with -short or without /usr/bin/python3 + NumPy.
func TestPaddleDetFullSize(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the NumPy forward at 320×320")
	}
	if err := exec.Command("/usr/bin/python3", "-c", "import numpy").Run(); err != nil {
		t.Skip("no /usr/bin/python3 with NumPy:", err)
	}
	dir := t.TempDir()
	if out, err := exec.Command("/usr/bin/python3", "../../scripts/ref/picodet_ref.py", dir, "s_320").CombinedOutput(); err != nil {
		t.Fatalf("picodet_ref.py: %v\n%s", err, out)
	}
	m := pdDetModel(t, pdDetConfig, "num_classes=80", "LCNet.scale=0.75", "LCPAN.out_channels=96",
		"PicoHeadV2.conv_feat.feat_in=96", "PicoHeadV2.conv_feat.feat_out=96", "PicoHeadV2.feat_in_chan=96")
	if _, err := workflow.LoadCheckpoint(filepath.Join(dir, "s_320.pdparams"), m, nil); err != nil {
		t.Fatal(err)
	}
	out := m.Run(ag.Const(pdDetInput(1, 3, 320, 320)), false)
	if d := maxAbsDiff(t, "scores", ag.Sigmoid(out.Cls).T, filepath.Join(dir, "s_320_scores.npy")); d > 1e-4 {
		t.Errorf("scores off by %g", d)
	}
	if d := maxAbsDiff(t, "box distribution logits", out.Reg.T, filepath.Join(dir, "s_320_regs.npy")); d > 1e-4 {
		t.Errorf("logits off by %g", d)
	}
}
