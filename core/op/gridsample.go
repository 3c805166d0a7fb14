package op

import (
	"fmt"
	"math"
	"math/rand/v2"

	"paddle/core/parallel"
	"paddle/core/tensor"
)

// grid_sample: ONNX GridSample (opset 16) in its bilinear, zero-padding
// form, as PaddlePaddle's F.grid_sample computes it. x (N, C, H, W) is
// sampled at grid (N, OH, OW, 2), whose last axis holds (x, y) in [−1, 1]
// (−1 the left/top edge): with align_corners 1 the pixel coordinate is
// (g+1)/2·(W−1) (±1 the corner pixels' centres), with 0 it is
// ((g+1)·W−1)/2 (±1 the outer edges). Each output blends the four
// neighbours of that coordinate; neighbours outside the image count as
// zeros. y is (N, C, OH, OW). The gradient reaches x (the adjoint scatter)
// and the grid (the blend's slope in each coordinate times the coordinate's
// scale; it is undefined on integer coordinates, where the one-sided slope
// of the cell to the right/below is taken).

// GridSampleParams are grid_sample's attributes.
type GridSampleParams struct {
	AlignCorners bool
}

// Attrs returns p as op attributes (ONNX's: align_corners 0/1, mode
// bilinear, padding_mode zeros).
func (p GridSampleParams) Attrs() Attrs {
	ac := 0
	if p.AlignCorners {
		ac = 1
	}
	return Attrs{"align_corners": ac, "mode": "bilinear", "padding_mode": "zeros"}
}

// GridSample samples x (N, C, H, W) at grid (N, OH, OW, 2) bilinearly (see GridSampleParams).
func GridSample(x, grid *T, p GridSampleParams) *T { return call1(gridSampleDef, p.Attrs(), x, grid) }

var gridSampleDef, gridSampleGradDef *Def

func gridSampleCheck(in []Meta, a Attrs) error {
	if m := a.Str("mode", "bilinear"); m != "bilinear" && m != "linear" {
		return fmt.Errorf("mode %q is not supported (want bilinear)", m)
	}
	if m := a.Str("padding_mode", "zeros"); m != "zeros" {
		return fmt.Errorf("padding_mode %q is not supported (want zeros)", m)
	}
	x, g := in[0], in[1]
	if !x.DType.IsFloat() {
		return fmt.Errorf("want a float x, got %v", x.DType)
	}
	if g.DType != x.DType {
		return fmt.Errorf("grid is %v, x is %v", g.DType, x.DType)
	}
	if len(x.Shape) != 4 {
		return fmt.Errorf("want x (N, C, H, W), got %v", x.Shape)
	}
	if len(g.Shape) != 4 || g.Shape[3] != 2 || g.Shape[0] != x.Shape[0] {
		return fmt.Errorf("want grid (N=%d, OH, OW, 2), got %v", x.Shape[0], g.Shape)
	}
	return nil
}

func init() {
	gridSampleDef = define(&Def{
		Name: "grid_sample", ONNX: "GridSample", Arity: 2, Export: exportGridSample, Overwrites: true,
		Infer: func(in []Meta, a Attrs) ([]Meta, error) {
			if err := gridSampleCheck(in, a); err != nil {
				return nil, err
			}
			x, g := in[0].Shape, in[1].Shape
			return []Meta{{in[0].DType, tensor.Shape{x[0], x[1], g[1], g[2]}}}, nil
		},
		Ref: func(out, in []*T, a Attrs) { gridSampleRun(in[0], in[1], out[0], nil, nil, a) },
		VJP: func(c *VJPCtx) []*T {
			g := Call(gridSampleGradDef, c.Attrs, c.In[0], c.In[1], c.G(0))
			return []*T{g[0], g[1]}
		},
		Sample: func(r *rand.Rand) ([]*T, Attrs) {
			// coordinates a little past ±1 reach the zero padding
			return []*T{tensor.Rand(r, tensor.Float64, -1, 1, 2, 2, 3, 4), tensor.Rand(r, tensor.Float64, -1.2, 1.2, 2, 3, 5, 2)},
				GridSampleParams{}.Attrs()
		},
	})
	gridSampleGradDef = define(&Def{
		Name: "grid_sample_grad", Arity: 3,
		Infer: func(in []Meta, a Attrs) ([]Meta, error) {
			if err := gridSampleCheck(in[:2], a); err != nil {
				return nil, err
			}
			if in[2].DType != in[0].DType {
				return nil, fmt.Errorf("dy is %v, x is %v", in[2].DType, in[0].DType)
			}
			return []Meta{in[0], in[1]}, nil
		},
		Ref: func(out, in []*T, a Attrs) { gridSampleRun(in[0], in[1], in[2], out[0], out[1], a) },
	})
}

// exportGridSample writes ONNX GridSample (opset 16+; the exporter's is 17).
func exportGridSample(w ONNXWriter, in, out []string) error {
	w.Node("GridSample", in, out, ONNXInt("align_corners", w.Attrs().Int("align_corners", 0)),
		ONNXString("mode", "bilinear"), ONNXString("padding_mode", "zeros"))
	return nil
}

// gridSampleRun samples x at grid into y; with dx and dgrid (zeroed) not
// nil, y is dy and the gradients are accumulated instead.
func gridSampleRun(x, grid, y, dx, dgrid *T, a Attrs) {
	ac := a.Int("align_corners", 0) != 0
	if x.DType() == tensor.Float32 {
		var gx, gg []float32
		if dx != nil {
			gx, gg = dx.F32(), dgrid.F32()
		}
		gridSampleKernel(x.F32(), grid.F32(), y.F32(), gx, gg, x.Shape(), grid.Shape(), ac)
		return
	}
	var gx, gg []float64
	if dx != nil {
		gx, gg = dx.F64(), dgrid.F64()
	}
	gridSampleKernel(x.F64(), grid.F64(), y.F64(), gx, gg, x.Shape(), grid.Shape(), ac)
}

func gridSampleKernel[E float32 | float64](x, grid, y, dx, dgrid []E, xs, gs tensor.Shape, ac bool) {
	n, c, h, w := xs[0], xs[1], xs[2], xs[3]
	oh, ow := gs[1], gs[2]
	l, hw := oh*ow, h*w
	// the pixel coordinate of g is g·s + o on each axis
	sx, ox := float64(w)/2, float64(w-1)/2
	sy, oy := float64(h)/2, float64(h-1)/2
	if ac {
		sx, sy = float64(w-1)/2, float64(h-1)/2
	}
	back := dx != nil
	parallel.For(n, 1, func(lo, hi int) {
		for b := lo; b < hi; b++ {
			xb, gb := x[b*c*hw:(b+1)*c*hw], grid[b*l*2:(b+1)*l*2]
			yb := y[b*c*l : (b+1)*c*l]
			for p := range l {
				fx, fy := float64(gb[2*p])*sx+ox, float64(gb[2*p+1])*sy+oy
				x0f, y0f := math.Floor(fx), math.Floor(fy)
				x0, y0 := int(x0f), int(y0f)
				wx1, wy1 := fx-x0f, fy-y0f
				wx0, wy0 := 1-wx1, 1-wy1
				// corner offsets and whether each is inside
				in00 := x0 >= 0 && x0 < w && y0 >= 0 && y0 < h
				in01 := x0+1 >= 0 && x0+1 < w && y0 >= 0 && y0 < h
				in10 := x0 >= 0 && x0 < w && y0+1 >= 0 && y0+1 < h
				in11 := x0+1 >= 0 && x0+1 < w && y0+1 >= 0 && y0+1 < h
				o00 := y0*w + x0
				var dgx, dgy float64
				for ch := range c {
					xc := xb[ch*hw : (ch+1)*hw]
					var v00, v01, v10, v11 float64
					if in00 {
						v00 = float64(xc[o00])
					}
					if in01 {
						v01 = float64(xc[o00+1])
					}
					if in10 {
						v10 = float64(xc[o00+w])
					}
					if in11 {
						v11 = float64(xc[o00+w+1])
					}
					if !back {
						yb[ch*l+p] = E(wy0*(wx0*v00+wx1*v01) + wy1*(wx0*v10+wx1*v11))
						continue
					}
					g := float64(yb[ch*l+p])
					if g == 0 {
						continue
					}
					dc := dx[b*c*hw+ch*hw : b*c*hw+(ch+1)*hw]
					if in00 {
						dc[o00] += E(g * wy0 * wx0)
					}
					if in01 {
						dc[o00+1] += E(g * wy0 * wx1)
					}
					if in10 {
						dc[o00+w] += E(g * wy1 * wx0)
					}
					if in11 {
						dc[o00+w+1] += E(g * wy1 * wx1)
					}
					dgx += g * (wy0*(v01-v00) + wy1*(v11-v10))
					dgy += g * (wx0*(v10-v00) + wx1*(v11-v01))
				}
				if back {
					dgrid[b*l*2+2*p] = E(dgx * sx)
					dgrid[b*l*2+2*p+1] = E(dgy * sy)
				}
			}
		}
	})
}
