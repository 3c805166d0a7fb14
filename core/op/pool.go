package op

import (
	"fmt"
	"math"
	"math/rand/v2"

	"paddle/core/parallel"
	"paddle/core/tensor"
)

// 2-D pooling, NCHW: max_pool2d (MaxPool), avg_pool2d (AveragePool),
// global_avg_pool / global_max_pool and adaptive_avg_pool2d. Every kernel is
// parallel over the N·C planes. The backward ops (*_grad) take the forward
// input for its shape (and, for max, to find each window's argmax again).

// PoolParams are the attributes of max_pool2d and avg_pool2d. Strides default
// to 1 (ONNX), not to the kernel size (PyTorch): give them.
type PoolParams struct {
	Kernel    []int  // [kh, kw], required
	Strides   []int  // [sh, sw]
	Pads      []int  // [top, left, bottom, right]
	Dilations []int  // [dh, dw], max_pool2d only
	CeilMode  bool   // round the output size up (the last window may hang over the end)
	AutoPad   string // "", "SAME_UPPER", "SAME_LOWER", "VALID"
	// CountIncludePad divides by the whole window, padding included (avg only).
	CountIncludePad bool
}

// Attrs returns p as op attributes.
func (p PoolParams) Attrs() Attrs {
	a := Attrs{"kernel_shape": append([]int(nil), p.Kernel...), "ceil_mode": p.CeilMode, "count_include_pad": p.CountIncludePad}
	for k, v := range map[string][]int{"strides": p.Strides, "pads": p.Pads, "dilations": p.Dilations} {
		if v != nil {
			a[k] = append([]int(nil), v...)
		}
	}
	if p.AutoPad != "" {
		a["auto_pad"] = p.AutoPad
	}
	return a
}

// MaxPool2D returns the maximum of each window of x: (N, C, H, W) → (N, C, OH, OW).
func MaxPool2D(x *T, p PoolParams) *T { return call1(maxPool2dDef, p.Attrs(), x) }

// AvgPool2D returns the mean of each window of x: (N, C, H, W) → (N, C, OH, OW).
func AvgPool2D(x *T, p PoolParams) *T { return call1(avgPool2dDef, p.Attrs(), x) }

// GlobalAvgPool averages x: (N, C, spatial...) over its spatial axes → (N, C, 1, ...).
func GlobalAvgPool(x *T) *T { return call1(globalAvgPoolDef, nil, x) }

// GlobalMaxPool takes the maximum of x: (N, C, spatial...) over its spatial axes → (N, C, 1, ...).
func GlobalMaxPool(x *T) *T { return call1(globalMaxPoolDef, nil, x) }

// AdaptiveAvgPool2D averages x: (N, C, H, W) into an oh×ow grid of bins
// [floor(i·H/oh), ceil((i+1)·H/oh)) (PyTorch's rule) → (N, C, oh, ow).
func AdaptiveAvgPool2D(x *T, oh, ow int) *T {
	return call1(adaptiveAvgPool2dDef, Attrs{"output_size": []int{oh, ow}}, x)
}

// boolAttr reads a boolean attribute given as bool or as an ONNX int (0/1).
func boolAttr(a Attrs, k string) bool {
	if v, ok := a[k].(int); ok {
		return v != 0
	}
	if v, ok := a[k].(int64); ok {
		return v != 0
	}
	return a.Bool(k, false)
}

func poolGeom(xs tensor.Shape, a Attrs) (geom2, error) {
	if len(xs) != 4 {
		return geom2{}, fmt.Errorf("want x (N, C, H, W), got %v", xs)
	}
	k, err := winPair(a, "kernel_shape", 0)
	if err != nil {
		return geom2{}, err
	}
	return makeGeom(xs[2], xs[3], k[0], k[1], a, boolAttr(a, "ceil_mode"))
}

func poolInfer(in []Meta, a Attrs) ([]Meta, error) {
	if !in[0].DType.IsFloat() {
		return nil, fmt.Errorf("want a float x, got %v", in[0].DType)
	}
	g, err := poolGeom(in[0].Shape, a)
	if err != nil {
		return nil, err
	}
	return []Meta{{in[0].DType, tensor.Shape{in[0].Shape[0], in[0].Shape[1], g.OH, g.OW}}}, nil
}

// poolGradInfer: a pooling backward op (x, dy) → dx shaped like x.
func poolGradInfer(in []Meta, _ Attrs) ([]Meta, error) {
	if in[1].DType != in[0].DType {
		return nil, fmt.Errorf("dy is %v, x is %v", in[1].DType, in[0].DType)
	}
	return []Meta{in[0]}, nil
}

func init() {
	maxPool2dDef = define(&Def{
		Name: "max_pool2d", Export: exportPool, Overwrites: true, ONNX: "MaxPool", Arity: 1, Infer: poolInfer,
		Ref: func(out, in []*T, a Attrs) {
			g, _ := poolGeom(in[0].Shape(), a)
			planes := in[0].Dim(0) * in[0].Dim(1)
			if out[0].DType() == tensor.Float32 {
				maxPool(in[0].F32(), out[0].F32(), nil, planes, g)
			} else {
				maxPool(in[0].F64(), out[0].F64(), nil, planes, g)
			}
		},
		VJP: func(c *VJPCtx) []*T { return []*T{call1(maxPool2dGradDef, c.Attrs, c.In[0], c.G(0))} },
		Sample: func(r *rand.Rand) ([]*T, Attrs) {
			// distinct values keep every window's argmax away from ties
			return []*T{distinctSample(r, 2, 2, 7, 6)}, Attrs{"kernel_shape": []int{3, 2}, "strides": []int{2, 2},
				"pads": []int{1, 0, 1, 1}, "dilations": []int{1, 2}, "ceil_mode": true}
		},
	})
	maxPool2dGradDef = define(&Def{
		Name: "max_pool2d_grad", Arity: 2, Infer: poolGradInfer,
		Ref: func(out, in []*T, a Attrs) {
			g, _ := poolGeom(in[0].Shape(), a)
			planes := in[0].Dim(0) * in[0].Dim(1)
			if out[0].DType() == tensor.Float32 {
				maxPool(in[0].F32(), in[1].F32(), out[0].F32(), planes, g)
			} else {
				maxPool(in[0].F64(), in[1].F64(), out[0].F64(), planes, g)
			}
		},
	})
	avgPool2dDef = define(&Def{
		Name: "avg_pool2d", Export: exportPool, ONNX: "AveragePool", Arity: 1, Infer: poolInfer,
		Ref: func(out, in []*T, a Attrs) {
			g, _ := poolGeom(in[0].Shape(), a)
			planes, incl := in[0].Dim(0)*in[0].Dim(1), boolAttr(a, "count_include_pad")
			if out[0].DType() == tensor.Float32 {
				avgPool(in[0].F32(), out[0].F32(), planes, g, incl, false)
			} else {
				avgPool(in[0].F64(), out[0].F64(), planes, g, incl, false)
			}
		},
		VJP: func(c *VJPCtx) []*T { return []*T{call1(avgPool2dGradDef, c.Attrs, c.In[0], c.G(0))} },
		Sample: func(r *rand.Rand) ([]*T, Attrs) {
			return []*T{tensor.Rand(r, tensor.Float64, -1, 1, 2, 2, 7, 6)}, Attrs{"kernel_shape": []int{3, 3}, "strides": []int{2, 2},
				"pads": []int{1, 1, 1, 0}, "ceil_mode": true}
		},
	})
	avgPool2dGradDef = define(&Def{
		Name: "avg_pool2d_grad", Arity: 2, Infer: poolGradInfer,
		Ref: func(out, in []*T, a Attrs) {
			g, _ := poolGeom(in[0].Shape(), a)
			planes, incl := in[0].Dim(0)*in[0].Dim(1), boolAttr(a, "count_include_pad")
			if out[0].DType() == tensor.Float32 {
				avgPool(out[0].F32(), in[1].F32(), planes, g, incl, true)
			} else {
				avgPool(out[0].F64(), in[1].F64(), planes, g, incl, true)
			}
		},
	})
	globalAvgPoolDef = define(&Def{
		Name: "global_avg_pool", Export: exportTwin, Overwrites: true, ONNX: "GlobalAveragePool", Arity: 1, Infer: globalInfer,
		Ref: func(out, in []*T, _ Attrs) {
			x := in[0]
			if x.DType() == tensor.Float32 && x.IsContiguous() && out[0].IsContiguous() && x.Len() > 0 {
				globalAvgPool32(out[0].F32(), x.F32(), x.Dim(0)*x.Dim(1))
				return
			}
			out[0].CopyFrom(Mean(x, spatialAxes(x.Rank()), true))
		},
		// every pixel gets dy / (H·W)
		VJP: func(c *VJPCtx) []*T {
			n := float64(c.In[0].Len() / max(c.Out[0].Len(), 1))
			return []*T{BroadcastTo(Div(c.G(0), ScalarLike(c.Out[0], n)), c.In[0].Shape()...)}
		},
		Sample: uniform(-1, 1, tensor.Shape{2, 3, 4, 5}),
	})
	globalMaxPoolDef = define(&Def{
		Name: "global_max_pool", Export: exportTwin, ONNX: "GlobalMaxPool", Arity: 1, Infer: globalInfer,
		Ref: func(out, in []*T, _ Attrs) {
			x := asPlanes(in[0])
			g, _ := makeGeom(1, x.Dim(3), 1, x.Dim(3), nil, false)
			if out[0].DType() == tensor.Float32 {
				maxPool(x.F32(), out[0].F32(), nil, x.Dim(0)*x.Dim(1), g)
			} else {
				maxPool(x.F64(), out[0].F64(), nil, x.Dim(0)*x.Dim(1), g)
			}
		},
		// the whole gradient goes to the first maximum of each plane
		VJP: func(c *VJPCtx) []*T {
			x := asPlanes(c.In[0])
			dy := Reshape(c.G(0), x.Dim(0), x.Dim(1), 1, 1)
			dx := call1(maxPool2dGradDef, Attrs{"kernel_shape": []int{1, x.Dim(3)}}, x, dy)
			return []*T{Reshape(dx, c.In[0].Shape()...)}
		},
		Sample: func(r *rand.Rand) ([]*T, Attrs) { return []*T{distinctSample(r, 2, 3, 4, 5)}, nil },
	})
	adaptiveAvgPool2dDef = define(&Def{
		Name: "adaptive_avg_pool2d", Export: exportAdaptiveAvgPool, Arity: 1,
		Infer: func(in []Meta, a Attrs) ([]Meta, error) {
			x := in[0]
			o := a.Ints("output_size", nil)
			if len(x.Shape) != 4 || !x.DType.IsFloat() || len(o) != 2 || o[0] < 1 || o[1] < 1 {
				return nil, fmt.Errorf("want float x (N, C, H, W) and output_size [oh, ow] >= 1, got %v %v and %v", x.DType, x.Shape, o)
			}
			return []Meta{{x.DType, tensor.Shape{x.Shape[0], x.Shape[1], o[0], o[1]}}}, nil
		},
		Ref: func(out, in []*T, _ Attrs) { adaptiveRef(in[0], out[0], out[0], false) },
		VJP: func(c *VJPCtx) []*T { return []*T{call1(adaptiveAvgPool2dGradDef, nil, c.In[0], c.G(0))} },
		Sample: func(r *rand.Rand) ([]*T, Attrs) {
			return []*T{tensor.Rand(r, tensor.Float64, -1, 1, 2, 2, 7, 5)}, Attrs{"output_size": []int{3, 2}}
		},
	})
	adaptiveAvgPool2dGradDef = define(&Def{
		Name: "adaptive_avg_pool2d_grad", Arity: 2, Infer: poolGradInfer,
		Ref: func(out, in []*T, _ Attrs) { adaptiveRef(out[0], in[1], out[0], true) },
	})
}

var maxPool2dDef, maxPool2dGradDef, avgPool2dDef, avgPool2dGradDef *Def
var globalAvgPoolDef, globalMaxPoolDef, adaptiveAvgPool2dDef, adaptiveAvgPool2dGradDef *Def

// distinctSample returns a float64 tensor of a shuffled, spread-out sequence, so
// that no two elements are within finite-difference reach of each other.
func distinctSample(r *rand.Rand, shape ...int) *T {
	t := tensor.New(tensor.Float64, shape...)
	v := t.F64()
	for i, p := range r.Perm(len(v)) {
		v[i] = float64(p)*0.1 - float64(len(v))*0.05
	}
	return t
}

func globalInfer(in []Meta, _ Attrs) ([]Meta, error) {
	x := in[0]
	if len(x.Shape) < 3 || !x.DType.IsFloat() {
		return nil, fmt.Errorf("want float x (N, C, spatial...), got %v %v", x.DType, x.Shape)
	}
	s := x.Shape.Clone()
	for i := 2; i < len(s); i++ {
		s[i] = 1
	}
	return []Meta{{x.DType, s}}, nil
}

func spatialAxes(rank int) []int {
	var ax []int
	for i := 2; i < rank; i++ {
		ax = append(ax, i)
	}
	return ax
}

// asPlanes views x: (N, C, spatial...) as (N, C, 1, S).
func asPlanes(x *T) *T {
	return x.Reshape(x.Dim(0), x.Dim(1), 1, x.Len()/max(x.Dim(0)*x.Dim(1), 1))
}

// maxPool writes each window's maximum of x into y; with dx != nil it is the
// backward instead: y holds dy and each dy goes to its window's first maximum.
func maxPool[E float32 | float64](x, y, dx []E, planes int, g geom2) {
	if g.KH == 2 && g.KW == 2 && g.SH == 2 && g.SW == 2 && g.DH == 1 && g.DW == 1 &&
		g.PT == 0 && g.PL == 0 && 2*g.OH <= g.H && 2*g.OW <= g.W {
		maxPool2x2(x, y, dx, planes, g)
		return
	}
	maxPoolAny(x, y, dx, planes, g)
}

// maxPoolAny is maxPool for any window, stride, dilation and padding.
func maxPoolAny[E float32 | float64](x, y, dx []E, planes int, g geom2) {
	hw, ohw := g.H*g.W, g.OH*g.OW
	parallel.For(planes, 1, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			xp, yp := x[p*hw:(p+1)*hw], y[p*ohw:(p+1)*ohw]
			if dx != nil {
				clear(dx[p*hw : (p+1)*hw])
			}
			for oh := range g.OH {
				h0 := oh*g.SH - g.PT
				for ow := range g.OW {
					w0 := ow*g.SW - g.PL
					m, at := E(math.Inf(-1)), -1
					for kh := range g.KH {
						ih := h0 + kh*g.DH
						if ih < 0 || ih >= g.H {
							continue
						}
						row := xp[ih*g.W : (ih+1)*g.W]
						for kw := range g.KW {
							iw := w0 + kw*g.DW
							if iw < 0 || iw >= g.W {
								continue
							}
							// NaN wins and stays, as in PyTorch
							if v := row[iw]; v > m || v != v || at < 0 {
								m, at = v, ih*g.W+iw
							}
						}
					}
					if dx == nil {
						yp[oh*g.OW+ow] = m
					} else if at >= 0 {
						dx[p*hw+at] += yp[oh*g.OW+ow]
					}
				}
			}
		}
	})
}

// maxPool2x2 is maxPool for 2×2 windows at stride 2 that all lie inside
// the input (no padding or dilation), the common CNN down-sampling, without
// the general loop's bounds tests. It scans each window in the same order
// and keeps the same winner: the first maximum, or the last NaN.
func maxPool2x2[E float32 | float64](x, y, dx []E, planes int, g geom2) {
	hw, ohw, w := g.H*g.W, g.OH*g.OW, g.W
	back, _ := any(Active().MaxPool2x2GradRows32).(func(d0, d1, r0, r1, dy []E))
	parallel.For(planes, 1, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			xp, yp := x[p*hw:(p+1)*hw], y[p*ohw:(p+1)*ohw]
			if dx != nil && back != nil {
				// the kernel writes every element of the windows' rows and
				// columns; what no window covers is cleared
				dp := dx[p*hw : (p+1)*hw]
				for oh := range g.OH {
					d0, d1 := dp[2*oh*w:(2*oh+1)*w], dp[(2*oh+1)*w:(2*oh+2)*w]
					back(d0, d1, xp[2*oh*w:(2*oh+1)*w], xp[(2*oh+1)*w:(2*oh+2)*w], yp[oh*g.OW:(oh+1)*g.OW])
					clear(d0[2*g.OW:])
					clear(d1[2*g.OW:])
				}
				clear(dp[2*g.OH*w:])
				continue
			}
			var dp []E
			if dx != nil {
				dp = dx[p*hw : (p+1)*hw]
				clear(dp)
			}
			for oh := range g.OH {
				r0 := xp[2*oh*w : (2*oh+1)*w]
				r1 := xp[(2*oh+1)*w : (2*oh+2)*w]
				yr := yp[oh*g.OW : (oh+1)*g.OW]
				if f, ok := any(Active().MaxPool2x2Rows32).(func(dst, r0, r1 []E)); ok && f != nil && dp == nil {
					f(yr, r0, r1)
					continue
				}
				for ow := range yr {
					c := 2 * ow
					m, at := r0[c], 2*oh*w+c
					if v := r0[c+1]; v > m || v != v {
						m, at = v, 2*oh*w+c+1
					}
					if v := r1[c]; v > m || v != v {
						m, at = v, (2*oh+1)*w+c
					}
					if v := r1[c+1]; v > m || v != v {
						m, at = v, (2*oh+1)*w+c+1
					}
					if dp == nil {
						yr[ow] = m
					} else {
						dp[at] += yr[ow]
					}
				}
			}
		}
	})
}

// avgPool writes each window's mean of x into y, or with back it adds
// y/divisor into every pixel of the window of x (x is then dx).
// PyTorch's divisor: the window clipped to the padded input when
// countPad, else to the input itself.
func avgPool[E float32 | float64](x, y []E, planes int, g geom2, countPad, back bool) {
	hw, ohw := g.H*g.W, g.OH*g.OW
	wins := avgWindows[E](g, countPad) // the same for every plane
	parallel.For(planes, 1, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			xp, yp := x[p*hw:(p+1)*hw], y[p*ohw:(p+1)*ohw]
			if back {
				clear(xp)
			}
			for i, w := range wins {
				if w.skip {
					continue
				}
				if back {
					v := yp[i] / w.div
					for r := range w.rows {
						row := xp[w.off+r*g.W : w.off+r*g.W+w.cols]
						for j := range row {
							row[j] += v
						}
					}
					continue
				}
				var s E
				for r := range w.rows {
					for _, v := range xp[w.off+r*g.W : w.off+r*g.W+w.cols] {
						s += v
					}
				}
				yp[i] = s / w.div
			}
		}
	})
}

// avgWindow is one output's window of an average pooling: rows×cols input
// elements from off, rows g.W apart, and the divisor (skip: none, the
// output is left as it is).
type avgWindow[E float32 | float64] struct {
	off, rows, cols int
	div             E
	skip            bool
}

// avgWindows returns the windows of g's outputs in order, worked out once
// per call rather than per plane and output.
func avgWindows[E float32 | float64](g geom2, countPad bool) []avgWindow[E] {
	wins := make([]avgWindow[E], 0, g.OH*g.OW)
	for oh := range g.OH {
		h0 := oh*g.SH - g.PT
		h1 := min(h0+g.KH, g.H+g.PB)
		ph := h1 - h0
		h0, h1 = max(h0, 0), min(h1, g.H)
		for ow := range g.OW {
			w0 := ow*g.SW - g.PL
			w1 := min(w0+g.KW, g.W+g.PR)
			pw := w1 - w0
			w0, w1 = max(w0, 0), min(w1, g.W)
			div := E((h1 - h0) * (w1 - w0))
			if countPad {
				div = E(ph * pw)
			}
			wins = append(wins, avgWindow[E]{off: h0*g.W + w0, rows: h1 - h0, cols: w1 - w0, div: div,
				skip: div <= 0 || h0 >= h1 || w0 >= w1})
		}
	}
	return wins
}

// adaptiveRef runs adaptive average pooling from x into y, or with back its
// adjoint from y (dy) into x (dx, zeroed).
func adaptiveRef(x, y, out *T, back bool) {
	n, c, h, w := x.Dims4()
	oh, ow := y.Dim(2), y.Dim(3)
	if out.DType() == tensor.Float32 {
		adaptivePool(x.F32(), y.F32(), n*c, h, w, oh, ow, back)
	} else {
		adaptivePool(x.F64(), y.F64(), n*c, h, w, oh, ow, back)
	}
}

func adaptivePool[E float32 | float64](x, y []E, planes, h, w, oh, ow int, back bool) {
	parallel.For(planes, 1, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			xp, yp := x[p*h*w:(p+1)*h*w], y[p*oh*ow:(p+1)*oh*ow]
			if back {
				clear(xp)
			}
			for i := range oh {
				h0, h1 := i*h/oh, ((i+1)*h+oh-1)/oh
				for j := range ow {
					w0, w1 := j*w/ow, ((j+1)*w+ow-1)/ow
					div := E((h1 - h0) * (w1 - w0))
					if back {
						v := yp[i*ow+j] / div
						for ih := h0; ih < h1; ih++ {
							row := xp[ih*w+w0 : ih*w+w1]
							for k := range row {
								row[k] += v
							}
						}
						continue
					}
					var s E
					for ih := h0; ih < h1; ih++ {
						for _, v := range xp[ih*w+w0 : ih*w+w1] {
							s += v
						}
					}
					yp[i*ow+j] = s / div
				}
			}
		}
	})
}

// globalAvgPool32 sets y[p] to the mean of plane p of x (planes equal
// planes), as mean does it: the plane's float64 sum rounded to float32, then
// divided by the plane's size in float32. Eight float64 partial sums per
// plane break the chain of dependent adds (the sum differs from a
// sequential one only in float64 rounding); planes are split over the
// threads when there is enough work.
func globalAvgPool32(y, x []float32, planes int) {
	hw := len(x) / planes
	n := float32(hw)
	parallel.For(planes, max(1, (1<<15)/hw), func(lo, hi int) {
		if f := Active().SumF32To64; f != nil {
			for p := lo; p < hi; p++ {
				y[p] = float32(f(x[p*hw:(p+1)*hw])) / n
			}
			return
		}
		for p := lo; p < hi; p++ {
			xp := x[p*hw : (p+1)*hw]
			var s0, s1, s2, s3, s4, s5, s6, s7 float64
			i := 0
			for ; i+8 <= len(xp); i += 8 {
				v := xp[i : i+8 : i+8]
				s0 += float64(v[0])
				s1 += float64(v[1])
				s2 += float64(v[2])
				s3 += float64(v[3])
				s4 += float64(v[4])
				s5 += float64(v[5])
				s6 += float64(v[6])
				s7 += float64(v[7])
			}
			for ; i < len(xp); i++ {
				s0 += float64(xp[i])
			}
			y[p] = float32((s0+s1)+(s2+s3)+((s4+s5)+(s6+s7))) / n
		}
	})
}
