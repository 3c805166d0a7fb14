package optim

import (
	"math"
	"testing"

	"gopkg.in/yaml.v3"

	"paddle/core/ag"
	"paddle/core/nn"
	"paddle/core/tensor"
)

func TestBuildFromPaddleConfig(t *testing.T) {
	src := `
name: Momentum
momentum: 0.9
lr:
  name: Cosine
  learning_rate: 0.05
  warmup_epoch: 1
regularizer:
  name: L2
  coeff: 0.0001
clip_norm: 1
`
	var c Config
	if err := yaml.Unmarshal([]byte(src), &c); err != nil {
		t.Fatal(err)
	}
	w := ag.Param(tensor.FromSlice([]float64{1, 2}, 2))
	ps := []nn.Param{{Name: "w", V: w}}
	o, s, err := Build(c, ps, 3, 10)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.LR(5); math.Abs(got-0.025) > 1e-12 {
		t.Errorf("warm-up LR(5) = %v, want 0.025", got)
	}
	// gradient (30, 40) has norm 50: clipped to (0.6, 0.8) (up to torch's 1e-6),
	// then L2 adds 1e-4·p, then the step uses the schedule's rate.
	w.Grad = tensor.FromSlice([]float64{30, 40}, 2)
	StepWith(o, s, 10)
	lr := s.LR(10)
	scale := 1 / (50 + 1e-6)
	want := []float64{1 - lr*(30*scale+1e-4*1), 2 - lr*(40*scale+1e-4*2)}
	for i, v := range w.T.F64() {
		if math.Abs(v-want[i]) > 1e-12 {
			t.Fatalf("after one step %v, want %v", w.T.F64(), want)
		}
	}
	if cl, ok := o.(*Clipped); !ok || math.Abs(cl.LastNorm-50) > 1e-9 {
		t.Errorf("want a Clipped optimizer that saw norm 50, got %T", o)
	}
	for _, bad := range []Config{
		{Name: "Adagrad", LR: LRConfig{Name: "Const"}},
		{Name: "SGD", LR: LRConfig{Name: "Const"}, Regularizer: &Regularizer{Name: "L1", Coeff: 1}},
		{Name: "SGD", LR: LRConfig{Name: "Nope"}},
	} {
		if _, _, err := Build(bad, ps, 1, 1); err == nil {
			t.Errorf("Build(%+v) accepted", bad)
		}
	}
}

func TestNoWeightDecay(t *testing.T) {
	w := ag.Param(tensor.FromSlice([]float64{1, 1, 1, 1}, 2, 2))
	b := ag.Param(tensor.FromSlice([]float64{1, 1}, 2))
	n := ag.Param(tensor.FromSlice([]float64{1, 1}, 1, 2))
	ps := []nn.Param{{Name: "fc.weight", V: w}, {Name: "fc.bias", V: b}, {Name: "norm.weight", V: n}}
	c := Config{Name: "AdamW", WeightDecay: 0.5, NoWeightDecayName: "norm", OneDimParamNoWeightDecay: true,
		LR: LRConfig{Name: "Const", LearningRate: 0.1}}
	o, _, err := Build(c, ps, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		p.V.Grad = tensor.ZerosLike(p.V.T) // zero gradient: only decay can move a weight
	}
	o.Step()
	if got := w.T.F64()[0]; math.Abs(got-0.95) > 1e-12 { // 1·(1 - 0.1·0.5)
		t.Errorf("decayed weight %v, want 0.95", got)
	}
	if b.T.F64()[0] != 1 || n.T.F64()[0] != 1 {
		t.Errorf("exempt params moved: bias %v norm %v", b.T.F64(), n.T.F64())
	}
}

func TestByEpochAndMultiStep(t *testing.T) {
	s, err := BuildSchedule(LRConfig{Name: "MultiStepDecay", LearningRate: 1, Milestones: []int{2, 4}, Gamma: 0.5}, 6, 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		step int
		want float64
	}{{19, 1}, {20, 0.5}, {45, 0.25}} {
		if got := s.LR(c.step); got != c.want {
			t.Errorf("MultiStepDecay LR(%d) = %v, want %v", c.step, got, c.want)
		}
	}
	e, err := BuildSchedule(LRConfig{Name: "Cosine", LearningRate: 1, ByEpoch: true}, 4, 10)
	if err != nil {
		t.Fatal(err)
	}
	if e.LR(10) != e.LR(19) || math.Abs(e.LR(25)-0.5) > 1e-12 { // epoch 2 of 4: cos(π/2)
		t.Errorf("by-epoch cosine: LR(10)=%v LR(19)=%v LR(25)=%v", e.LR(10), e.LR(19), e.LR(25))
	}
}

// Unknown optimizer and schedule names list the registered ones; "" and
// Constant are Const.
func TestBuildKnownNames(t *testing.T) {
	ps := []nn.Param{{Name: "w", V: ag.Param(tensor.New(tensor.Float32, 2))}}
	_, _, err := Build(Config{Name: "Lion", LR: LRConfig{LearningRate: 0.1}}, ps, 1, 1)
	if err == nil || err.Error() != `Optimizer: unknown name "Lion" (known: Momentum, SGD, Adam, AdamW, RMSProp)` {
		t.Errorf("unknown optimizer: %v", err)
	}
	_, err = BuildSchedule(LRConfig{Name: "Exp", LearningRate: 0.1}, 1, 1)
	if err == nil || err.Error() != `lr: unknown name "Exp" (known: Const, Cosine, Step, Piecewise, MultiStepDecay, Linear, Polynomial, OneCycle)` {
		t.Errorf("unknown schedule: %v", err)
	}
	for _, n := range []string{"", "Constant", "Const"} {
		s, err := BuildSchedule(LRConfig{Name: n, LearningRate: 0.3}, 2, 5)
		if err != nil || s.LR(7) != 0.3 {
			t.Errorf("schedule %q: %v, %v", n, s, err)
		}
	}
	if _, _, err := Build(Config{Name: "AdamW", Regularizer: &Regularizer{Name: "L2", Coeff: 1e-4}, LR: LRConfig{LearningRate: 0.1}}, ps, 1, 1); err == nil ||
		err.Error() != "Optimizer: AdamW takes weight_decay, not a regularizer" {
		t.Errorf("AdamW with a regularizer: %v", err)
	}
}
