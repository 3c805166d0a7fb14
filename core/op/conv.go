package op

import (
	"fmt"
	"math/rand/v2"

	"paddle/core/tensor"
)

// 2-D convolution and transposed convolution, NCHW.
//
//	conv2d:           x (N, C, H, W) * w (OC, C/groups, KH, KW) [+ b (OC)] → y (N, OC, OH, OW)
//	conv_transpose2d: x (N, C, H, W) * w (C, OC/groups, KH, KW) [+ b (OC)] → y (N, OC, OH, OW)
//
// Kernels (conv_kernels.go): im2col + GEMM per image and group, parallel over
// images×groups, and direct loops when each group has one input channel
// (depthwise). conv_transpose2d is conv2d's adjoint (GEMM + col2im), so each
// gives the other its input gradient; conv2d_filter_grad gives both the
// weight gradient.

// ConvParams are the attributes of conv2d and conv_transpose2d. Zero values
// mean the defaults: unit strides and dilations, no padding, one group.
type ConvParams struct {
	Strides   []int  // [sh, sw]
	Pads      []int  // [top, left, bottom, right] (ONNX order)
	Dilations []int  // [dh, dw]
	Groups    int    // channel groups; in_channels for depthwise
	AutoPad   string // "", "SAME_UPPER", "SAME_LOWER", "VALID" (conv2d only)
	// OutputPadding ([ph, pw], conv_transpose2d only) adds rows/columns at the
	// bottom/right of the output, to pick among the sizes a strided conv maps to one.
	OutputPadding []int
}

// Attrs returns p as op attributes.
func (p ConvParams) Attrs() Attrs {
	a := Attrs{"groups": max(p.Groups, 1)}
	for k, v := range map[string][]int{"strides": p.Strides, "pads": p.Pads, "dilations": p.Dilations, "output_padding": p.OutputPadding} {
		if v != nil {
			a[k] = append([]int(nil), v...)
		}
	}
	if p.AutoPad != "" {
		a["auto_pad"] = p.AutoPad
	}
	return a
}

// Conv2D returns the cross-correlation of x: (N, C, H, W) with w: (OC, C/groups,
// KH, KW) plus b: (OC) (b may be nil) → (N, OC, OH, OW), as ONNX Conv.
func Conv2D(x, w, b *T, p ConvParams) *T { return call1(conv2dDef, p.Attrs(), convIn(x, w, b)...) }

// ConvTranspose2D returns the transposed convolution (conv2d's adjoint in x)
// of x: (N, C, H, W) with w: (C, OC/groups, KH, KW) plus b: (OC) (may be nil),
// as ONNX ConvTranspose: OH = (H-1)*sh - pt - pb + dh*(KH-1) + 1 + ph.
func ConvTranspose2D(x, w, b *T, p ConvParams) *T {
	return call1(convTranspose2dDef, p.Attrs(), convIn(x, w, b)...)
}

// Conv2DFilterGrad returns conv2d's weight gradient dw: (OC, C/groups, KH, KW)
// for input x: (N, C, H, W) and output gradient dy: (N, OC, OH, OW); a carries
// conv2d's attributes plus kernel_shape [KH, KW].
func Conv2DFilterGrad(x, dy *T, a Attrs) *T { return call1(conv2dFilterGradDef, a, x, dy) }

func convIn(x, w, b *T) []*T {
	if b == nil {
		return []*T{x, w}
	}
	return []*T{x, w, b}
}

// checkConvInputs validates x, w, optional b (dtypes, ranks, groups) and
// returns groups. wIn is the axis of w that holds x's channels per group
// (1 for conv2d, 0 for conv_transpose2d, where it holds all of them).
func checkConvInputs(in []Meta, a Attrs, transpose bool) (int, error) {
	if len(in) != 2 && len(in) != 3 {
		return 0, fmt.Errorf("want inputs x, w and optional b, got %d", len(in))
	}
	x, w := in[0], in[1]
	if !x.DType.IsFloat() || w.DType != x.DType {
		return 0, fmt.Errorf("want float x and w of one dtype, got %v and %v", x.DType, w.DType)
	}
	if len(x.Shape) != 4 || len(w.Shape) != 4 {
		return 0, fmt.Errorf("want x (N, C, H, W) and a rank-4 w, got %v and %v", x.Shape, w.Shape)
	}
	g := a.Int("groups", 1)
	c := x.Shape[1]
	if g < 1 || c%g != 0 {
		return 0, fmt.Errorf("groups %d does not divide x's %d channels", g, c)
	}
	if transpose {
		if w.Shape[0] != c {
			return 0, fmt.Errorf("x %v has %d channels, w %v wants %d (w is (C, OC/groups, KH, KW))", x.Shape, c, w.Shape, w.Shape[0])
		}
	} else {
		if w.Shape[1]*g != c {
			return 0, fmt.Errorf("x %v has %d channels, w %v wants %d×%d groups", x.Shape, c, w.Shape, w.Shape[1], g)
		}
		if w.Shape[0]%g != 0 {
			return 0, fmt.Errorf("groups %d does not divide w's %d output channels", g, w.Shape[0])
		}
	}
	if len(in) == 3 {
		oc := w.Shape[0]
		if transpose {
			oc = w.Shape[1] * g
		}
		if in[2].DType != x.DType || !in[2].Shape.Equal(tensor.Shape{oc}) {
			return 0, fmt.Errorf("bias is %v %v, want %v (%d)", in[2].DType, in[2].Shape, x.DType, oc)
		}
	}
	return g, nil
}

// convGeom is conv2d's window geometry for input shape xs and weight shape ws.
func convGeom(xs, ws tensor.Shape, a Attrs) (geom2, error) {
	return makeGeom(xs[2], xs[3], ws[2], ws[3], a, false)
}

// convTGeom is conv_transpose2d's geometry, expressed as the conv2d that maps
// its output (g.H×g.W) back to its input (g.OH×g.OW).
func convTGeom(xs, ws tensor.Shape, a Attrs) (geom2, error) {
	switch ap := a.Str("auto_pad", ""); ap {
	case "", "NOTSET", "VALID":
	default:
		return geom2{}, fmt.Errorf("auto_pad %q is not supported by conv_transpose2d: give pads", ap)
	}
	if a["output_shape"] != nil {
		return geom2{}, fmt.Errorf("output_shape is not supported by conv_transpose2d: give pads and output_padding")
	}
	g, err := windowAttrs(0, 0, ws[2], ws[3], a)
	if err != nil {
		return g, err
	}
	op, err := winPair(a, "output_padding", 0)
	if err != nil {
		return g, err
	}
	if op[0] < 0 || op[1] < 0 || op[0] >= max(g.SH, g.DH) || op[1] >= max(g.SW, g.DW) {
		return g, fmt.Errorf("output_padding %v must be in [0, max(stride, dilation))", op)
	}
	g.OH, g.OW = xs[2], xs[3]
	g.H = (g.OH-1)*g.SH - g.PT - g.PB + (g.KH-1)*g.DH + 1 + op[0]
	g.W = (g.OW-1)*g.SW - g.PL - g.PR + (g.KW-1)*g.DW + 1 + op[1]
	if g.H < 1 || g.W < 1 {
		return g, fmt.Errorf("output size %dx%d is empty (input %v, kernel %dx%d, pads %v)", g.H, g.W, xs, g.KH, g.KW, g.explicitPads())
	}
	return g, nil
}

// vjpAttrs are a's attributes with the pads resolved, for the backward ops.
func vjpAttrs(a Attrs, g geom2) Attrs {
	return Attrs{
		"strides": []int{g.SH, g.SW}, "dilations": []int{g.DH, g.DW}, "pads": g.explicitPads(),
		"groups": a.Int("groups", 1), "kernel_shape": []int{g.KH, g.KW},
	}
}

func init() {
	conv2dDef = define(&Def{
		Name: "conv2d", Export: exportConv, Overwrites: true, ONNX: "Conv", Arity: -1,
		Infer: func(in []Meta, a Attrs) ([]Meta, error) {
			if _, err := checkConvInputs(in, a, false); err != nil {
				return nil, err
			}
			g, err := convGeom(in[0].Shape, in[1].Shape, a)
			if err != nil {
				return nil, err
			}
			return []Meta{{in[0].DType, tensor.Shape{in[0].Shape[0], in[1].Shape[0], g.OH, g.OW}}}, nil
		},
		Ref: conv2dRef,
		// dx = convT(dy, w) with the output padding that restores x's size;
		// dw = Σ_n dy·im2col(x)ᵀ; db = Σ dy over N, OH, OW.
		VJP: func(c *VJPCtx) []*T {
			x, w, dy := c.In[0], c.In[1], c.G(0)
			g, _ := convGeom(x.Shape(), w.Shape(), c.Attrs)
			at := vjpAttrs(c.Attrs, g)
			oph := g.H - ((g.OH-1)*g.SH - g.PT - g.PB + (g.KH-1)*g.DH + 1)
			opw := g.W - ((g.OW-1)*g.SW - g.PL - g.PR + (g.KW-1)*g.DW + 1)
			dx := call1(convTranspose2dDef, at.With("output_padding", []int{oph, opw}), dy, w)
			grads := []*T{dx, Conv2DFilterGrad(x, dy, at)}
			if len(c.In) == 3 {
				grads = append(grads, Sum(dy, []int{0, 2, 3}, false))
			}
			return grads
		},
		Sample: func(r *rand.Rand) ([]*T, Attrs) {
			return []*T{tensor.Rand(r, tensor.Float64, -1, 1, 2, 4, 6, 5),
					tensor.Rand(r, tensor.Float64, -1, 1, 6, 2, 3, 2),
					tensor.Rand(r, tensor.Float64, -1, 1, 6)},
				Attrs{"strides": []int{2, 1}, "pads": []int{1, 0, 1, 1}, "dilations": []int{1, 2}, "groups": 2}
		},
	})
	convTranspose2dDef = define(&Def{
		Name: "conv_transpose2d", Export: exportConv, Overwrites: true, ONNX: "ConvTranspose", Arity: -1,
		Infer: func(in []Meta, a Attrs) ([]Meta, error) {
			groups, err := checkConvInputs(in, a, true)
			if err != nil {
				return nil, err
			}
			g, err := convTGeom(in[0].Shape, in[1].Shape, a)
			if err != nil {
				return nil, err
			}
			return []Meta{{in[0].DType, tensor.Shape{in[0].Shape[0], in[1].Shape[1] * groups, g.H, g.W}}}, nil
		},
		Ref: convTranspose2dRef,
		// convT is conv's adjoint: dx = conv(dy, w); dw is conv2d's filter
		// gradient with the roles of input and output swapped.
		VJP: func(c *VJPCtx) []*T {
			x, w, dy := c.In[0], c.In[1], c.G(0)
			g, _ := convTGeom(x.Shape(), w.Shape(), c.Attrs)
			at := vjpAttrs(c.Attrs, g)
			dx := call1(conv2dDef, at, dy, w)
			if dx.Dim(2) != g.OH || dx.Dim(3) != g.OW { // output_padding >= stride (dilated)
				dx = dx.Slice(2, 0, g.OH, 1).Slice(3, 0, g.OW, 1).Contiguous()
			}
			grads := []*T{dx, Conv2DFilterGrad(dy, x, at)}
			if len(c.In) == 3 {
				grads = append(grads, Sum(dy, []int{0, 2, 3}, false))
			}
			return grads
		},
		Sample: func(r *rand.Rand) ([]*T, Attrs) {
			return []*T{tensor.Rand(r, tensor.Float64, -1, 1, 2, 4, 3, 4),
					tensor.Rand(r, tensor.Float64, -1, 1, 4, 3, 3, 2),
					tensor.Rand(r, tensor.Float64, -1, 1, 6)},
				Attrs{"strides": []int{2, 1}, "pads": []int{1, 0, 0, 1}, "dilations": []int{1, 2}, "groups": 2, "output_padding": []int{1, 0}}
		},
	})
	conv2dFilterGradDef = define(&Def{
		Name: "conv2d_filter_grad", Arity: 2,
		Infer: func(in []Meta, a Attrs) ([]Meta, error) {
			x, dy := in[0], in[1]
			if !x.DType.IsFloat() || dy.DType != x.DType || len(x.Shape) != 4 || len(dy.Shape) != 4 || x.Shape[0] != dy.Shape[0] {
				return nil, fmt.Errorf("want x (N, C, H, W) and dy (N, OC, OH, OW) of one float dtype, got %v %v and %v %v",
					x.DType, x.Shape, dy.DType, dy.Shape)
			}
			groups := a.Int("groups", 1)
			if groups < 1 || x.Shape[1]%groups != 0 || dy.Shape[1]%groups != 0 {
				return nil, fmt.Errorf("groups %d does not divide channels of x %v and dy %v", groups, x.Shape, dy.Shape)
			}
			k, err := winPair(a, "kernel_shape", 0)
			if err != nil {
				return nil, err
			}
			g, err := makeGeom(x.Shape[2], x.Shape[3], k[0], k[1], a, false)
			if err != nil {
				return nil, err
			}
			if g.OH < dy.Shape[2] || g.OW < dy.Shape[3] {
				return nil, fmt.Errorf("dy %v is larger than the conv output %dx%d of x %v", dy.Shape, g.OH, g.OW, x.Shape)
			}
			return []Meta{{x.DType, tensor.Shape{dy.Shape[1], x.Shape[1] / groups, k[0], k[1]}}}, nil
		},
		Ref: conv2dFilterGradRef,
	})
}

var conv2dDef, convTranspose2dDef, conv2dFilterGradDef *Def

func conv2dRef(out, in []*T, a Attrs) {
	x, w, y := in[0], in[1], out[0]
	g, _ := convGeom(x.Shape(), w.Shape(), a)
	cs := convShape{n: x.Dim(0), c: x.Dim(1), oc: w.Dim(0), groups: a.Int("groups", 1), g: g}
	switch y.DType() {
	case tensor.Float32:
		convForward(cs, x.F32(), w.F32(), convBias[float32](in), y.F32())
	case tensor.Float64:
		convForward(cs, x.F64(), w.F64(), convBias[float64](in), y.F64())
	}
}

func convTranspose2dRef(out, in []*T, a Attrs) {
	cs := convTShape(out, in, a)
	switch out[0].DType() {
	case tensor.Float32:
		convBackwardData(cs, in[0].F32(), in[1].F32(), convBias[float32](in), out[0].F32())
	case tensor.Float64:
		convBackwardData(cs, in[0].F64(), in[1].F64(), convBias[float64](in), out[0].F64())
	}
}

// convTShape is the conv whose adjoint conv_transpose2d(in) → out is: it
// maps out (OC channels) to x (C channels).
func convTShape(out, in []*T, a Attrs) convShape {
	x, w, y := in[0], in[1], out[0]
	g, _ := convTGeom(x.Shape(), w.Shape(), a)
	return convShape{n: x.Dim(0), c: y.Dim(1), oc: x.Dim(1), groups: a.Int("groups", 1), g: g}
}

// convTransposeRelu runs conv_transpose2d followed by relu in one pass over
// the output where the windows do not overlap (convTransposeBlocks), and
// reports false, doing nothing, elsewhere.
func convTransposeRelu(out, in []*T, a Attrs) bool {
	cs := convTShape(out, in, a)
	switch out[0].DType() {
	case tensor.Float32:
		return convTransposeBlocks(cs, in[0].F32(), in[1].F32(), convBias[float32](in), out[0].F32(), true)
	case tensor.Float64:
		return convTransposeBlocks(cs, in[0].F64(), in[1].F64(), convBias[float64](in), out[0].F64(), true)
	}
	return false
}

func conv2dFilterGradRef(out, in []*T, a Attrs) {
	x, dy, dw := in[0], in[1], out[0]
	g, _ := makeGeom(x.Dim(2), x.Dim(3), dw.Dim(2), dw.Dim(3), a, false)
	g.OH, g.OW = dy.Dim(2), dy.Dim(3)
	cs := convShape{n: x.Dim(0), c: x.Dim(1), oc: dy.Dim(1), groups: a.Int("groups", 1), g: g}
	switch dw.DType() {
	case tensor.Float32:
		convFilterGrad(cs, x.F32(), dy.F32(), dw.F32())
	case tensor.Float64:
		convFilterGrad(cs, x.F64(), dy.F64(), dw.F64())
	}
}

func convBias[E float32 | float64](in []*T) []E {
	if len(in) < 3 {
		return nil
	}
	return tensor.Data[E](in[2])
}
