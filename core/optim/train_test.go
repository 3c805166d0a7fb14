package optim

import (
	"math/rand/v2"
	"testing"

	"paddle/core/ag"
	"paddle/core/nn"
	"paddle/core/tensor"
)

// A small MLP learns XOR-like quadrants with cross-entropy: the layers,
// losses, autograd and every optimizer working together. Untrained loss is
// about ln 2 ≈ 0.69; each optimizer must bring it under 0.1.
func TestTrainTinyMLP(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	const n = 64
	xs := make([]float32, 2*n)
	ys := make([]int64, n)
	for i := range n {
		a, b := r.Float64()*2-1, r.Float64()*2-1
		xs[2*i], xs[2*i+1] = float32(a), float32(b)
		if a*b > 0 {
			ys[i] = 1
		}
	}
	x := ag.Const(tensor.FromSlice(xs, n, 2))
	y := tensor.FromSlice(ys, n)
	mk := map[string]func([]nn.Param) (Optimizer, error){
		"sgd-nesterov": func(p []nn.Param) (Optimizer, error) {
			return NewSGD(p, SGDOptions{LR: 0.2, Momentum: 0.9, Nesterov: true})
		},
		"adam":    func(p []nn.Param) (Optimizer, error) { return NewAdam(p, AdamOptions{LR: 0.03}) },
		"adamw":   func(p []nn.Param) (Optimizer, error) { return NewAdamW(p, AdamOptions{LR: 0.03, WeightDecay: 1e-4}) },
		"rmsprop": func(p []nn.Param) (Optimizer, error) { return NewRMSProp(p, RMSPropOptions{LR: 0.01}) },
	}
	for name, f := range mk {
		t.Run(name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 1))
			l1, _ := nn.NewLinear(nn.LinearOptions{In: 2, Out: 16}, r)
			act, _ := nn.NewActivation("tanh")
			l2, _ := nn.NewLinear(nn.LinearOptions{In: 16, Out: 2}, r)
			m := nn.NewSequential(l1, act, l2)
			o, err := f(m.Params())
			if err != nil {
				t.Fatal(err)
			}
			var loss float64
			for range 300 {
				o.ZeroGrad()
				l, err := nn.CrossEntropy(m.Forward(x, true), y, nn.DefaultCrossEntropyOptions())
				if err != nil {
					t.Fatal(err)
				}
				l.Backward()
				o.Step()
				loss = l.Item()
			}
			t.Logf("final loss %.4f", loss)
			if loss > 0.1 {
				t.Errorf("final loss %.4f, want < 0.1", loss)
			}
		})
	}
}
