package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"paddle/core/op"
	"paddle/core/parallel"
	"paddle/core/tensor"
)

// With the backend active, op.Conv2DEx (conv2d with hardswish and the
// scale/shift fused into SGEMMEx's epilogue) is bitwise conv2d, then
// hardswish, then ·scale + shift, on every kernel (withKernel runs each at 1 and 2 threads).
func TestConv2DExBitwiseActive(t *testing.T) {
	defer parallel.SetThreads(parallel.Threads())
	conv := op.Lookup("conv2d")
	if err := (host{}).Activate(1); err != nil {
		t.Fatal(err)
	}
	withKernel(t, func(t *testing.T, _ string) {
		r := rand.New(rand.NewPCG(23, 24))
		for _, c := range []struct {
			x, w  []int
			attrs op.Attrs
		}{
			{[]int{2, 6, 21, 19}, []int{40, 6, 3, 3}, op.Attrs{"pads": []int{1, 1, 1, 1}}},
			{[]int{1, 32, 17, 15}, []int{70, 32, 1, 1}, op.Attrs{}},
			{[]int{1, 8, 20, 20}, []int{16, 8, 3, 3}, op.Attrs{"pads": []int{1, 1, 1, 1}, "strides": []int{2, 2}}},
		} {
			x := tensor.Rand(r, tensor.Float32, -2, 2, c.x...)
			w := tensor.Rand(r, tensor.Float32, -1, 1, c.w...)
			in := []*op.T{x, w, tensor.Rand(r, tensor.Float32, -3, 3, c.w[0])}
			for _, affine := range []bool{false, true} {
				want := op.Hardswish(op.Call(conv, c.attrs, in...)[0])
				if affine {
					want = op.Add(op.Mul(want, tensor.Scalar(float32(0.37))), tensor.Scalar(float32(-0.21)))
				}
				got := tensor.New(tensor.Float32, want.Shape()...)
				if !op.Conv2DEx([]*op.T{got}, in, c.attrs, op.GemmActHardSwish, affine, 0.37, -0.21) {
					t.Fatalf("%v: Conv2DEx declined", c.w)
				}
				wv, gv := want.F32(), got.F32()
				for i := range wv {
					if math.Float32bits(wv[i]) != math.Float32bits(gv[i]) {
						t.Fatalf("%v affine %v: y[%d] = %v, want %v", c.w, affine, i, gv[i], wv[i])
					}
				}
			}
		}
	})
}

// With the backend active, a float32 conv2d with a bias and no activation
// (its bias is SGEMMEx's row bias, added in each tile: fused into the avx2
// micro-kernels' store) is bitwise the conv2d without the bias followed by
// the float32 bias add, on every kernel at 1 and 2 threads (Winograd 3×3,
// 1×1 read in place, im2col with stride 2, whole and partial tiles).
func TestConv2DBiasBitwise(t *testing.T) {
	defer parallel.SetThreads(parallel.Threads())
	conv := op.Lookup("conv2d")
	if err := (host{}).Activate(1); err != nil {
		t.Fatal(err)
	}
	withKernel(t, func(t *testing.T, _ string) {
		r := rand.New(rand.NewPCG(25, 26))
		for _, c := range []struct {
			x, w  []int
			attrs op.Attrs
		}{
			{[]int{2, 6, 21, 19}, []int{40, 6, 3, 3}, op.Attrs{"pads": []int{1, 1, 1, 1}}},
			{[]int{1, 32, 17, 15}, []int{70, 32, 1, 1}, op.Attrs{}},
			{[]int{2, 24, 4, 40}, []int{13, 24, 1, 1}, op.Attrs{}},
			{[]int{1, 8, 20, 20}, []int{16, 8, 3, 3}, op.Attrs{"pads": []int{1, 1, 1, 1}, "strides": []int{2, 2}}},
			{[]int{1, 96, 1, 40}, []int{30, 96, 1, 3}, op.Attrs{"pads": []int{0, 1, 0, 1}}},
		} {
			x := tensor.Rand(r, tensor.Float32, -2, 2, c.x...)
			w := tensor.Rand(r, tensor.Float32, -1, 1, c.w...)
			b := tensor.Rand(r, tensor.Float32, -3, 3, c.w[0])
			b.F32()[0] = float32(math.Inf(1))
			want := op.Call(conv, c.attrs, x, w)[0]
			s := want.Shape()
			hw := s[2] * s[3]
			wv := want.F32()
			for i := range wv {
				wv[i] += b.F32()[i/hw%s[1]]
			}
			got := op.Call(conv, c.attrs, x, w, b)[0]
			for i, v := range wv {
				if g := got.F32()[i]; !sameBits(g, v) {
					t.Fatalf("x %v w %v: y[%d] = %v, want %v", c.x, c.w, i, g, v)
				}
			}
		}
	})
}
