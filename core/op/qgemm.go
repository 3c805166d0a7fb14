package op

import (
	"fmt"

	"paddle/core/parallel"
	"paddle/core/scratch"
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
	var bias *T
	if len(in) > 2 {
		bias = in[2]
	}
	ep := newQuantEpilogue(q, n, bias, false)
	if qgemmDirect(out[0], in[0], in[1], q, ep) {
		return
	}
	xs := in[0].Shape()
	acc := tensor.New(tensor.Int32, append(xs.Clone()[:len(xs)-1], n)...)
	Run(matmulIntegerDef, []*T{acc}, []*T{in[0], in[1], zeroTensor([]int{q.xZero}), zeroTensor(q.wZero)}, nil)
	rows := acc.Len() / max(n, 1)
	ep.run(acc.I32(), rows, n, 0, out[0], 0, n)
}

// qgemmDirect runs qgemm on the backend's strided int8 GEMM
// (Kernels.QGEMM8) without zero-point corrections when the weights' zero
// points are all 0 and x and w differ in signedness (what `model quantize`
// writes): Σ_p (x − x_zero)·w = Σ_p x·w − x_zero·Σ_p w, so x's zero point
// goes into the int32 bias once per call and the GEMM's accumulators need
// no correction (matmul_integer recomputed w's column sums and corrected
// every accumulator in a Go loop: ~7 % of int8 rec b6). x's rows, every
// batch at once (w is shared), run in tiles of at most qaccCols
// accumulators from the scratch pool, each followed by the epilogue while
// it is in cache. It reports false, doing nothing, in other cases.
func qgemmDirect(out, x, w *T, q quantParams, ep *quantEpilogue) bool {
	gemm := Active().QGEMM8
	k, n := w.Shape()[0], w.Shape()[1]
	if gemm == nil || k == 0 || n == 0 || (x.DType() == tensor.Int8) == (w.DType() == tensor.Int8) {
		return false
	}
	for _, z := range q.wZero {
		if z != 0 {
			return false
		}
	}
	if q.xZero != 0 {
		ep.ibias = foldXZeroCols(ep.ibias, w, q.xZero)
	}
	rows := x.Len() / k
	xb, wb := rawBytesOf(x), rawBytesOf(w)
	aSigned := x.DType() == tensor.Int8
	rt, ct := qgemmTiles(rows, n)
	nrt, nct := (rows+rt-1)/rt, (n+ct-1)/ct
	// With column tiles, each row tile of x is packed once for all of them.
	var pas []any
	if pack := Active().QPackA8; pack != nil && nct > 1 {
		pas = make([]any, nrt)
		for i := range nrt {
			pas[i] = pack(min(rt, rows-i*rt), k, xb[i*rt*k:], k, aSigned)
		}
	}
	parallel.For(nrt*nct, 1, func(lo, hi int) {
		accBuf := scratch.Get[int32](rt*ct, false)
		defer scratch.Put(accBuf)
		for t := lo; t < hi; t++ {
			r0, j0 := t/nct*rt, t%nct*ct
			m, nc := min(rt, rows-r0), min(ct, n-j0)
			acc := (*accBuf)[:m*nc]
			var pa any
			if pas != nil {
				pa = pas[t/nct]
			}
			gemm(m, nc, k, xb[r0*k:], k, aSigned, pa, wb[j0:], n, acc, nc)
			ep.run(acc, m, nc, j0, out, r0*n+j0, n)
		}
	})
	return true
}

// qgemmTiles returns qgemmDirect's tile of rows×n accumulators: all of
// them when they fit qaccCols; else every column and as many rows as fit
// when that is at least qgemmMinRows; else (a wide w: a CTC head's 6,625
// classes) up to qgemmRowTile rows and the columns that fit (at least
// 32). Each tile's GEMM packs its columns of w: with row tiles of a few
// rows (4 for the CTC head) the whole of w was packed again every few
// rows.
func qgemmTiles(rows, n int) (rt, ct int) {
	switch {
	case rows*n <= qaccCols:
		return rows, n
	case n*qgemmMinRows <= qaccCols:
		return qaccCols / n, n
	}
	rt = min(rows, qgemmRowTile)
	return rt, min(n, max(32, qaccCols/rt/32*32))
}

// qgemmMinRows and qgemmRowTile bound qgemmTiles' row tiles.
const qgemmMinRows, qgemmRowTile = 48, 256

// foldXZeroCols returns bias[j] − xZero·Σ_p w[p, j] for the columns j of w
// (K, N) (bias nil: 0), wrapping in int32 as the accumulators do: qgemm's
// twin of foldXZero, whose weights are (OC, K).
func foldXZeroCols(bias []int32, w *T, xZero int) []int32 {
	sums := qwSums(w, w.Shape()[0], w.Shape()[1], false)
	out := make([]int32, len(sums))
	xz := int32(xZero)
	for j, s := range sums {
		out[j] = -xz * s
		if bias != nil {
			out[j] += bias[j]
		}
	}
	return out
}
