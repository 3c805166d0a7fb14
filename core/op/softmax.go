package op

import (
	"fmt"
	"math"
	"math/rand/v2"

	"paddle/core/parallel"
	"paddle/core/tensor"
)

// softmax and log_softmax along attribute "axis" (default -1), as ONNX
// opset 13. They are primitives, not composites, because they are hot in
// training and inference: one numerically stable pass (subtract the max)
// instead of five allocating ones, and a fused backward ("softmax_grad").

// axisDims views shape s as (outer, k, inner) around axis.
func axisDims(s tensor.Shape, axis int) (outer, k, inner int) {
	outer, k, inner = 1, s[axis], 1
	for _, d := range s[:axis] {
		outer *= d
	}
	for _, d := range s[axis+1:] {
		inner *= d
	}
	return outer, k, inner
}

func axisInfer(in []Meta, a Attrs) ([]Meta, error) {
	if !in[0].DType.IsFloat() {
		return nil, fmt.Errorf("want a float input, got %v", in[0].DType)
	}
	if _, err := tensor.NormAxis(a.Int("axis", -1), len(in[0].Shape)); err != nil {
		return nil, err
	}
	return []Meta{in[0]}, nil
}

// rowGrain picks how many (k, inner) blocks one goroutine takes.
func rowGrain(k, inner int) int { return max(1, 1<<14/max(k*inner, 1)) }

// softmaxK writes softmax (or log_softmax) of x over the middle axis of (outer, k, inner).
func softmaxK[E fl](y, x []E, outer, k, inner int, log bool) {
	parallel.For(outer, rowGrain(k, inner), func(lo, hi int) {
		var m []E
		var s []float64
		if inner > 1 {
			m, s = make([]E, inner), make([]float64, inner)
		}
		for o := lo; o < hi; o++ {
			xb, yb := x[o*k*inner:(o+1)*k*inner], y[o*k*inner:(o+1)*k*inner]
			if inner == 1 {
				mx := xb[0]
				for _, v := range xb[1:] {
					mx = max(mx, v)
				}
				sum := 0.0
				for j, v := range xb {
					e := math.Exp(float64(v - mx))
					sum += e
					yb[j] = E(e)
				}
				if log {
					ls := E(math.Log(sum))
					for j, v := range xb {
						yb[j] = v - mx - ls
					}
				} else {
					r := E(1 / sum)
					for j := range yb {
						yb[j] *= r
					}
				}
				continue
			}
			// inner > 1: work on whole inner vectors so memory is read in order
			copy(m, xb[:inner])
			for j := 1; j < k; j++ {
				for i, v := range xb[j*inner : (j+1)*inner] {
					m[i] = max(m[i], v)
				}
			}
			clear(s)
			for j := range k {
				row, yr := xb[j*inner:(j+1)*inner], yb[j*inner:(j+1)*inner]
				for i, v := range row {
					e := math.Exp(float64(v - m[i]))
					s[i] += e
					yr[i] = E(e)
				}
			}
			for j := range k {
				row, yr := xb[j*inner:(j+1)*inner], yb[j*inner:(j+1)*inner]
				for i := range yr {
					if log {
						yr[i] = row[i] - m[i] - E(math.Log(s[i]))
					} else {
						yr[i] = E(float64(yr[i]) / s[i])
					}
				}
			}
		}
	})
}

// softmaxGradK: softmax dx = y·(g - Σg·y); log_softmax dx = g - e^y·Σg.
func softmaxGradK[E fl](dx, y, g []E, outer, k, inner int, log bool) {
	parallel.For(outer, rowGrain(k, inner), func(lo, hi int) {
		s := make([]float64, inner)
		for o := lo; o < hi; o++ {
			base := o * k * inner
			clear(s)
			for j := range k {
				for i := range inner {
					p := base + j*inner + i
					if log {
						s[i] += float64(g[p])
					} else {
						s[i] += float64(g[p]) * float64(y[p])
					}
				}
			}
			for j := range k {
				for i := range inner {
					p := base + j*inner + i
					if log {
						dx[p] = g[p] - E(math.Exp(float64(y[p]))*s[i])
					} else {
						dx[p] = y[p] * (g[p] - E(s[i]))
					}
				}
			}
		}
	})
}

func softmaxRef(log bool) func(out, in []*T, a Attrs) {
	return func(out, in []*T, a Attrs) {
		s := in[0].Shape()
		if s.NumElements() == 0 {
			return
		}
		ax, _ := tensor.NormAxis(a.Int("axis", -1), len(s))
		o, k, i := axisDims(s, ax)
		if in[0].DType() == tensor.Float32 {
			softmaxK(out[0].F32(), in[0].F32(), o, k, i, log)
		} else {
			softmaxK(out[0].F64(), in[0].F64(), o, k, i, log)
		}
	}
}

// Softmax returns e^x / Σe^x along axis.
func Softmax(x *T, axis int) *T { return call1(softmaxDef, Attrs{"axis": axis}, x) }

// LogSoftmax returns x - log Σe^x along axis.
func LogSoftmax(x *T, axis int) *T { return call1(logSoftmaxDef, Attrs{"axis": axis}, x) }

// SoftmaxGrad is the fused backward of softmax (log false) or log_softmax
// (log true) along axis, given the forward output y and upstream gradient g.
func SoftmaxGrad(y, g *T, axis int, log bool) *T {
	return call1(softmaxGradDef, Attrs{"axis": axis, "log": log}, y, g)
}

var softmaxDef, logSoftmaxDef, softmaxGradDef *Def

func init() {
	sample := func(r *rand.Rand) ([]*T, Attrs) {
		return []*T{tensor.Rand(r, tensor.Float64, -2, 2, 2, 3, 4)}, Attrs{"axis": 1}
	}
	vjp := func(log bool) func(c *VJPCtx) []*T {
		return func(c *VJPCtx) []*T {
			return []*T{SoftmaxGrad(c.Out[0], c.G(0), c.Attrs.Int("axis", -1), log)}
		}
	}
	// softmax in place: each row's max, then exp(x - max) over x, then the
	// scaling of what it wrote (log_softmax reads x again after writing)
	softmaxDef = define(&Def{Name: "softmax", Export: copyAttrs(intAttr("axis", -1)), ONNX: "Softmax", Arity: 1, Infer: axisInfer,
		Ref: softmaxRef(false), VJP: vjp(false), Sample: sample, InPlace: true})
	logSoftmaxDef = define(&Def{Name: "log_softmax", Export: copyAttrs(intAttr("axis", -1)), ONNX: "LogSoftmax", Arity: 1, Infer: axisInfer,
		Ref: softmaxRef(true), VJP: vjp(true), Sample: sample})
	softmaxGradDef = define(&Def{
		Name: "softmax_grad", Arity: 2,
		Infer: func(in []Meta, a Attrs) ([]Meta, error) {
			if in[1].DType != in[0].DType || !in[1].Shape.Equal(in[0].Shape) {
				return nil, fmt.Errorf("gradient is %v %v, want %v %v like the output", in[1].DType, in[1].Shape, in[0].DType, in[0].Shape)
			}
			return axisInfer(in, a)
		},
		Ref: func(out, in []*T, a Attrs) {
			s := in[0].Shape()
			if s.NumElements() == 0 {
				return
			}
			ax, _ := tensor.NormAxis(a.Int("axis", -1), len(s))
			o, k, i := axisDims(s, ax)
			if in[0].DType() == tensor.Float32 {
				softmaxGradK(out[0].F32(), in[0].F32(), in[1].F32(), o, k, i, a.Bool("log", false))
			} else {
				softmaxGradK(out[0].F64(), in[0].F64(), in[1].F64(), o, k, i, a.Bool("log", false))
			}
		},
	})
}
