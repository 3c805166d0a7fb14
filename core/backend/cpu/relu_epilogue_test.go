package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	_ "paddle/core/graph/pass" // defines conv2d_act
	"paddle/core/op"
	"paddle/core/parallel"
	"paddle/core/tensor"
)

// reluSpecials are values where a vector max can differ from Go's
// max(v, 0): NaN (kept), -0 (becomes +0), infinities, tiny values.
var reluSpecials = []float32{float32(math.NaN()), float32(math.Copysign(0, -1)), 0,
	float32(math.Inf(1)), float32(math.Inf(-1)), -1e-40, 1e-40, -3, 2.5}

// The fused relu (the epilogue's ActRelu on whole tiles and on masked
// tails, through op.ApplyEpilogue) is bitwise Go's max(v, 0), specials
// included, with and without the affine step.
func TestApplyEpilogueReluBitwise(t *testing.T) {
	defer installKernels()
	installKernels()
	r := rand.New(rand.NewPCG(31, 32))
	for _, n := range []int{1, 5, 31, 32, 33, 100, 1000} {
		for _, affine := range []bool{false, true} {
			x := randSlice(r, n)
			for i := range x {
				if i%3 == 0 {
					x[i] = reluSpecials[(i/3)%len(reluSpecials)]
				}
			}
			got := append([]float32(nil), x...)
			ep := &op.GemmEpilogue{Act: op.GemmActRelu, Affine: affine, Scale: 0.37, Shift: -0.21}
			op.ApplyEpilogue(got, ep)
			for i, v := range x {
				w := max(v, 0)
				if affine {
					w = float32(w*ep.Scale) + ep.Shift
				}
				if !sameBits(got[i], w) || math.IsNaN(float64(w)) && math.Float32bits(got[i]) != math.Float32bits(w) {
					t.Fatalf("n=%d affine %v: relu(%v) = %v (%#x), want %v (%#x)", n, affine, v, got[i], math.Float32bits(got[i]), w, math.Float32bits(w))
				}
			}
		}
	}
}

// SGEMMEx with ActRelu and a row bias holding specials is bitwise SGEMM,
// the bias add and then max(v, 0).
func TestSGEMMExReluBitwise(t *testing.T) {
	withKernel(t, func(t *testing.T, _ string) {
		r := rand.New(rand.NewPCG(33, 34))
		for _, s := range [][3]int{{17, 45, 40}, {33, 100, 7}, {12, 64, 300}} {
			m, n, kk := s[0], s[1], s[2]
			e := Epilogue{Act: ActRelu, RowBias: randSlice(r, m)}
			copy(e.RowBias, reluSpecials[:5])
			g := newCase(r, false, false, m, n, kk, 1, 0, 2)
			want := append([]float32(nil), g.c0[guard:len(g.c0)-guard]...)
			got := append([]float32(nil), want...)
			SGEMM(false, false, m, n, kk, 1, g.a, g.lda, g.b, g.ldb, 0, want, g.ldc)
			SGEMMEx(false, false, m, n, kk, 1, g.a, g.lda, g.b, g.ldb, 0, got, g.ldc, &e)
			for i := range m {
				for j := range n {
					w := max(want[i*g.ldc+j]+e.RowBias[i], 0)
					if g := got[i*g.ldc+j]; !sameBits(g, w) {
						t.Fatalf("%v: c[%d][%d] = %v, want %v", s, i, j, g, w)
					}
				}
			}
		}
	})
}

// conv2d_act with relu (a 1×1 GEMM conv, a 3×3 im2col conv, a depthwise
// one) on this backend is bitwise conv2d followed by relu, at 1 and 2
// threads.
func TestConv2DActReluBitwise(t *testing.T) {
	defer parallel.SetThreads(parallel.Threads())
	defer installKernels()
	r := rand.New(rand.NewPCG(35, 36))
	act, conv, relu := op.Lookup("conv2d_act"), op.Lookup("conv2d"), op.Lookup("relu")
	for _, th := range []int{1, 2} {
		if err := (host{}).Activate(th); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			c, oc, k, groups int
		}{{8, 16, 1, 1}, {5, 7, 3, 1}, {16, 16, 3, 16}} {
			x := tensor.Rand(r, tensor.Float32, -1, 1, 2, c.c, 9, 13)
			w := tensor.Rand(r, tensor.Float32, -1, 1, c.oc, c.c/c.groups, c.k, c.k)
			b := tensor.Rand(r, tensor.Float32, -1, 1, c.oc)
			b.F32()[0] = float32(math.NaN())
			p := c.k / 2
			a := op.Attrs{"pads": []int{p, p, p, p}, "groups": c.groups}
			want := op.Call(relu, nil, op.Call(conv, a, x, w, b)[0])[0]
			fa := op.Attrs{"pads": []int{p, p, p, p}, "groups": c.groups, "act": "relu"}
			got := op.Call(act, fa, x, w, b)[0]
			gv, wv := got.F32(), want.F32()
			for i := range wv {
				if !sameBits(gv[i], wv[i]) {
					t.Fatalf("%+v, %d threads: [%d] = %v, want %v", c, th, i, gv[i], wv[i])
				}
			}
		}
	}
}
