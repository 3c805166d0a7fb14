package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestSGEMMExEpilogue checks SGEMMEx against SGEMM followed by a float64
// application of the epilogue, for every activation, with and without
// biases, with several K blocks (the epilogue must run once, after the last).
func TestSGEMMExEpilogue(t *testing.T) {
	acts := []Epilogue{
		{Act: ActNone}, {Act: ActRelu}, {Act: ActClip, P0: -0.5, P1: 0.75},
		{Act: ActHardSigmoid, P0: 0.2, P1: 0.5}, {Act: ActHardSwish, P0: 1.0 / 6, P1: 0.5},
	}
	withKernel(t, func(t *testing.T, _ string) {
		k := active.Load()
		saved := *k
		defer func() { k.kc, k.mc, k.nc = saved.kc, saved.mc, saved.nc }()
		k.kc, k.mc, k.nc = 16, 2*k.mr, 3*k.nr
		r := rand.New(rand.NewPCG(11, 12))
		for ai, e := range acts {
			for _, s := range [][3]int{{17, 45, 40}, {33, 100, 7}, {5, 3, 0}} {
				m, n, kk := s[0], s[1], s[2]
				e := e
				if ai%2 == 0 {
					e.RowBias = randSlice(r, m)
				}
				if ai != 1 {
					e.ColBias = randSlice(r, n)
				}
				g := newCase(r, ai%2 == 1, ai%3 == 0, m, n, kk, 1.5, float32(ai%2), 2)
				want := append([]float32(nil), g.c0[guard:len(g.c0)-guard]...)
				got := append([]float32(nil), want...)
				SGEMM(g.ta, g.tb, m, n, kk, g.alpha, g.a, g.lda, g.b, g.ldb, g.beta, want, g.ldc)
				SGEMMEx(g.ta, g.tb, m, n, kk, g.alpha, g.a, g.lda, g.b, g.ldb, g.beta, got, g.ldc, &e)
				for i := range m {
					for j := range n {
						v := float64(want[i*g.ldc+j])
						if e.RowBias != nil {
							v += float64(e.RowBias[i])
						}
						if e.ColBias != nil {
							v += float64(e.ColBias[j])
						}
						v = act64(e, v)
						if d := math.Abs(float64(got[i*g.ldc+j]) - v); d > 1e-6*(1+math.Abs(v)) {
							t.Fatalf("act %d %v: c[%d][%d] = %v, want %v", e.Act, s, i, j, got[i*g.ldc+j], v)
						}
					}
					for j := n; j < g.ldc && i*g.ldc+j < len(got); j++ {
						if got[i*g.ldc+j] != want[i*g.ldc+j] {
							t.Fatalf("act %d %v: padding c[%d][%d] changed", e.Act, s, i, j)
						}
					}
				}
			}
		}
	})
}

func act64(e Epilogue, v float64) float64 {
	clip := func(x, lo, hi float64) float64 { return math.Min(math.Max(x, lo), hi) }
	switch e.Act {
	case ActRelu:
		return math.Max(v, 0)
	case ActClip:
		return clip(v, float64(e.P0), float64(e.P1))
	case ActHardSigmoid:
		return clip(float64(e.P0)*v+float64(e.P1), 0, 1)
	case ActHardSwish:
		return v * clip(float64(e.P0)*v+float64(e.P1), 0, 1)
	}
	return v
}

func TestSGEMMExShortBiasPanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || fmt.Sprint(r) == "" {
			t.Fatal("no panic for a short bias")
		}
	}()
	c := make([]float32, 4)
	SGEMMEx(false, false, 2, 2, 1, 1, []float32{1, 2}, 1, []float32{1, 2}, 2, 0, c, 2, &Epilogue{RowBias: []float32{1}})
}

// TestSGEMMExHardSwish6Bitwise: the exact hardswish and the affine
// scale/shift give bitwise what SGEMM followed by the unfused float32
// steps (row bias add, op's hardswish, mul, add) gives, specials included.
func TestSGEMMExHardSwish6Bitwise(t *testing.T) {
	withKernel(t, func(t *testing.T, _ string) {
		k := active.Load()
		saved := *k
		defer func() { k.kc, k.mc, k.nc = saved.kc, saved.mc, saved.nc }()
		k.kc, k.mc, k.nc = 16, 2*k.mr, 3*k.nr
		r := rand.New(rand.NewPCG(13, 14))
		for _, s := range [][3]int{{17, 45, 40}, {33, 100, 7}, {12, 64, 300}} {
			m, n, kk := s[0], s[1], s[2]
			for _, affine := range []bool{false, true} {
				e := Epilogue{Act: ActHardSwish6, RowBias: randSlice(r, m), Affine: affine, Scale: 0.37, Shift: -0.21}
				for i := range e.RowBias {
					e.RowBias[i] *= 8 // spread over the kinks at ±3
				}
				e.RowBias[0], e.RowBias[1], e.RowBias[2] = float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))
				g := newCase(r, false, false, m, n, kk, 1, 0, 2)
				want := append([]float32(nil), g.c0[guard:len(g.c0)-guard]...)
				got := append([]float32(nil), want...)
				SGEMM(false, false, m, n, kk, 1, g.a, g.lda, g.b, g.ldb, 0, want, g.ldc)
				SGEMMEx(false, false, m, n, kk, 1, g.a, g.lda, g.b, g.ldb, 0, got, g.ldc, &e)
				for i := range m {
					row := want[i*g.ldc : i*g.ldc+n]
					for j := range row {
						row[j] += e.RowBias[i]
					}
					hardswishGo(row, row)
					for j, v := range row {
						if affine {
							row[j] = float32(v*e.Scale) + e.Shift
						}
						if w, g := row[j], got[i*g.ldc+j]; !sameBits(g, w) {
							t.Fatalf("%v affine %v: c[%d][%d] = %v, want %v", s, affine, i, j, g, w)
						}
					}
				}
			}
		}
	})
}

// TestSGEMMExAffineOnly checks that an epilogue holding only the affine step
// (no bias, no activation) still runs: y = (A·B)·Scale + Shift.
func TestSGEMMExAffineOnly(t *testing.T) {
	withKernel(t, func(t *testing.T, _ string) {
		r := rand.New(rand.NewPCG(5, 6))
		for _, kk := range []int{0, 7, 40} {
			m, n := 9, 13
			a, b := randSlice(r, m*max(kk, 1)), randSlice(r, max(kk, 1)*n)
			want := make([]float32, m*n)
			got := make([]float32, m*n)
			SGEMM(false, false, m, n, kk, 1, a, max(kk, 1), b, n, 0, want, n)
			for i := range want {
				want[i] = want[i]*0.37 + -0.21
			}
			SGEMMEx(false, false, m, n, kk, 1, a, max(kk, 1), b, n, 0, got, n, &Epilogue{Affine: true, Scale: 0.37, Shift: -0.21})
			for i := range want {
				if math.Abs(float64(got[i]-want[i])) > 1e-6 {
					t.Fatalf("k=%d: y[%d] = %v, want %v", kk, i, got[i], want[i])
				}
			}
		}
	})
}

// TestSGEMMExConvEpilogueBitwise: a convolution's epilogue (row bias, then
// none, relu or the exact hardswish, then maybe the affine step) on the
// direct row-major A path with alpha 1 and beta 0, which the avx2 level
// fuses into its micro-kernels' store, gives bitwise what SGEMM followed by
// the unfused float32 steps gives: every row count of the 6- and 4-row
// kernels, whole and partial 16- and 8-column tiles, NaN, ±Inf and -0
// among the biases; alpha 1.25 with beta 1 (not fused) alike.
func TestSGEMMExConvEpilogueBitwise(t *testing.T) {
	withKernel(t, func(t *testing.T, _ string) {
		r := rand.New(rand.NewPCG(17, 18))
		specials := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.Copysign(0, -1))}
		for _, act := range []Act{ActNone, ActRelu, ActHardSwish6} {
			for _, m := range []int{1, 3, 4, 5, 6, 7, 13} {
				for _, n := range []int{8, 16, 21, 40} {
					for _, kk := range []int{1, 9, 40} {
						for ci := range 4 {
							alpha, beta, affine := float32(1), float32(0), ci%2 == 1
							if ci >= 2 {
								alpha, beta = 1.25, 1
							}
							e := Epilogue{Act: act, RowBias: randSlice(r, m), Affine: affine, Scale: 0.37, Shift: -0.21}
							for i := range e.RowBias {
								e.RowBias[i] *= 8 // spread over hardswish's kinks at ±3
							}
							e.RowBias[m-1] = specials[(m+n+kk)%4]
							a, b := randSlice(r, m*kk), randSlice(r, kk*n)
							want := randSlice(r, m*n)
							got := append([]float32(nil), want...)
							SGEMM(false, false, m, n, kk, alpha, a, kk, b, n, beta, want, n)
							for i := range m {
								row := want[i*n : (i+1)*n]
								for j := range row {
									row[j] += e.RowBias[i]
									if act == ActRelu {
										row[j] = max(row[j], 0)
									}
								}
								if act == ActHardSwish6 {
									hardswishGo(row, row)
								}
								for j := range row {
									if affine {
										row[j] = float32(row[j]*e.Scale) + e.Shift
									}
								}
							}
							SGEMMEx(false, false, m, n, kk, alpha, a, kk, b, n, beta, got, n, &e)
							for i, w := range want {
								if !sameBits(got[i], w) {
									t.Fatalf("act %d m=%d n=%d k=%d alpha=%v beta=%v affine=%v: c[%d][%d] = %v, want %v", act, m, n, kk, alpha, beta, affine, i/n, i%n, got[i], w)
								}
							}
						}
					}
				}
			}
		}
	})
}
