package cpu

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"paddle/core/op"
	"paddle/core/parallel"
	"paddle/core/tensor"
)

func randBytes(r *rand.Rand, d tensor.DType, shape ...int) *tensor.Tensor {
	t := tensor.New(d, shape...)
	if d == tensor.Int8 {
		for i := range t.I8() {
			t.I8()[i] = int8(r.Uint32())
		}
	} else {
		for i := range t.U8() {
			t.U8()[i] = uint8(r.Uint32())
		}
	}
	return t
}

// runRef runs d with the reference kernels alone (no backend installed).
func runRef(d *op.Def, a op.Attrs, in ...*tensor.Tensor) *tensor.Tensor {
	prev := op.Use(nil)
	defer op.Use(prev)
	return op.Call(d, a, in...)[0]
}

// TestMatMulIntegerKernel checks the backend's matmul_integer at every
// level against core/op's reference loops, exactly: every signedness pair,
// zero points absent, scalar and per row/column, a batch.
func TestMatMulIntegerKernel(t *testing.T) {
	d := op.Lookup("matmul_integer")
	dts := []tensor.DType{tensor.Uint8, tensor.Int8}
	forQLevels(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(7, 8))
		for _, da := range dts {
			for _, db := range dts {
				for zc := range 4 {
					name := fmt.Sprintf("%v×%v/zeros%d", da, db, zc)
					a, b := randBytes(r, da, 2, 13, 37), randBytes(r, db, 37, 35)
					in := []*tensor.Tensor{a, b}
					switch zc {
					case 1:
						in = append(in, randBytes(r, da, 1), randBytes(r, db, 1))
					case 2:
						in = append(in, randBytes(r, da, 13), randBytes(r, db, 35))
					case 3:
						in = append(in, tensor.FromSlice([]int32{0}, 1), randBytes(r, db, 35))
					}
					want := runRef(d, nil, in...)
					got := op.Call(d, nil, in...)[0]
					if !slices.Equal(got.I32(), want.I32()) {
						t.Fatalf("%s: backend differs from the reference", name)
					}
				}
			}
		}
	})
}

// TestQConvQGemmKernels checks qconv2d (3×3 padded with a nonzero zero
// point, strided, grouped, pointwise) and qgemm with every output kind
// through the backend at every level against the reference kernels,
// exactly: the epilogue is shared Go code, so any difference is the GEMM's.
func TestQConvQGemmKernels(t *testing.T) {
	forQLevels(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(9, 10))
		for _, out := range []tensor.DType{tensor.Float32, tensor.Uint8, tensor.Int8, tensor.Int32} {
			for ci, cp := range []op.ConvParams{{Pads: []int{1, 1, 1, 1}}, {Strides: []int{2, 2}, Pads: []int{0, 1, 1, 0}}, {Groups: 2, Pads: []int{1, 1, 1, 1}}, {}} {
				ks := 3
				if ci == 3 {
					ks = 1
				}
				x := randBytes(r, tensor.Uint8, 2, 6, 9, 11)
				w := randBytes(r, tensor.Int8, 10, 6/max(cp.Groups, 1), ks, ks)
				bias := tensor.New(tensor.Int32, 10)
				for i := range bias.I32() {
					bias.I32()[i] = int32(r.IntN(2000) - 1000)
				}
				ws := make([]float64, 10)
				for i := range ws {
					ws[i] = 0.001 + r.Float64()*0.01
				}
				qa := op.QuantAttrs(0.02, 7, ws, []int{0}, out, 0.05, 3).With("act", "relu")
				a := cp.Attrs()
				for k, v := range qa {
					a[k] = v
				}
				d := op.Lookup("qconv2d")
				want := runRef(d, a, x, w, bias)
				got := op.QConv2D(x, w, bias, cp, qa)
				if !tensorsEqual(got, want) {
					t.Fatalf("qconv2d %+v out %v: backend differs from the reference", cp, out)
				}
			}
			x := randBytes(r, tensor.Int8, 3, 5, 40)
			w := randBytes(r, tensor.Int8, 40, 19)
			qa := op.QuantAttrs(0.02, -3, []float64{0.01}, []int{0}, out, 0.05, 0)
			want := runRef(op.Lookup("qgemm"), qa, x, w)
			if got := op.QGemm(x, w, nil, qa); !tensorsEqual(got, want) {
				t.Fatalf("qgemm out %v: backend differs from the reference", out)
			}
		}
	})
}

// TestQConvPointwiseTiles checks 1×1 qconv2d on images large enough for
// several column tiles of the in-place pointwise path (the last one
// partial) at every level against the reference: uint8 x with int8
// weights (the strided GEMM), int8 x with uint8 and int8 weights (the
// latter through matmul_integer's sign flip), groups, every output type.
func TestQConvPointwiseTiles(t *testing.T) {
	forQLevels(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(13, 14))
		for _, dt := range [][2]tensor.DType{{tensor.Uint8, tensor.Int8}, {tensor.Int8, tensor.Uint8}, {tensor.Int8, tensor.Int8}} {
			for _, groups := range []int{1, 2} {
				x := randBytes(r, dt[0], 2, 24, 40, 61)
				w := randBytes(r, dt[1], 96, 24/groups, 1, 1)
				bias := tensor.New(tensor.Int32, 96)
				for i := range bias.I32() {
					bias.I32()[i] = int32(r.IntN(2000) - 1000)
				}
				ws := make([]float64, 96)
				for i := range ws {
					ws[i] = 0.0001 + r.Float64()*0.001
				}
				for _, out := range []tensor.DType{tensor.Float32, tensor.Uint8, tensor.Int32} {
					qa := op.QuantAttrs(0.02, 7, ws, []int{0}, out, 0.05, 3).With("act", "hardswish").With("post_mul", 0.7).With("post_add", 0.1)
					cp := op.ConvParams{Groups: groups}
					a := cp.Attrs()
					for k, v := range qa {
						a[k] = v
					}
					want := runRef(op.Lookup("qconv2d"), a, x, w, bias)
					if got := op.QConv2D(x, w, bias, cp, qa); !tensorsEqual(got, want) {
						t.Fatalf("x %v w %v groups %d out %v: backend differs from the reference", dt[0], dt[1], groups, out)
					}
				}
			}
		}
	})
}

func tensorsEqual(a, b *tensor.Tensor) bool {
	if a.DType() != b.DType() || !slices.Equal(a.Shape(), b.Shape()) {
		return false
	}
	switch a.DType() {
	case tensor.Float32:
		return slices.Equal(a.F32(), b.F32())
	case tensor.Uint8:
		return slices.Equal(a.U8(), b.U8())
	case tensor.Int8:
		return slices.Equal(a.I8(), b.I8())
	case tensor.Int32:
		return slices.Equal(a.I32(), b.I32())
	}
	return false
}

// TestQConvShifted checks qconv2d's path without unrolled windows (qshifted:
// stride phases of x, B rows through QGEMMRows) at every level against the
// reference kernels, exactly (int32 accumulators with the bias, and
// requantized bytes): kernels 3×3, 5×5, 2×3 and 1×1 strided, strides 1 to 3
// per axis, dilation, asymmetric and oversized pads, channel counts that
// are and are not multiples of 4, output channels below, at and past the
// 12-row tile, output rows below and past the 32-column tile, k past a k
// block, images of one and of several row tiles, two images, x's zero
// point 0 and not, uint8 x with int8 weights and int8 x with uint8 weights,
// extreme operands. At avx512 with VNNI this runs the
// interleaved phases read in place (QGEMMGroups), elsewhere the planes
// packed per call (QGEMMRows).
func TestQConvShifted(t *testing.T) {
	type tc struct {
		c, oc, h, w, kh, kw int
		p                   op.ConvParams
	}
	cases := []tc{
		{3, 16, 20, 23, 3, 3, op.ConvParams{Strides: []int{2, 2}, Pads: []int{1, 1, 1, 1}}},
		{8, 24, 40, 61, 3, 3, op.ConvParams{Pads: []int{1, 1, 1, 1}}},
		{5, 13, 9, 11, 5, 5, op.ConvParams{Pads: []int{2, 1, 0, 3}}},
		{4, 7, 12, 10, 2, 3, op.ConvParams{Strides: []int{1, 2}, Pads: []int{0, 1, 1, 0}}},
		{6, 9, 17, 19, 3, 3, op.ConvParams{Strides: []int{3, 2}, Dilations: []int{2, 1}, Pads: []int{2, 2, 1, 1}}},
		{7, 5, 8, 8, 1, 1, op.ConvParams{Strides: []int{2, 2}}},
		{1, 1, 3, 4, 3, 3, op.ConvParams{Pads: []int{4, 4, 4, 4}}},
		{96, 24, 30, 30, 3, 3, op.ConvParams{Pads: []int{1, 1, 1, 1}}},
		{12, 30, 21, 75, 3, 3, op.ConvParams{Strides: []int{2, 2}, Pads: []int{1, 1, 1, 1}}},
		{16, 11, 14, 70, 3, 3, op.ConvParams{Dilations: []int{2, 2}, Pads: []int{2, 2, 2, 2}}},
		// from here on, x int8 and w uint8 (before, x uint8 and w int8)
		{8, 24, 40, 61, 3, 3, op.ConvParams{Pads: []int{1, 1, 1, 1}}},
		{6, 13, 17, 35, 3, 3, op.ConvParams{Strides: []int{2, 2}, Pads: []int{1, 0, 1, 2}}},
	}
	const signedFrom = 10
	forQLevels(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(17, 18))
		for ci, c := range cases {
			signedX := ci >= signedFrom
			for _, fill := range []string{"random", "extreme"} {
				xd, wd, xzs := tensor.Uint8, tensor.Int8, []int{0, 131}
				if signedX {
					xd, wd, xzs = tensor.Int8, tensor.Uint8, []int{0, -77}
				}
				x := randBytes(r, xd, 2, c.c, c.h, c.w)
				w := randBytes(r, wd, c.oc, c.c, c.kh, c.kw)
				if fill == "extreme" { // unsigned 255, signed -128
					fillBytes(rawBytes(x), pick(signedX, 0x80, 255))
					fillBytes(rawBytes(w), pick(signedX, 255, 0x80))
				}
				bias := tensor.New(tensor.Int32, c.oc)
				for i := range bias.I32() {
					bias.I32()[i] = int32(r.IntN(2000) - 1000)
				}
				ws := make([]float64, c.oc)
				for i := range ws {
					ws[i] = 0.0001 + r.Float64()*0.001
				}
				for _, xz := range xzs {
					for _, out := range []tensor.DType{tensor.Int32, tensor.Uint8} {
						qa := op.QuantAttrs(0.02, xz, ws, []int{0}, out, 0.05, 3).With("act", "relu")
						a := c.p.Attrs()
						for k, v := range qa {
							a[k] = v
						}
						want := runRef(op.Lookup("qconv2d"), a, x, w, bias)
						if got := op.QConv2D(x, w, bias, c.p, qa); !tensorsEqual(got, want) {
							t.Fatalf("%+v x %v %s x zero %d out %v: backend differs from the reference", c, xd, fill, xz, out)
						}
					}
				}
			}
		}
	})
}

// TestQWeightsCacheFollowsWeights checks that what qconv2d and qgemm cache
// per weight buffer (sums, packed and reordered weights: core/op's
// qweights.go) follows the buffer's contents: each product is run, its
// weights changed in place, and run again, both times equal to the
// reference (a 3×3 conv, a 1×1 conv, a qgemm; x zero point nonzero, so the
// sums are used).
func TestQWeightsCacheFollowsWeights(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(19, 20))
		ws := []float64{0.001}
		for _, kk := range []int{3, 1} {
			x := randBytes(r, tensor.Uint8, 1, 8, 9, 10)
			w := randBytes(r, tensor.Int8, 12, 8, kk, kk)
			p := op.ConvParams{Pads: []int{kk / 2, kk / 2, kk / 2, kk / 2}}
			qa := op.QuantAttrs(0.02, 131, ws, []int{0}, tensor.Int32, 1, 0)
			a := p.Attrs()
			for k, v := range qa {
				a[k] = v
			}
			for round := range 2 {
				if round == 1 {
					for i := range w.I8() {
						w.I8()[i] = int8(r.IntN(256) - 128)
					}
				}
				want := runRef(op.Lookup("qconv2d"), a, x, w)
				if got := op.QConv2D(x, w, nil, p, qa); !tensorsEqual(got, want) {
					t.Fatalf("%d×%d conv, round %d: backend differs from the reference", kk, kk, round)
				}
			}
		}
		x := randBytes(r, tensor.Uint8, 40, 24)
		w := randBytes(r, tensor.Int8, 24, 50)
		qa := op.QuantAttrs(0.02, 131, ws, []int{0}, tensor.Int32, 1, 0)
		for round := range 2 {
			if round == 1 {
				for i := range w.I8() {
					w.I8()[i] = int8(r.IntN(256) - 128)
				}
			}
			want := runRef(op.Lookup("qgemm"), qa, x, w)
			if got := op.QGemm(x, w, nil, qa); !tensorsEqual(got, want) {
				t.Fatalf("qgemm, round %d: backend differs from the reference", round)
			}
		}
	})
}

// BenchmarkQConvShifted times qshifted on the 3×3 convs of int8 PP-OCRv4
// det at 960×960 at the active level, with B interleaved and read in place
// (QGEMMGroups, where the level has it) and with B's planes packed per
// call (QGEMMRows), on one thread.
func BenchmarkQConvShifted(b *testing.B) {
	defer installKernels()
	defer parallel.SetThreads(parallel.Threads())
	parallel.SetThreads(1)
	for _, s := range []struct{ c, oc, hw, stride int }{{3, 16, 960, 2}, {96, 24, 240, 1}, {96, 24, 120, 1}, {96, 24, 60, 1}} {
		r := rand.New(rand.NewPCG(1, 2))
		x := randBytes(r, tensor.Uint8, 1, s.c, s.hw, s.hw)
		w := randBytes(r, tensor.Int8, s.oc, s.c, 3, 3)
		ws := make([]float64, s.oc)
		for i := range ws {
			ws[i] = 0.001
		}
		p := op.ConvParams{Strides: []int{s.stride, s.stride}, Pads: []int{1, 1, 1, 1}}
		qa := op.QuantAttrs(0.02, 7, ws, []int{0}, tensor.Uint8, 0.05, 3)
		for _, path := range []string{"groups", "planes"} {
			k := kernelSet()
			if path == "planes" {
				k.QGEMMGroups8 = nil
			} else if k.QGEMMGroups8 == nil {
				continue
			}
			op.Use(k)
			b.Run(fmt.Sprintf("%s/c%d-oc%d-%d-s%d/%s", Level(), s.c, s.oc, s.hw, s.stride, path), func(b *testing.B) {
				for b.Loop() {
					op.QConv2D(x, w, nil, p, qa)
				}
			})
		}
	}
}
