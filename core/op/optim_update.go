package op

import (
	"fmt"
	"math"

	"paddle/core/parallel"
	"paddle/core/tensor"
)

// The update rules are fused primitives, like Paddle's sgd/momentum/adam ops:
// one pass over the elements instead of a dozen elementwise ops, and a
// backend can replace them by name. They have no gradient. Inputs are the
// parameter, its gradient and the state slots (all one float dtype and
// shape); outputs are the new parameter and the new slots. Per-element math
// runs in float64.

var (
	_ = define(&Def{Name: "sgd_update", Arity: 3, Infer: updateInfer(2), Ref: updateRef(sgdElem), NoGrad: []int{0, 1, 2}})
	_ = define(&Def{Name: "adam_update", Arity: 4, Infer: updateInfer(3), Ref: updateRef(adamElem), NoGrad: []int{0, 1, 2, 3}})
	_ = define(&Def{Name: "rmsprop_update", Arity: 5, Infer: updateInfer(4), Ref: updateRef(rmspropElem), NoGrad: []int{0, 1, 2, 3, 4}})
)

func updateInfer(nOut int) func(in []Meta, _ Attrs) ([]Meta, error) {
	return func(in []Meta, _ Attrs) ([]Meta, error) {
		if !in[0].DType.IsFloat() {
			return nil, fmt.Errorf("parameter is %v, want a float dtype", in[0].DType)
		}
		for i, m := range in[1:] {
			if m.DType != in[0].DType || !m.Shape.Equal(in[0].Shape) {
				return nil, fmt.Errorf("input %d is %v %v, want the parameter's %v %v", i+1, m.DType, m.Shape, in[0].DType, in[0].Shape)
			}
		}
		out := make([]Meta, nOut)
		for i := range out {
			out[i] = in[0]
		}
		return out, nil
	}
}

// hyper are the attributes of an update op, read once per call.
type hyper struct {
	lr, wd, mom, damp, beta1, beta2, eps, alpha float64
	bc1, bc2                                    float64 // Adam's bias corrections 1-β^t
	decoupled, nesterov, first, centered        bool
}

func readHyper(a Attrs) hyper {
	h := hyper{
		lr: a.Float("lr", 0), wd: a.Float("weight_decay", 0), mom: a.Float("momentum", 0),
		damp: a.Float("dampening", 0), beta1: a.Float("beta1", 0.9), beta2: a.Float("beta2", 0.999),
		eps: a.Float("eps", 1e-8), alpha: a.Float("alpha", 0.99),
		decoupled: a.Bool("decoupled", false), nesterov: a.Bool("nesterov", false),
		first: a.Bool("first", false), centered: a.Bool("centered", false),
	}
	t := float64(a.Int("step", 1))
	h.bc1, h.bc2 = 1-math.Pow(h.beta1, t), 1-math.Pow(h.beta2, t)
	return h
}

// elemFn updates one element: v[0] is the parameter, v[1] the gradient, v[2:]
// the slots; it writes the new parameter into v[0] and new slots into v[2:].
type elemFn func(h *hyper, v []float64)

func updateRef(f elemFn) func(out, in []*T, a Attrs) {
	return func(out, in []*T, a Attrs) {
		h := readHyper(a)
		switch in[0].DType() {
		case tensor.Float32:
			updateLoop(f, &h, dataAll[float32](out), dataAll[float32](in))
		case tensor.Float64:
			updateLoop(f, &h, dataAll[float64](out), dataAll[float64](in))
		}
	}
}

func dataAll[E float32 | float64](ts []*T) [][]E {
	out := make([][]E, len(ts))
	for i, t := range ts {
		out[i] = tensor.Data[E](t)
	}
	return out
}

func updateLoop[E float32 | float64](f elemFn, h *hyper, out, in [][]E) {
	parallel.For(len(in[0]), 1<<14, func(lo, hi int) {
		v := make([]float64, len(in))
		for i := lo; i < hi; i++ {
			for k := range in {
				v[k] = float64(in[k][i])
			}
			f(h, v)
			out[0][i] = E(v[0])
			for k := 1; k < len(out); k++ {
				out[k][i] = E(v[k+1])
			}
		}
	})
}

// decay applies weight decay to one element: coupled (L2, added to the
// gradient) or decoupled (the parameter shrinks by lr·wd, Loshchilov & Hutter).
func decay(h *hyper, v []float64) {
	if h.wd == 0 {
		return
	}
	if h.decoupled {
		v[0] *= 1 - h.lr*h.wd
	} else {
		v[1] += h.wd * v[0]
	}
}

// sgdElem is torch.optim.SGD: buf = μ·buf + (1-dampening)·g (buf = g on the
// first step); g = g + μ·buf (Nesterov) or buf; p -= lr·g.
func sgdElem(h *hyper, v []float64) {
	decay(h, v)
	g := v[1]
	if h.mom != 0 {
		if h.first {
			v[2] = g
		} else {
			v[2] = h.mom*v[2] + (1-h.damp)*g
		}
		if h.nesterov {
			g += h.mom * v[2]
		} else {
			g = v[2]
		}
	}
	v[0] -= h.lr * g
}

// adamElem is torch.optim.Adam/AdamW: m = β1·m + (1-β1)·g,
// v = β2·v + (1-β2)·g², p -= lr/(1-β1^t) · m / (sqrt(v)/sqrt(1-β2^t) + eps).
func adamElem(h *hyper, v []float64) {
	decay(h, v)
	g := v[1]
	v[2] = h.beta1*v[2] + (1-h.beta1)*g
	v[3] = h.beta2*v[3] + (1-h.beta2)*g*g
	denom := math.Sqrt(v[3])/math.Sqrt(h.bc2) + h.eps
	v[0] -= h.lr / h.bc1 * v[2] / denom
}

// rmspropElem is torch.optim.RMSprop: s = α·s + (1-α)·g²; centered subtracts
// the squared running mean of g; avg = sqrt(s - ḡ²) + eps; with momentum
// buf = μ·buf + g/avg and p -= lr·buf, else p -= lr·g/avg.
func rmspropElem(h *hyper, v []float64) {
	decay(h, v)
	g := v[1]
	v[2] = h.alpha*v[2] + (1-h.alpha)*g*g
	s := v[2]
	if h.centered {
		v[3] = h.alpha*v[3] + (1-h.alpha)*g
		s -= v[3] * v[3]
	}
	avg := math.Sqrt(s) + h.eps
	if h.mom > 0 {
		v[4] = h.mom*v[4] + g/avg
		v[0] -= h.lr * v[4]
	} else {
		v[0] -= h.lr * g / avg
	}
}
