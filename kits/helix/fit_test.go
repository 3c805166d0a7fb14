package helix

import (
	"testing"

	"paddle/core/ag"
	"paddle/core/chem"
	"paddle/core/optim"
	"paddle/core/tensor"
)

// fitSteps trains m on one batch with Adam and returns the first and last losses.
func fitSteps(t *testing.T, m *Model, b Batch, target []float32, steps int) (first, last float64) {
	t.Helper()
	opt, _, err := optim.Build(optim.Config{Name: "Adam", LR: optim.LRConfig{Name: "Constant", LearningRate: 0.003}}, m.Params(), 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	y := ag.Const(tensor.FromSlice(target, len(target), 1))
	for it := range steps {
		d := ag.Sub(m.Raw(inputsOf(&b), true, nil), y)
		l := ag.Mean(ag.Mul(d, d), nil, false)
		l.Backward()
		opt.Step()
		opt.ZeroGrad()
		if it == 0 {
			first = l.Item()
		}
		last = l.Item()
	}
	return first, last
}

func parseMolT(s string) (*chem.Mol, error) { return chem.Parse(s) }
