package optim

import (
	"math"
	"slices"
	"testing"

	"paddle/core/ag"
	"paddle/core/nn"
	"paddle/core/tensor"
)

// With the same gradients, a parameter at multiplier 0.5 moves exactly
// half as far as one at 1 (SGD with momentum and L2, Adam), a frozen one
// does not move, and the optimizer state round-trips.
func TestBuildMultScalesAndFreezes(t *testing.T) {
	for _, name := range []string{"Momentum", "Adam"} {
		c := Config{Name: name, Momentum: 0.9, LR: LRConfig{Name: "Constant", LearningRate: 0.1}}
		if name == "Momentum" {
			c.Regularizer = &Regularizer{Name: "L2", Coeff: 0.01}
		}
		start := []float64{1, -2, 3}
		ps := []nn.Param{
			{Name: "full", V: ag.Param(tensor.FromSlice(slices.Clone(start), 3))},
			{Name: "half", V: ag.Param(tensor.FromSlice(slices.Clone(start), 3))},
			{Name: "frozen", V: ag.Param(tensor.FromSlice(slices.Clone(start), 3))},
		}
		mult := map[string]float64{"full": 1, "half": 0.5, "frozen": 0}
		o, _, err := BuildMult(c, ps, func(n string) float64 { return mult[n] }, 1, 10)
		if err != nil {
			t.Fatal(err)
		}
		if o.LR() != 0.1 {
			t.Errorf("%s: LR %g, want the base rate 0.1", name, o.LR())
		}
		for step := range 3 {
			for _, p := range ps {
				p.V.Grad = tensor.FromSlice([]float64{0.5, float64(step) - 1, 2}, 3)
			}
			o.Step()
			o.ZeroGrad()
		}
		for _, p := range ps {
			if p.V.Grad != nil {
				t.Errorf("%s: %s keeps a gradient after ZeroGrad", name, p.Name)
			}
		}
		full, half, frozen := ps[0].V.T.F64(), ps[1].V.T.F64(), ps[2].V.T.F64()
		for i := range start {
			if frozen[i] != start[i] {
				t.Errorf("%s: frozen[%d] moved %g → %g", name, i, start[i], frozen[i])
			}
			df, dh := full[i]-start[i], half[i]-start[i]
			if df == 0 {
				t.Fatalf("%s: full[%d] did not move", name, i)
			}
			if name == "Adam" && math.Abs(dh-0.5*df) > 1e-12 {
				t.Errorf("%s: half moved %g, want half of %g", name, dh, df)
			}
			if name == "Momentum" && (math.Abs(dh) >= math.Abs(df) || math.Abs(dh-0.5*df) > 0.05*math.Abs(df)) {
				t.Errorf("%s: half moved %g, want about half of %g", name, dh, df)
			}
		}
		st := o.State()
		if _, ok := st["frozen.momentum_buffer"]; ok {
			t.Errorf("%s: the frozen parameter has optimizer state", name)
		}
		if err := o.LoadState(st); err != nil {
			t.Errorf("%s: state round trip: %v", name, err)
		}
		if err := o.LoadState(map[string]*tensor.Tensor{"frozen.exp_avg": tensor.FromSlice(start, 3)}); err == nil {
			t.Errorf("%s: state for a frozen parameter loaded", name)
		}
	}
}

// Every multiplier 1 is Build itself; all frozen or a negative one is an error.
func TestBuildMultEdges(t *testing.T) {
	c := Config{Name: "SGD", LR: LRConfig{Name: "Constant", LearningRate: 0.1}}
	ps := []nn.Param{{Name: "w", V: ag.Param(tensor.FromSlice([]float64{1}, 1))}}
	o, _, err := BuildMult(c, ps, func(string) float64 { return 1 }, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := o.(*SGD); !ok {
		t.Errorf("all multipliers 1: got %T, want the plain *SGD", o)
	}
	for _, m := range []float64{0, -1} {
		if _, _, err := BuildMult(c, ps, func(string) float64 { return m }, 1, 1); err == nil {
			t.Errorf("multiplier %g: no error", m)
		}
	}
}
