package nn

import (
	"errors"
	"testing"

	"paddle/core/ag"
	"paddle/core/op"
	"paddle/core/tensor"
)

type sdpaCase struct {
	Q, K, V, Y, W, R jt
	DQ, DK, DV       jt
	Mask             *jt
	MaskBool         bool `json:"mask_bool"`
	Causal           bool
	Scale            float64
}

func (c sdpaCase) opts(dt tensor.DType) SDPAOptions {
	o := SDPAOptions{Causal: c.Causal, Scale: c.Scale}
	if c.Mask != nil {
		o.Mask = c.Mask.t().Cast(dt)
		if c.MaskBool {
			o.Mask = c.Mask.t().Cast(tensor.Bool)
		}
	}
	return o
}

// TestSDPAMatchesTorch compares outputs, weights and the gradients of all
// three inputs with scripts/ref/sdpa_torch.py: bool key-padding masks
// broadcast over heads and queries, causal masks, additive float masks
// broadcast over the batch, and an explicit scale.
func TestSDPAMatchesTorch(t *testing.T) {
	var ref struct{ Cases map[string]sdpaCase }
	loadJSON(t, "sdpa_torch.json", &ref)
	if len(ref.Cases) != 4 {
		t.Fatalf("%d cases in sdpa_torch.json, want 4", len(ref.Cases))
	}
	for name, c := range ref.Cases {
		t.Run(name, func(t *testing.T) {
			q, k, v := ag.Param(c.Q.t()), ag.Param(c.K.t()), ag.Param(c.V.t())
			y, w := ScaledDotProductAttention(q, k, v, c.opts(tensor.Float64), true)
			closeTo(t, "out", y.T, c.Y, 1e-10)
			closeTo(t, "weights", w.T, c.W, 1e-10)
			y.BackwardWith(c.R.t())
			closeTo(t, "dq", q.Grad, c.DQ, 1e-9)
			closeTo(t, "dk", k.Grad, c.DK, 1e-9)
			closeTo(t, "dv", v.Grad, c.DV, 1e-9)
			// float32 forward
			q32, k32, v32 := c.Q.t().Cast(tensor.Float32), c.K.t().Cast(tensor.Float32), c.V.t().Cast(tensor.Float32)
			y32, _ := ScaledDotProductAttention(ag.Const(q32), ag.Const(k32), ag.Const(v32), c.opts(tensor.Float32), false)
			if y32.DType() != tensor.Float32 {
				t.Fatalf("float32 inputs gave %v", y32.DType())
			}
			closeTo(t, "out float32", y32.T, c.Y, 1e-5)
		})
	}
}

func TestSDPAGradCheckAndMaskErrors(t *testing.T) {
	r := rng()
	q := ag.Param(tensor.Randn(r, tensor.Float64, 0, 1, 2, 3, 4))
	k := ag.Param(tensor.Randn(r, tensor.Float64, 0, 1, 2, 3, 4))
	v := ag.Param(tensor.Randn(r, tensor.Float64, 0, 1, 2, 3, 5))
	checkGrad(t, "sdpa causal", []*ag.Var{q, k, v}, func() *ag.Var {
		y, _ := ScaledDotProductAttention(q, k, v, SDPAOptions{Causal: true}, false)
		return y
	}, 1e-6)
	defer func() {
		var se *op.ShapeError
		if err, _ := recover().(error); !errors.As(err, &se) {
			t.Fatalf("a mask of the wrong shape: recovered %v, want *op.ShapeError", err)
		}
	}()
	ScaledDotProductAttention(q, k, v, SDPAOptions{Mask: tensor.New(tensor.Bool, 2, 4, 3)}, false)
}
