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
	forLevels(t, func(t *testing.T) {
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
	})
}

// SGEMMEx with ActRelu and a row bias holding specials is bitwise SGEMM,
// the bias add and then max(v, 0).
func TestSGEMMExReluBitwise(t *testing.T) {
	forLevels(t, func(t *testing.T) {
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
	})
}

// conv2d_act with relu (a 1×1 GEMM conv, a 3×3 im2col conv, a depthwise
// one) on this backend is bitwise conv2d followed by relu, at 1 and 2
// threads.
func TestConv2DActReluBitwise(t *testing.T) {
	forLevels(t, func(t *testing.T) {
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
	})
}

// The relu op on this backend (the vector kernel) is bitwise max(v, 0),
// specials included, out of place and in place, at 1 and 2 threads.
func TestReluKernelBitwise(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		defer parallel.SetThreads(parallel.Threads())
		defer installKernels()
		r := rand.New(rand.NewPCG(37, 38))
		relu := op.Lookup("relu")
		for _, th := range []int{1, 2} {
			if err := (host{}).Activate(th); err != nil {
				t.Fatal(err)
			}
			for _, n := range []int{1, 31, 33, 1000, 40000} {
				x := tensor.Rand(r, tensor.Float32, -1, 1, n)
				xv := x.F32()
				for i := 0; i < n; i += 7 {
					xv[i] = reluSpecials[(i/7)%len(reluSpecials)]
				}
				want := make([]float32, n)
				for i, v := range xv {
					want[i] = max(v, 0)
				}
				got := op.Call(relu, nil, x)[0].F32()
				inPlace := x.Clone()
				op.Run(relu, []*tensor.Tensor{inPlace}, []*tensor.Tensor{inPlace}, nil)
				for i := range want {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) || math.Float32bits(inPlace.F32()[i]) != math.Float32bits(want[i]) {
						t.Fatalf("n=%d, %d threads: relu(%v) = %v / in place %v, want %v", n, th, xv[i], got[i], inPlace.F32()[i], want[i])
					}
				}
			}
		}
	})
}

// The vector sigmoid against the float64 sigmoid: relative error ≤ 1e-6
// (absolute 1e-38 where the result is subnormal), NaN kept, ±Inf to 1 and
// 0, over ±110 (both exp tails) and a dense sweep of [-20, 20].
func TestSigmoidKernel(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		defer installKernels()
		installKernels()
		sig := op.Lookup("sigmoid")
		var xs []float32
		for i := -4000; i <= 4000; i++ {
			xs = append(xs, float32(i)/200)
		}
		r := rand.New(rand.NewPCG(39, 40))
		for range 5000 {
			xs = append(xs, float32(r.Float64()*220-110))
		}
		xs = append(xs, float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)), 1e-30, -1e-30, 88, -88, -87.5, -103.9, -104.1)
		got := op.Call(sig, nil, tensor.FromSlice(xs, len(xs)))[0].F32()
		worst := 0.0
		for i, x := range xs {
			w := 1 / (1 + math.Exp(-float64(x)))
			g := float64(got[i])
			if math.IsNaN(w) != math.IsNaN(g) {
				t.Fatalf("sigmoid(%v) = %v, want %v", x, g, w)
			}
			if math.IsNaN(w) {
				continue
			}
			d := math.Abs(g - w)
			if d > 1e-6*w+1e-38 {
				t.Fatalf("sigmoid(%v) = %v, want %v (rel error %.3g)", x, g, w, d/w)
			}
			if w > 1e-30 {
				worst = max(worst, d/w)
			}
		}
		t.Logf("max relative error %.3g", worst)
	})
}

// Depthwise conv2d_act with the epilogue applied per plane in the kernel
// (op.Active().DepthwiseEx) is bitwise conv2d, the activation op and the unfused
// scale and shift: relu and hardswish, with and without the affine step,
// stride 1 and 2, at 1 and 2 threads.
func TestDepthwiseExBitwise(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		defer parallel.SetThreads(parallel.Threads())
		defer installKernels()
		r := rand.New(rand.NewPCG(51, 52))
		act, conv := op.Lookup("conv2d_act"), op.Lookup("conv2d")
		for _, th := range []int{1, 2} {
			if err := (host{}).Activate(th); err != nil {
				t.Fatal(err)
			}
			if op.Active().DepthwiseEx == nil {
				t.Skip("no vector depthwise kernel on this CPU/build")
			}
			calls := 0
			saved := op.Active().DepthwiseEx
			op.Active().DepthwiseEx = func(out, in []*op.T, a op.Attrs, ep *op.GemmEpilogue) bool {
				calls++
				return saved(out, in, a, ep)
			}
			for _, name := range []string{"relu", "hardswish"} {
				for _, affine := range []bool{false, true} {
					for _, st := range []int{1, 2} {
						x := tensor.Rand(r, tensor.Float32, -4, 4, 2, 6, 11, 37)
						w := tensor.Rand(r, tensor.Float32, -1, 1, 6, 1, 5, 5)
						b := tensor.Rand(r, tensor.Float32, -1, 1, 6)
						a := op.Attrs{"pads": []int{2, 2, 2, 2}, "groups": 6, "strides": []int{st, st}}
						want := op.Call(op.Lookup(name), nil, op.Call(conv, a, x, w, b)[0])[0]
						fa := op.Attrs{"pads": []int{2, 2, 2, 2}, "groups": 6, "strides": []int{st, st}, "act": name}
						scale, shift := float32(1), float32(0)
						if affine {
							scale, shift = 0.37, -0.21
							fa["scale"], fa["shift"] = float64(scale), float64(shift)
							for i, v := range want.F32() {
								want.F32()[i] = float32(v*scale) + shift
							}
						}
						got := op.Call(act, fa, x, w, b)[0]
						for i, wv := range want.F32() {
							if g := got.F32()[i]; !sameBits(g, wv) {
								t.Fatalf("%s affine %v stride %d, %d threads: [%d] = %v, want %v", name, affine, st, th, i, g, wv)
							}
						}
					}
				}
			}
			op.Active().DepthwiseEx = saved
			if calls == 0 {
				t.Fatal("conv2d_act did not call op.Active().DepthwiseEx")
			}
		}
	})
}

// TestDepthwiseExEpiloguesBitwise: depthwiseEx (at avx2 the epilogue fused
// into the row kernel's stores) gives bitwise depthwiseConv2D followed by
// the unfused float32 epilogue, for none, relu and hardswish with and
// without the affine step: strides 1 and 2 per axis, kernels with one
// column (no odd taps at column stride 2), rows of a masked tail, of a
// block of 1..11 vectors and of 12-vector blocks, rows wholly in padding.
func TestDepthwiseExEpiloguesBitwise(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		conv, convEx := depthwiseKernel(), depthwiseExKernel()
		if conv == nil || convEx == nil {
			t.Skip("no vector depthwise kernel at this level")
		}
		r := rand.New(rand.NewPCG(53, 54))
		shapes := []struct {
			h, w, kh, kw int
			pads         []int
		}{
			{11, 37, 5, 5, []int{2, 2, 2, 2}},
			{6, 130, 3, 3, []int{1, 1, 1, 1}},
			{3, 80, 5, 5, []int{2, 2, 2, 2}},
			{1, 20, 3, 3, []int{3, 1, 3, 1}},
			{7, 19, 3, 1, []int{1, 0, 1, 0}},
		}
		for _, s := range shapes {
			for _, st := range [][]int{{1, 1}, {2, 1}, {1, 2}, {2, 2}} {
				for _, act := range []op.GemmAct{op.GemmActNone, op.GemmActRelu, op.GemmActHardSwish} {
					for _, affine := range []bool{false, true} {
						x := tensor.Rand(r, tensor.Float32, -4, 4, 2, 3, s.h, s.w)
						w := tensor.Rand(r, tensor.Float32, -1, 1, 3, 1, s.kh, s.kw)
						b := tensor.Rand(r, tensor.Float32, -1, 1, 3)
						a := op.Attrs{"pads": s.pads, "groups": 3, "strides": st}
						oh := (s.h+s.pads[0]+s.pads[2]-s.kh)/st[0] + 1
						ow := (s.w+s.pads[1]+s.pads[3]-s.kw)/st[1] + 1
						want := tensor.New(tensor.Float32, 2, 3, oh, ow)
						got := tensor.New(tensor.Float32, 2, 3, oh, ow)
						if !conv([]*tensor.Tensor{want}, []*tensor.Tensor{x, w, b}, a) {
							t.Fatalf("%+v strides %v: kernel declined", s, st)
						}
						ge := &op.GemmEpilogue{Act: act, Affine: affine, Scale: 0.37, Shift: -0.21}
						e := Epilogue{Affine: affine, Scale: 0.37, Shift: -0.21}
						switch act {
						case op.GemmActRelu:
							e.Act = ActRelu
						case op.GemmActHardSwish:
							e.Act = ActHardSwish6
						}
						wv := want.F32()
						e.applyGo(wv, len(wv), 0, 0, 1, len(wv))
						if !convEx([]*tensor.Tensor{got}, []*tensor.Tensor{x, w, b}, a, ge) {
							t.Fatalf("%+v strides %v: depthwiseEx declined", s, st)
						}
						for i, v := range wv {
							if g := got.F32()[i]; !sameBits(g, v) {
								t.Fatalf("%+v strides %v act %d affine %v: [%d] = %v, want %v", s, st, act, affine, i, g, v)
							}
						}
					}
				}
			}
		}
	})
}
