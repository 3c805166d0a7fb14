package op

import (
	"paddle/core/tensor"
)

// GemmAct is an activation that SGEMMEx fuses into its epilogue.
type GemmAct int

// The fusable activations (each bitwise its op's float32 kernel).
const (
	GemmActNone GemmAct = iota
	// GemmActHardSwish is x·min(max(x+3, 0), 6)/6, as Hardswish.
	GemmActHardSwish
	// GemmActRelu is max(x, 0), as Relu (a NaN stays NaN, -0 becomes +0).
	GemmActRelu
)

// GemmEpilogue is elementwise work that SGEMMEx applies to every element
// of C after the product: c[i][j] += RowBias[i] (when RowBias is not nil),
// then Act, then, when Affine, c = c·Scale + Shift rounded after the
// product (as an unfused mul and add).
type GemmEpilogue struct {
	RowBias      []float32 // len m, or nil
	Act          GemmAct
	Affine       bool
	Scale, Shift float32
}

// Apply runs e on the m×n matrix c (leading dimension ldc) in a scalar loop:
// the reference for SGEMMEx's fused epilogues.
func (e *GemmEpilogue) Apply(c []float32, ldc, m, n int) {
	for i := range m {
		row := c[i*ldc : i*ldc+n]
		if e.RowBias != nil {
			bv := e.RowBias[i]
			for j := range row {
				row[j] += bv
			}
		}
		switch e.Act {
		case GemmActHardSwish:
			hardswish32(row, row)
		case GemmActRelu:
			reluF(row, row, uparams{})
		}
		if e.Affine {
			for j, v := range row {
				row[j] = float32(v*e.Scale) + e.Shift
			}
		}
	}
}

// Conv2DEx runs conv2d (in: x, w and optionally b; conv2d's attrs) on
// float32 with act and, when affine, y·scale + shift fused into its GEMMs'
// epilogues, bitwise equal to conv2d followed by those steps. It reports
// false, writing nothing, where it does not apply: other dtypes and
// depthwise convolutions (which have their own kernels). It runs the
// reference im2col/GEMM path, or Winograd where conv2d's rule picks it
// (winograd.go), not a backend's conv2d kernel (the cpu backend's handles
// depthwise convolutions only).
func Conv2DEx(out, in []*T, a Attrs, act GemmAct, affine bool, scale, shift float32) bool {
	x, w, y := in[0], in[1], out[0]
	if x.DType() != tensor.Float32 || y.DType() != tensor.Float32 || w.DType() != tensor.Float32 {
		return false
	}
	g, err := convGeom(x.Shape(), w.Shape(), a)
	if err != nil {
		return false
	}
	cs := convShape{n: x.Dim(0), c: x.Dim(1), oc: w.Dim(0), groups: a.Int("groups", 1), g: g}
	if cs.c/cs.groups == 1 {
		return false
	}
	ep := &GemmEpilogue{Act: act, Affine: affine, Scale: scale, Shift: shift}
	convForwardEx(cs, x.F32(), w.F32(), convBias[float32](in), y.F32(), ep)
	return true
}
