package op

import (
	"fmt"

	"paddle/core/tensor"
)

// matmul_integer is ONNX MatMulInteger for a 2-D right operand: a (..., M, K)
// and b (K, N), each uint8 or int8, with optional zero points (a's: one, or
// one per row M; b's: one, or one per column N; int8/uint8/int32 tensors)
// → int32 (..., M, N) = Σ_k (a - a_zero)(b - b_zero), exact (wrapping in
// int32). Backends give it their int8 GEMM (op.Kernels.Ops).
var matmulIntegerDef = define(&Def{
	Name: "matmul_integer", ONNX: "MatMulInteger", Arity: -1, Export: exportAsIs("MatMulInteger"),
	Infer: func(in []Meta, _ Attrs) ([]Meta, error) {
		if len(in) < 2 || len(in) > 4 {
			return nil, fmt.Errorf("want 2 to 4 inputs (a, b, a_zero_point, b_zero_point), got %d", len(in))
		}
		a, b := in[0], in[1]
		for i, m := range in[:2] {
			if m.DType != tensor.Uint8 && m.DType != tensor.Int8 {
				return nil, fmt.Errorf("input %d is %v: want uint8 or int8", i, m.DType)
			}
		}
		if len(a.Shape) < 2 || len(b.Shape) != 2 || a.Shape[len(a.Shape)-1] != b.Shape[0] {
			return nil, fmt.Errorf("shapes %v and %v: want (..., M, K) and (K, N)", a.Shape, b.Shape)
		}
		m, n := a.Shape[len(a.Shape)-2], b.Shape[1]
		for i, want := range []int{m, n} {
			if 2+i < len(in) {
				z := in[2+i]
				if z.DType != tensor.Uint8 && z.DType != tensor.Int8 && z.DType != tensor.Int32 {
					return nil, fmt.Errorf("zero point %d is %v: want uint8, int8 or int32", i, z.DType)
				}
				if l := z.Shape.NumElements(); l != 1 && l != want {
					return nil, fmt.Errorf("zero point %d has %d values: want 1 or %d", i, l, want)
				}
			}
		}
		s := append(a.Shape.Clone()[:len(a.Shape)-1], n)
		return []Meta{{tensor.Int32, s}}, nil
	},
	Ref:        matmulIntegerRef,
	Overwrites: true,
})

// MatMulInteger is matmul_integer: the exact int32 product of a (..., M, K)
// and b (K, N) less their zero points (az, bz may be nil).
func MatMulInteger(a, b, az, bz *T) *T {
	in := []*T{a, b}
	if az != nil || bz != nil {
		if az == nil {
			az = tensor.FromSlice([]int32{0}, 1)
		}
		in = append(in, az)
	}
	if bz != nil {
		in = append(in, bz)
	}
	return call1(matmulIntegerDef, nil, in...)
}

// IntZeros reads matmul_integer's zero point input i (0 for a, 1 for b)
// as ints: nil when absent.
func IntZeros(in []*T, i int) []int {
	if 2+i >= len(in) {
		return nil
	}
	z := in[2+i]
	out := make([]int, z.Len())
	for j := range out {
		out[j] = int(z.Contiguous().At(unravel(z.Shape(), j)...))
	}
	return out
}

func unravel(s tensor.Shape, flat int) []int {
	idx := make([]int, len(s))
	for d := len(s) - 1; d >= 0; d-- {
		idx[d] = flat % s[d]
		flat /= s[d]
	}
	return idx
}

// IntElems returns a uint8 or int8 tensor's elements as int32.
func IntElems(t *T) []int32 {
	out := make([]int32, t.Len())
	switch t.DType() {
	case tensor.Uint8:
		for i, v := range t.U8() {
			out[i] = int32(v)
		}
	case tensor.Int8:
		for i, v := range t.I8() {
			out[i] = int32(v)
		}
	default:
		panic("op: IntElems of " + t.DType().String())
	}
	return out
}

func matmulIntegerRef(out, in []*T, _ Attrs) {
	a, b := IntElems(in[0]), IntElems(in[1])
	as, bs := in[0].Shape(), in[1].Shape()
	m, k, n := as[len(as)-2], as[len(as)-1], bs[1]
	az, bz := IntZeros(in, 0), IntZeros(in, 1)
	zero := func(z []int, i int) int32 {
		if z == nil {
			return 0
		}
		return int32(z[min(i, len(z)-1)])
	}
	o := out[0].I32()
	for bi := range len(o) / max(m*n, 1) {
		for i := range m {
			za := zero(az, i)
			for j := range n {
				zb := zero(bz, j)
				var s int32
				for p := range k {
					s += (a[bi*m*k+i*k+p] - za) * (b[p*n+j] - zb)
				}
				o[bi*m*n+i*n+j] = s
			}
		}
	}
}

// exportAsIs writes a node as the ONNX operator opType with the same inputs.
func exportAsIs(opType string) ExportRule {
	return func(w ONNXWriter, in, out []string) error {
		w.Node(opType, in, out)
		return nil
	}
}
