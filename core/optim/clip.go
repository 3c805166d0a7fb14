package optim

import (
	"math"

	"paddle/core/nn"
	"paddle/core/op"
)

// ClipGradNorm scales the gradients of params together so that their global
// L2 norm is at most maxNorm, and returns the norm before clipping.
// Like torch.nn.utils.clip_grad_norm_, the scale is maxNorm/(norm+1e-6),
// applied only when below 1. Parameters without a gradient are skipped.
func ClipGradNorm(params []nn.Param, maxNorm float64) float64 {
	sq := 0.0
	for _, p := range params {
		if g := p.V.Grad; g != nil {
			sq += op.Sum(op.Mul(g, g), nil, false).Item()
		}
	}
	norm := math.Sqrt(sq)
	coef := maxNorm / (norm + 1e-6)
	if coef >= 1 {
		return norm
	}
	for _, p := range params {
		if g := p.V.Grad; g != nil {
			p.V.Grad = op.Mul(g, op.ScalarLike(g, coef))
		}
	}
	return norm
}
