package op

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"

	"paddle/core/parallel"
	"paddle/core/tensor"
)

func gonumSGEMM(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	tA, tB := blas.NoTrans, blas.NoTrans
	if transA {
		tA = blas.Trans
	}
	if transB {
		tB = blas.Trans
	}
	gonum.Implementation{}.Sgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// matmul: a (..., M, K) · b (..., K, N) → (..., M, N); batch dims broadcast.
// Attrs trans_a / trans_b use the transpose of the last two axes.

func matmulDims(a, b tensor.Shape, ta, tb bool) (m, k, n int, batch tensor.Shape, err error) {
	if len(a) < 2 || len(b) < 2 {
		return 0, 0, 0, nil, fmt.Errorf("want rank >= 2 inputs, got %v and %v", a, b)
	}
	m, k = a[len(a)-2], a[len(a)-1]
	if ta {
		m, k = k, m
	}
	kb, n := b[len(b)-2], b[len(b)-1]
	if tb {
		kb, n = n, kb
	}
	if k != kb {
		return 0, 0, 0, nil, fmt.Errorf("inner dimensions differ: %v and %v (trans_a=%v, trans_b=%v)", a, b, ta, tb)
	}
	batch, err = tensor.BroadcastShapes(a[:len(a)-2], b[:len(b)-2])
	return m, k, n, batch, err
}

func init() {
	matmulDef = define(&Def{
		Name: "matmul", Export: exportMatMul, ONNX: "MatMul", Arity: 2,
		Infer: func(in []Meta, a Attrs) ([]Meta, error) {
			if in[0].DType != in[1].DType || !in[0].DType.IsFloat() {
				return nil, fmt.Errorf("want two float inputs of one dtype, got %v and %v", in[0].DType, in[1].DType)
			}
			m, _, n, batch, err := matmulDims(in[0].Shape, in[1].Shape, a.Bool("trans_a", false), a.Bool("trans_b", false))
			if err != nil {
				return nil, err
			}
			return []Meta{{in[0].DType, append(batch.Clone(), m, n)}}, nil
		},
		Ref: matmulRef,
		VJP: func(c *VJPCtx) []*T {
			ta, tb := c.Attrs.Bool("trans_a", false), c.Attrs.Bool("trans_b", false)
			g, a, b := c.G(0), c.In[0], c.In[1]
			var da, db *T
			if ta {
				da = MatMul(b, g, tb, true)
			} else {
				da = MatMul(g, b, false, !tb)
			}
			if tb {
				db = MatMul(g, a, true, ta)
			} else {
				db = MatMul(a, g, !ta, false)
			}
			return []*T{unbroadcast(da, a.Shape()), unbroadcast(db, b.Shape())}
		},
		Sample: func(r *rand.Rand) ([]*T, Attrs) {
			return []*T{tensor.Rand(r, tensor.Float64, -1, 1, 2, 4, 3), tensor.Rand(r, tensor.Float64, -1, 1, 5, 3)},
				Attrs{"trans_b": true}
		},
	})
}

var matmulDef *Def

// MatMul returns a·b over the last two axes (optionally transposed), batch dims broadcast.
func MatMul(a, b *T, transA, transB bool) *T {
	return call1(matmulDef, Attrs{"trans_a": transA, "trans_b": transB}, a, b)
}

func matmulRef(out, in []*T, at Attrs) {
	a, b := in[0], in[1]
	ta, tb := at.Bool("trans_a", false), at.Bool("trans_b", false)
	m, k, n, batch, _ := matmulDims(a.Shape(), b.Shape(), ta, tb)
	nb := batch.NumElements()
	// flat batch offsets of each input, following broadcasting
	bs := append(batch.Clone(), 1)
	aBatch := a.Shape()[:a.Rank()-2]
	bBatch := b.Shape()[:b.Rank()-2]
	aOff := make([]int, nb)
	bOff := make([]int, nb)
	forBroadcast2(bs[:len(bs)-1], aBatch, bBatch, func(o, ia, ib int) { aOff[o], bOff[o] = ia*m*k, ib*k*n })
	if len(batch) == 0 {
		aOff[0], bOff[0] = 0, 0
	}
	tA, tB := blas.NoTrans, blas.NoTrans
	lda, ldb := k, n
	if ta {
		tA, lda = blas.Trans, m
	}
	if tb {
		tB, ldb = blas.Trans, k
	}
	impl := gonum.Implementation{}
	switch out[0].DType() {
	case tensor.Float32:
		av, bv, cv := a.F32(), b.F32(), out[0].F32()
		if b.Rank() == 2 && !ta {
			// one b for every batch (a layer's weights): the batches' rows
			// of a and c lie one after another, so one product of nb·m
			// rows, which packs b once rather than once per batch (each
			// element is the same sum either way)
			SGEMM(false, tb, nb*m, n, k, 1, av, lda, bv, ldb, 0, cv, n)
			return
		}
		parallel.For(nb, 1, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				SGEMM(ta, tb, m, n, k, 1, av[aOff[i]:], lda, bv[bOff[i]:], ldb, 0, cv[i*m*n:], n)
			}
		})
	case tensor.Float64:
		av, bv, cv := a.F64(), b.F64(), out[0].F64()
		parallel.For(nb, 1, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				impl.Dgemm(tA, tB, m, n, k, 1, av[aOff[i]:], lda, bv[bOff[i]:], ldb, 0, cv[i*m*n:], n)
			}
		})
	}
}
