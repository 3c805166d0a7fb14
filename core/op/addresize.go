package op

import (
	"fmt"
	"math"

	"paddle/core/parallel"
	"paddle/core/scratch"
	"paddle/core/tensor"
)

// add_resize is add(a, resize(b)) for a nearest resize as one op
// (core/graph/pass fuses it where only the add reads the resized map; an
// FPN's top-down path, PP-OCRv4 det's neck). Inputs are the add's, the
// resized one (attribute resized: 0 or 1) before its resize; the other
// attributes are resize's. Float32 maps of one shape after the resize run
// per output row: b's source row is widened by the column table into a
// cache-resident scratch row and added to a's row, the add's additions in
// its operand order (bitwise the two ops, without writing and reading the
// resized map); other shapes and dtypes run resize, then add.
// add_quantize takes the same two attributes (quantize_linear(a +
// resize(b)), core/op/qadd.go). With attribute scaled (the index of the
// other, unresized addend) and a third input s (N, C, 1, 1), that addend
// is first x + x·s (scale_residual, an SE block's output), made row by
// row as scale_residual makes it (bitwise, without writing and reading
// the scaled map).
var addResizeDef = define(&Def{
	Name: "add_resize", Arity: -1, Overwrites: true, Export: exportAddResize,
	Infer: func(in []Meta, a Attrs) ([]Meta, error) {
		in, err := resizedMetas(in, a)
		if err != nil {
			return nil, err
		}
		return broadcastInfer(in, nil)
	},
	Ref: func(out, in []*T, a Attrs) {
		if out[0].DType() != tensor.Float32 || !addResized(out[0].F32(), in, a, nil) {
			Run(addDef, out, resizedInputs(in, a), nil)
		}
	},
})

// resizedInput is the index of add_resize's (add_quantize's) resized
// input, -1 when none.
func resizedInput(a Attrs) int { return a.Int("resized", -1) }

// resizeAttrs are a's resize attributes (a resize reading them ignores
// the others).
func resizeAttrs(a Attrs) Attrs {
	r := Attrs{}
	for _, k := range []string{"mode", "coordinate_transformation_mode", "nearest_mode", "sizes", "scales"} {
		if v, ok := a[k]; ok {
			r[k] = v
		}
	}
	return r
}

// scaledInput is the index of add_resize's (add_quantize's) addend that
// is scaled by the third input (x + x·s), -1 when none.
func scaledInput(a Attrs) int { return a.Int("scaled", -1) }

// resizedMetas returns the two addends' metas: in with the scaled input's
// meta replaced by scale_residual's output and the resized input's by its
// resize's output.
func resizedMetas(in []Meta, a Attrs) ([]Meta, error) {
	k := scaledInput(a)
	switch {
	case k < 0 && len(in) != 2:
		return nil, fmt.Errorf("%d inputs: want 2 (3 with attribute scaled)", len(in))
	case k >= 0 && (len(in) != 3 || k > 1):
		return nil, fmt.Errorf("scaled = %d with %d inputs: want 0 or 1 and 3 inputs", k, len(in))
	case k >= 0:
		m, err := scaleResidualDef.InferMeta([]Meta{in[k], in[2]}, nil)
		if err != nil {
			return nil, err
		}
		if !m[0].Shape.Equal(in[k].Shape) {
			return nil, fmt.Errorf("scale %v does not scale addend %v", in[2].Shape, in[k].Shape)
		}
		in = []Meta{in[0], in[1]}
	}
	r := resizedInput(a)
	if r < 0 {
		return in, nil
	}
	if r >= len(in) {
		return nil, fmt.Errorf("resized = %d: want 0 or 1", r)
	}
	m, err := resizeDef.InferMeta(in[r:r+1], resizeAttrs(a))
	if err != nil {
		return nil, err
	}
	out := append([]Meta(nil), in...)
	out[r] = m[0]
	return out, nil
}

// scaledInputs returns the two addends with the scaled one scaled
// (scale_residual).
func scaledInputs(in []*T, a Attrs) []*T {
	k := scaledInput(a)
	if k < 0 {
		return in
	}
	out := []*T{in[0], in[1]}
	out[k] = call1(scaleResidualDef, nil, in[k], in[2])
	return out
}

// resizedInputs returns the two addends, the scaled one scaled and the
// resized one resized.
func resizedInputs(in []*T, a Attrs) []*T {
	in = scaledInputs(in, a)
	r := resizedInput(a)
	if r < 0 {
		return in
	}
	out := append([]*T(nil), in...)
	out[r] = call1(resizeDef, resizeAttrs(a), in[r])
	return out
}

// addResized computes a + resize(b) row by row for in = the add's inputs
// (one resized, see add_resize) when both are float32, the resize nearest
// and its output of a's shape, and reports whether it did. Each sum row
// goes to y (nil: a scratch row) at its flat offset, then to emit (nil:
// none) while it is in cache.
func addResized(y []float32, in []*T, a Attrs, emit func(off int, v []float32)) bool {
	r, k := resizedInput(a), scaledInput(a)
	if r < 0 || r > 1 || len(in) != 2 && !(k == 1-r && len(in) == 3) {
		return false
	}
	x, b := in[1-r], in[r]
	if x.DType() != tensor.Float32 || b.DType() != tensor.Float32 || b.Rank() != 4 || !x.IsContiguous() || !b.IsContiguous() {
		return false
	}
	p, err := makeResizePlan(b.Shape(), resizeAttrs(a))
	n, c, h, w := b.Dims4()
	if err != nil || p.linear || !x.Shape().Equal(tensor.Shape{n, c, p.oh, p.ow}) || y != nil && len(y) != x.Len() {
		return false
	}
	var sa []float32 // x's scales, one per plane
	if k >= 0 {
		s := in[2]
		if s.DType() != tensor.Float32 || !s.IsContiguous() || !s.Shape().Equal(tensor.Shape{n, c, 1, 1}) {
			return false
		}
		sa = s.F32()
	}
	rows, cols := p.axis(h, p.oh, p.sh), p.axis(w, p.ow, p.sw)
	xa, ba, oh, ow := x.F32(), b.F32(), p.oh, p.ow
	rep := repeatFactor(cols.i0, w)
	parallel.For(n*c*oh, max(1, (1<<14)/ow), func(lo, hi int) {
		buf := scratch.Get[float32](3*ow, false)
		defer scratch.Put(buf)
		up, sum, scaled := (*buf)[:ow], (*buf)[ow:2*ow], (*buf)[2*ow:3*ow]
		last := -1
		for i := lo; i < hi; i++ {
			src := i/oh*h*w + rows.i0[i%oh]*w
			if src != last {
				br := ba[src : src+w]
				if rep == 2 {
					doubleRow(up, br)
				} else {
					for j, k := range cols.i0 {
						up[j] = br[k]
					}
				}
				last = src
			}
			v, xr := sum, xa[i*ow:(i+1)*ow]
			if sa != nil { // x + x·s as scale_residual rounds it
				p := i / oh
				scaledRow(scaled, xr, sa[p:p+1])
				xr = scaled
			}
			if y != nil {
				v = y[i*ow : (i+1)*ow]
			}
			if r == 0 {
				binRow(binAdd, v, up, xr, 1, 1)
			} else {
				binRow(binAdd, v, xr, up, 1, 1)
			}
			if emit != nil {
				emit(i*ow, v)
			}
		}
	})
	return true
}

// doubleRow sets up[2j] and up[2j+1] to br[j] (a nearest resize's row by
// 2), on the backend's interleave where it has one: v + −0 is v for
// every v (−0 too) and max(v, −Inf) is v, so the copies are exact.
func doubleRow(up, br []float32) {
	j0 := 0
	if f := Active().Interleave2Row32; f != nil {
		j0 = f(up, br, br, float32(math.Copysign(0, -1)), float32(math.Inf(-1)))
	}
	for j := j0; j < len(br); j++ {
		up[2*j], up[2*j+1] = br[j], br[j]
	}
}

// exportAddResize writes add_resize as ONNX Resize and Add.
func exportAddResize(w ONNXWriter, in, out []string) error {
	ins, err := exportResized(w, in, out[0])
	if err != nil {
		return err
	}
	w.Node("Add", ins, out)
	return nil
}

// exportResized writes the Resize of add_resize's (add_quantize's)
// resized input and returns the inputs with it in its place.
func exportResized(w ONNXWriter, in []string, hint string) ([]string, error) {
	if k := scaledInput(w.Attrs()); k >= 0 { // x + x·s: Mul and Add, as scale_residual exports
		t, sum := w.Fresh(hint+"/scaled"), w.Fresh(hint+"/scaled_sum")
		w.Node("Mul", []string{in[k], in[2]}, []string{t})
		w.Node("Add", []string{in[k], t}, []string{sum})
		in = []string{in[0], in[1]}
		in[k] = sum
	}
	r := resizedInput(w.Attrs())
	if r < 0 {
		return in, nil
	}
	t := w.Fresh(hint + "/resized")
	if err := resizeDef.Export(w.Sub(resizeDef, resizeAttrs(w.Attrs()), w.In(r)), in[r:r+1], []string{t}); err != nil {
		return nil, err
	}
	ins := append([]string(nil), in...)
	ins[r] = t
	return ins, nil
}
