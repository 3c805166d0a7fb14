package op

import (
	"fmt"
	"math"
	"math/rand/v2"

	"paddle/core/parallel"
	"paddle/core/tensor"
)

// resize: ONNX Resize on the two spatial axes of x (N, C, H, W), modes
// nearest and linear (bilinear). The output size is attribute sizes [oh, ow],
// or floor(H·sh), floor(W·sw) from scales [sh, sw]; each output pixel maps
// back to an input coordinate by coordinate_transformation_mode:
//
//	half_pixel            (o + 0.5)/scale - 0.5
//	pytorch_half_pixel    the same, but 0 when the output has one pixel
//	align_corners         o·(in-1)/(L-1), 0 when L <= 1; L = out, or in·scale (unrounded) with scales
//	asymmetric            o/scale
//	tf_half_pixel_for_nn  (o + 0.5)/scale
//
// where scale is the given one, or out/in when sizes are given. nearest
// rounds that coordinate by nearest_mode (round_prefer_floor,
// round_prefer_ceil, floor, ceil); linear clamps it to [0, in-1] and blends
// its two neighbours. The index tables are built once per axis, so the inner
// loops are gathers (nearest also copies repeated rows whole).

// ResizeParams are resize's attributes; empty strings mean the ONNX defaults
// (nearest, half_pixel, round_prefer_floor).
type ResizeParams struct {
	Mode        string    // "nearest" or "linear"
	CoordMode   string    // coordinate_transformation_mode
	NearestMode string    // nearest_mode
	Sizes       []int     // [oh, ow]; or
	Scales      []float64 // [sh, sw]
}

// Attrs returns p as op attributes.
func (p ResizeParams) Attrs() Attrs {
	a := Attrs{}
	for k, v := range map[string]string{"mode": p.Mode, "coordinate_transformation_mode": p.CoordMode, "nearest_mode": p.NearestMode} {
		if v != "" {
			a[k] = v
		}
	}
	if p.Sizes != nil {
		a["sizes"] = append([]int(nil), p.Sizes...)
	}
	if p.Scales != nil {
		a["scales"] = append([]float64(nil), p.Scales...)
	}
	return a
}

// Resize resizes x: (N, C, H, W) → (N, C, OH, OW) as ONNX Resize (see ResizeParams).
func Resize(x *T, p ResizeParams) *T { return call1(resizeDef, p.Attrs(), x) }

// resizePlan is a resize's output size and the scales its coordinate map uses.
type resizePlan struct {
	oh, ow         int
	sh, sw         float64
	linear         bool
	coord, nearest string
	fromScales     bool // the size came from scales: align_corners divides by in·scale - 1, as ONNX does
}

func makeResizePlan(xs tensor.Shape, a Attrs) (resizePlan, error) {
	var p resizePlan
	if len(xs) != 4 {
		return p, fmt.Errorf("want x (N, C, H, W), got %v", xs)
	}
	h, w := xs[2], xs[3]
	switch m := a.Str("mode", "nearest"); m {
	case "nearest":
	case "linear", "bilinear":
		p.linear = true
	default:
		return p, fmt.Errorf("mode %q is not supported (want nearest or linear)", m)
	}
	p.coord = a.Str("coordinate_transformation_mode", "half_pixel")
	switch p.coord {
	case "half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn":
	default:
		return p, fmt.Errorf("coordinate_transformation_mode %q is not supported", p.coord)
	}
	p.nearest = a.Str("nearest_mode", "round_prefer_floor")
	switch p.nearest {
	case "round_prefer_floor", "round_prefer_ceil", "floor", "ceil":
	default:
		return p, fmt.Errorf("nearest_mode %q is not supported", p.nearest)
	}
	sizes, scales := a.Ints("sizes", nil), a.Floats("scales", nil)
	switch {
	case len(sizes) == 4 && sizes[0] == xs[0] && sizes[1] == xs[1]:
		sizes = sizes[2:]
	case len(scales) == 4 && scales[0] == 1 && scales[1] == 1:
		scales = scales[2:]
	}
	switch {
	case len(sizes) == 2:
		p.oh, p.ow = sizes[0], sizes[1]
		p.sh, p.sw = float64(p.oh)/float64(h), float64(p.ow)/float64(w)
	case len(scales) == 2:
		p.sh, p.sw = scales[0], scales[1]
		p.fromScales = true
		p.oh, p.ow = int(math.Floor(float64(h)*p.sh)), int(math.Floor(float64(w)*p.sw))
	default:
		return p, fmt.Errorf("want sizes [oh, ow] or scales [sh, sw] (N and C unchanged), got sizes %v, scales %v", sizes, scales)
	}
	if p.oh < 1 || p.ow < 1 || h < 1 || w < 1 {
		return p, fmt.Errorf("resize of %v to %dx%d is empty", xs, p.oh, p.ow)
	}
	return p, nil
}

// srcCoord maps output index o back to an input coordinate.
func (p resizePlan) srcCoord(o, in, out int, scale float64) float64 {
	x := float64(o)
	switch p.coord {
	case "pytorch_half_pixel":
		if out == 1 {
			return 0
		}
		return (x+0.5)/scale - 0.5
	case "align_corners":
		// ONNX's length_resized is in·scale, unrounded, when scales give the size
		length := float64(out)
		if p.fromScales {
			length = float64(in) * scale
		}
		if length <= 1 {
			return 0
		}
		return x * float64(in-1) / (length - 1)
	case "asymmetric":
		return x / scale
	case "tf_half_pixel_for_nn":
		return (x + 0.5) / scale
	}
	return (x+0.5)/scale - 0.5
}

// axisTable is one axis's sampling: source indices i0 (and i1 with weight w1 for linear).
type axisTable struct {
	i0, i1 []int
	w1     []float64
}

func (p resizePlan) axis(in, out int, scale float64) axisTable {
	t := axisTable{i0: make([]int, out)}
	if p.linear {
		t.i1, t.w1 = make([]int, out), make([]float64, out)
	}
	for o := range out {
		c := p.srcCoord(o, in, out, scale)
		if !p.linear {
			var i float64
			switch p.nearest {
			case "round_prefer_floor":
				i = math.Ceil(c - 0.5)
			case "round_prefer_ceil":
				i = math.Floor(c + 0.5)
			case "floor":
				i = math.Floor(c)
			case "ceil":
				i = math.Ceil(c)
			}
			t.i0[o] = min(max(int(i), 0), in-1)
			continue
		}
		c = min(max(c, 0), float64(in-1))
		i := int(math.Floor(c))
		t.i0[o], t.i1[o], t.w1[o] = i, min(i+1, in-1), c-float64(i)
	}
	return t
}

func init() {
	resizeDef = define(&Def{
		Name: "resize", Export: exportResize, Overwrites: true, ONNX: "Resize", Arity: 1,
		Infer: func(in []Meta, a Attrs) ([]Meta, error) {
			p, err := makeResizePlan(in[0].Shape, a)
			if err != nil {
				return nil, err
			}
			if d := in[0].DType; !d.IsFloat() && (p.linear || (d != tensor.Uint8 && d != tensor.Int8)) {
				return nil, fmt.Errorf("want a float x (or uint8/int8 with mode nearest), got %v", d)
			}
			return []Meta{{in[0].DType, tensor.Shape{in[0].Shape[0], in[0].Shape[1], p.oh, p.ow}}}, nil
		},
		Ref: func(out, in []*T, a Attrs) { resizeRef(in[0], out[0], a, false) },
		// the adjoint scatters dy back through the same index tables
		VJP: func(c *VJPCtx) []*T { return []*T{call1(resizeGradDef, c.Attrs, c.In[0], c.G(0))} },
		Sample: func(r *rand.Rand) ([]*T, Attrs) {
			return []*T{tensor.Rand(r, tensor.Float64, -1, 1, 2, 2, 3, 4)},
				Attrs{"mode": "linear", "coordinate_transformation_mode": "half_pixel", "sizes": []int{5, 7}}
		},
	})
	resizeGradDef = define(&Def{
		Name: "resize_grad", Arity: 2, Infer: poolGradInfer,
		Ref: func(out, in []*T, a Attrs) { resizeRef(out[0], in[1], a, true) },
	})
}

var resizeDef, resizeGradDef *Def

// resizeRef resizes x into y, or with back scatters y (dy) into x (dx, zeroed).
func resizeRef(x, y *T, a Attrs, back bool) {
	p, _ := makeResizePlan(x.Shape(), a)
	n, c, h, w := x.Dims4()
	rows, cols := p.axis(h, p.oh, p.sh), p.axis(w, p.ow, p.sw)
	switch x.DType() {
	case tensor.Float32:
		resizePlanes(x.F32(), y.F32(), n*c, h, w, rows, cols, p.linear, back)
	case tensor.Float64:
		resizePlanes(x.F64(), y.F64(), n*c, h, w, rows, cols, p.linear, back)
	case tensor.Uint8:
		nearestPlanes(x.U8(), y.U8(), n*c, h, w, rows, cols)
	case tensor.Int8:
		nearestPlanes(x.I8(), y.I8(), n*c, h, w, rows, cols)
	}
}

// nearestPlanes is resizePlanes' nearest forward for quantized (byte)
// tensors: each output element a copy of one input element, so resizing
// commutes exactly with quantize_linear (pass qpush moves quantize_linear
// before a nearest resize, which then moves bytes instead of floats).
func nearestPlanes[E uint8 | int8](x, y []E, planes, h, w int, rows, cols axisTable) {
	oh, ow := len(rows.i0), len(cols.i0)
	parallel.For(planes, 1, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			xp, yp := x[p*h*w:(p+1)*h*w], y[p*oh*ow:(p+1)*oh*ow]
			for o := range oh {
				yr := yp[o*ow : (o+1)*ow]
				if o > 0 && rows.i0[o] == rows.i0[o-1] {
					copy(yr, yp[(o-1)*ow:o*ow])
					continue
				}
				r0 := xp[rows.i0[o]*w : (rows.i0[o]+1)*w]
				for j, i := range cols.i0 {
					yr[j] = r0[i]
				}
			}
		}
	})
}

func resizePlanes[E float32 | float64](x, y []E, planes, h, w int, rows, cols axisTable, linear, back bool) {
	oh, ow := len(rows.i0), len(cols.i0)
	rep := repeatFactor(cols.i0, w)
	parallel.For(planes, 1, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			xp, yp := x[p*h*w:(p+1)*h*w], y[p*oh*ow:(p+1)*oh*ow]
			if back {
				clear(xp)
			}
			for o := range oh {
				yr := yp[o*ow : (o+1)*ow]
				r0 := xp[rows.i0[o]*w : (rows.i0[o]+1)*w]
				switch {
				case !linear && !back:
					if o > 0 && rows.i0[o] == rows.i0[o-1] {
						copy(yr, yp[(o-1)*ow:o*ow])
						continue
					}
					if rep == 2 { // integer upscaling by 2 (FPN): each pixel written twice
						yr = yr[:2*len(r0)]
						for i, v := range r0 {
							yr[2*i], yr[2*i+1] = v, v
						}
						continue
					}
					for j, i := range cols.i0 {
						yr[j] = r0[i]
					}
				case !linear:
					for j, i := range cols.i0 {
						r0[i] += yr[j]
					}
				default:
					r1 := xp[rows.i1[o]*w : (rows.i1[o]+1)*w]
					wh := E(rows.w1[o])
					for j := range yr {
						i0, i1, ww := cols.i0[j], cols.i1[j], E(cols.w1[j])
						if back {
							g := yr[j]
							r0[i0] += (1 - wh) * (1 - ww) * g
							r0[i1] += (1 - wh) * ww * g
							r1[i0] += wh * (1 - ww) * g
							r1[i1] += wh * ww * g
							continue
						}
						top := r0[i0] + ww*(r0[i1]-r0[i0])
						bot := r1[i0] + ww*(r1[i1]-r1[i0])
						yr[j] = top + wh*(bot-top)
					}
				}
			}
		}
	})
}

// repeatFactor returns k when idx is 0,0,..,1,1,.. (each of the w source
// columns exactly k times in order), else 0.
func repeatFactor(idx []int, w int) int {
	if w == 0 || len(idx)%w != 0 {
		return 0
	}
	k := len(idx) / w
	for j, i := range idx {
		if i != j/k {
			return 0
		}
	}
	return k
}
