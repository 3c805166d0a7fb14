package op

import (
	"fmt"

	"paddle/core/tensor"
)

// qgemm is the quantized matrix product with its epilogue fused: x (...,
// M, K) uint8/int8 times w (K, N) int8/uint8 (per-channel along N), plus an
// optional bias (N), dequantized, activated and, for a uint8/int8 out,
// requantized (quant.go). ONNX QLinearMatMul, MatMulInteger and folded QDQ
// MatMul/Gemm import as it.
var qgemmDef = define(&Def{
	Name: "qgemm", Arity: -1, Overwrites: true,
	Infer: func(in []Meta, a Attrs) ([]Meta, error) {
		if len(in) < 2 || len(in) > 3 {
			return nil, fmt.Errorf("want 2 or 3 inputs (x, w, bias), got %d", len(in))
		}
		x, w := in[0], in[1]
		if len(x.Shape) < 2 || len(w.Shape) != 2 || x.Shape[len(x.Shape)-1] != w.Shape[0] {
			return nil, fmt.Errorf("shapes %v and %v: want (..., M, K) and (K, N)", x.Shape, w.Shape)
		}
		n := w.Shape[1]
		if _, err := checkQuantInputs(in, n); err != nil {
			return nil, err
		}
		q, err := parseQuant(a, n)
		if err != nil {
			return nil, err
		}
		return []Meta{{q.out, append(x.Shape.Clone()[:len(x.Shape)-1], n)}}, nil
	},
	Ref: qgemmRef,
})

// QGemm runs qgemm: x (..., M, K) by w (K, N) with bias (N, may be nil)
// under the quantization attributes a (QuantAttrs, plus "act").
func QGemm(x, w, bias *T, a Attrs) *T {
	in := []*T{x, w}
	if bias != nil {
		in = append(in, bias)
	}
	return call1(qgemmDef, a, in...)
}

func qgemmRef(out, in []*T, a Attrs) {
	n := in[1].Shape()[1]
	q, err := parseQuant(a, n)
	if err != nil {
		panic(&ShapeError{Op: "qgemm", Err: err})
	}
	xs := in[0].Shape()
	acc := tensor.New(tensor.Int32, append(xs.Clone()[:len(xs)-1], n)...)
	Run(matmulIntegerDef, []*T{acc}, []*T{in[0], in[1], zeroTensor([]int{q.xZero}), zeroTensor(q.wZero)}, nil)
	var bias *T
	if len(in) > 2 {
		bias = in[2]
	}
	rows := acc.Len() / max(n, 1)
	newQuantEpilogue(q, n, bias, false).run(acc.I32(), rows, n, 0, out[0], 0, n)
}
