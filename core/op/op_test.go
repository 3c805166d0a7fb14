package op_test

import (
	"math/rand/v2"
	"testing"

	"paddle/core/op"
	"paddle/core/op/optest"
)

// TestGradients gradient-checks every primitive that has a backward: adding
// an op with VJP and Sample adds its check automatically.
func TestGradients(t *testing.T) {
	for _, d := range op.All() {
		if d.VJP == nil || d.Sample == nil {
			continue
		}
		t.Run(d.Name, func(t *testing.T) {
			in, attrs := d.Sample(rand.New(rand.NewPCG(1, 2)))
			optest.GradCheck(t, d, in, attrs, optest.Tol{Abs: 1e-6, Rel: 1e-5})
		})
	}
}

// TestEveryDifferentiableOpIsChecked keeps ops from dodging the gradient check.
func TestEveryDifferentiableOpIsChecked(t *testing.T) {
	for _, d := range op.All() {
		if d.VJP != nil && d.Sample == nil {
			t.Errorf("%s has a VJP but no Sample: it is not gradient-checked", d.Name)
		}
	}
}
