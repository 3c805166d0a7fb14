package det

import (
	"math"
	"slices"
	"testing"

	"paddle/core/ag"
	"paddle/core/data"
	"paddle/core/nn"
	"paddle/core/optim"
	"paddle/core/tensor"
)

// TestWeightEMA checks the average against hand-computed values, the
// swap in and out, and that a checkpoint saved while the model holds the
// average resumes the raw weights and the average exactly.
func TestWeightEMA(t *testing.T) {
	w := ag.Param(tensor.FromSlice([]float32{1, 2}, 2))
	params := []nn.Param{{Name: "w", V: w}}
	e, err := newWeightEMA(params, 0.9998, "")
	if err != nil {
		t.Fatal(err)
	}
	// threshold decay: min(0.9998, (1+t)/(10+t)) = 0.1, then 2/11.
	if d := e.currentDecay(); math.Abs(d-0.1) > 1e-12 {
		t.Fatalf("first decay %v, want 0.1", d)
	}
	w.T.CopyFrom(tensor.FromSlice([]float32{11, 12}, 2))
	e.update() // avg = 0.1·[1 2] + 0.9·[11 12] = [10 11]
	w.T.CopyFrom(tensor.FromSlice([]float32{0, 0}, 2))
	e.update() // avg = 2/11·[10 11] = [20/11, 2]
	want := []float32{20.0 / 11, 2}
	for i, v := range e.avg[0].F32() {
		if math.Abs(float64(v-want[i])) > 1e-6 {
			t.Fatalf("average %v, want %v", e.avg[0].F32(), want)
		}
	}
	opt, _, err := optim.Build(optim.Config{Name: "SGD", LR: optim.LRConfig{Name: "Constant", LearningRate: 0.1}}, params, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	o := &emaOptimizer{Optimizer: opt, ema: e}
	e.useAverage()
	if got := w.T.F32(); math.Abs(float64(got[0]-want[0])) > 1e-6 || math.Abs(float64(got[1])-2) > 1e-6 {
		t.Fatalf("model holds %v, want the average %v", got, want)
	}
	st := o.State() // as a checkpoint saved after an evaluation
	e.useRaw()
	if got := w.T.F32(); got[0] != 0 || got[1] != 0 {
		t.Fatalf("raw weights %v, want [0 0]", got)
	}
	// Resume: the model file holds the average; the state restores the raw weights.
	w2 := ag.Param(tensor.FromSlice([]float32{want[0], want[1]}, 2))
	p2 := []nn.Param{{Name: "w", V: w2}}
	e2, _ := newWeightEMA(p2, 0.9998, "threshold")
	opt2, _, _ := optim.Build(optim.Config{Name: "SGD", LR: optim.LRConfig{Name: "Constant", LearningRate: 0.1}}, p2, 1, 1)
	o2 := &emaOptimizer{Optimizer: opt2, ema: e2}
	if err := o2.LoadState(st); err != nil {
		t.Fatal(err)
	}
	if got := w2.T.F32(); got[0] != 0 || got[1] != 0 {
		t.Fatalf("resumed raw weights %v, want [0 0]", got)
	}
	if e2.updates != 2 || math.Abs(float64(e2.avg[0].F32()[1])-2) > 1e-6 {
		t.Fatalf("resumed average %v after %d updates, want %v after 2", e2.avg[0].F32(), e2.updates, want)
	}
	if _, err := newWeightEMA(params, 0.9, "cosine"); err == nil {
		t.Fatal("an unknown ema_decay_type was accepted")
	}
	ex, _ := newWeightEMA(params, 0.9998, "exponential")
	if d, wd := ex.currentDecay(), 0.9998*(1-math.Exp(-1.0/2000)); math.Abs(d-wd) > 1e-15 {
		t.Fatalf("exponential decay %v, want %v", d, wd)
	}
}

// TestRotateHue checks the hue step against PaddleDetection's formula
// (img · ((ityiq · bt · tyiq)ᵀ) with bt the YIQ rotation by delta·π),
// evaluated by hand in float64 Python for these pixels, then clipped and
// truncated to uint8. Unclipped values: delta 0.3 → 170.515 8.668 227.402 |
// 88.526 212.863 -79.478 | 128.189 127.933 127.85 | 345.814 182.572 134.778.
func TestRotateHue(t *testing.T) {
	img := &data.Image{H: 1, W: 4, C: 3, Pix: []uint8{200, 30, 40, 10, 220, 90, 128, 128, 128, 255, 255, 0}}
	for _, c := range []struct {
		delta float64
		want  []uint8
	}{
		{0.3, []uint8{170, 8, 227, 88, 212, 0, 128, 127, 127, 255, 182, 134}},
		{-17.25, []uint8{15, 81, 255, 255, 109, 12, 128, 127, 128, 255, 152, 255}},
	} {
		got := rotateHue(img, c.delta).Pix
		if !slices.Equal(got, c.want) {
			t.Errorf("delta %v: got %v, want %v", c.delta, got, c.want)
		}
	}
}
