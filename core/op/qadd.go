package op

import (
	"paddle/core/parallel"
	"paddle/core/scratch"
	"paddle/core/tensor"
)

// add_quantize is quantize_linear(add(a, b)) as one op (core/graph/pass
// fuses it where only the quantize reads the sum): a and b float32 of one
// shape with one scale and zero point run in chunks whose sum stays in a
// cache-resident scratch row between the add and the quantize, bitwise the
// two ops (the same rows); other shapes run add, then quantize_linear.
// Attributes: quantize_linear's. PP-OCRv4 det's neck adds its top-down
// maps (96×240×240 floats at 960) only to quantize the sum for a conv.
// With attribute resized (0 or 1) and resize's attributes, that input is
// first resized (nearest): quantize_linear(add_resize(a, b)), the sum rows
// quantized as add_resize makes them (core/op/addresize.go); attribute
// scaled and a third input likewise.
var addQuantizeDef = define(&Def{
	Name: "add_quantize", Arity: -1, Overwrites: true, Export: exportAddQuantize,
	Infer: func(in []Meta, a Attrs) ([]Meta, error) {
		in, err := resizedMetas(in, a)
		if err != nil {
			return nil, err
		}
		sum, err := broadcastInfer(in, nil)
		if err != nil {
			return nil, err
		}
		return quantizeLinearDef.InferMeta(sum, a)
	},
	Ref: addQuantizeRef,
})

// addQuantizeChunk is how many elements add_quantize sums before it
// quantizes them: 32 KiB of float32.
const addQuantizeChunk = 1 << 13

func addQuantizeRef(out, in []*T, a Attrs) {
	scale, zero, axis := qdqParams(out[0].Shape(), a)
	lo, hi := float32(0), float32(255)
	signed := out[0].DType() == tensor.Int8
	u := rawBytesOf(out[0])
	if signed {
		lo, hi = -128, 127
	}
	if resizedInput(a) >= 0 {
		if axis >= 0 || !addResized(nil, in, a, func(off int, v []float32) {
			quantizeRow(u[off:off+len(v)], v, scale[0], float32(zero[0]), lo, hi, signed)
		}) {
			ri := resizedInputs(in, a)
			Run(quantizeLinearDef, out, []*T{Add(ri[0], ri[1])}, a)
		}
		return
	}
	in = scaledInputs(in, a)
	x, y := in[0], in[1]
	if x.DType() != tensor.Float32 || y.DType() != tensor.Float32 || !x.Shape().Equal(y.Shape()) || axis >= 0 {
		Run(quantizeLinearDef, out, []*T{Add(x, y)}, a)
		return
	}
	xa, ya := x.F32(), y.F32()
	parallel.For(len(xa), 1<<14, func(i0, i1 int) {
		buf := scratch.Get[float32](addQuantizeChunk, false)
		defer scratch.Put(buf)
		for j0 := i0; j0 < i1; j0 += addQuantizeChunk {
			j1 := min(j0+addQuantizeChunk, i1)
			v := (*buf)[:j1-j0]
			binRow(binAdd, v, xa[j0:j1], ya[j0:j1], 1, 1)
			quantizeRow(u[j0:j1], v, scale[0], float32(zero[0]), lo, hi, signed)
		}
	})
}

// exportAddQuantize writes add_quantize as ONNX Add and QuantizeLinear.
func exportAddQuantize(w ONNXWriter, in, out []string) error {
	in, err := exportResized(w, in, out[0])
	if err != nil {
		return err
	}
	t := w.Fresh(out[0] + "/sum")
	w.Node("Add", in, []string{t})
	sum := Meta{DType: tensor.Float32, Shape: w.Out(0).Shape}
	return quantizeLinearDef.Export(w.Sub(quantizeLinearDef, w.Attrs(), sum), []string{t}, out)
}
