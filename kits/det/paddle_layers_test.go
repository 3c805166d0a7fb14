package det

import (
	"math"
	"testing"

	"paddle/core/ag"
	"paddle/core/config"
	pio "paddle/core/io"
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
