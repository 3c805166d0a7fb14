package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"paddle/core/op"
	"paddle/core/parallel"
	"paddle/core/tensor"
)

// poolValues are few levels (ties), both zeros, infinities and NaNs with
// different payloads (which one wins shows in the bits).
var poolValues = []float32{-1, 0, float32(math.Copysign(0, -1)), 1, float32(math.Inf(1)), float32(math.Inf(-1)),
	math.Float32frombits(0x7fc00001), math.Float32frombits(0xffc00002), math.Float32frombits(0x7fc00003)}

// The vector 2×2 max pooling row is bitwise the scalar rule, at every
// length around the vector width.
func TestMaxPool2x2RowsBitwise(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		f := maxPool2x2Kernel()
		if f == nil {
			t.Skip("no vector max pooling on this CPU/build")
		}
		r := rand.New(rand.NewPCG(41, 42))
		for n := 0; n <= 70; n++ {
			r0, r1 := make([]float32, 2*n+1), make([]float32, 2*n+1) // one unused column
			for i := range r0 {
				r0[i], r1[i] = poolValues[r.IntN(len(poolValues))], poolValues[r.IntN(len(poolValues))]
			}
			got := make([]float32, n)
			f(got, r0, r1)
			for i := range got {
				m := r0[2*i]
				for _, v := range []float32{r0[2*i+1], r1[2*i], r1[2*i+1]} {
					if v > m || v != v {
						m = v
					}
				}
				if math.Float32bits(got[i]) != math.Float32bits(m) {
					t.Fatalf("n=%d [%d]: %#x, want %#x (window %v %v %v %v)", n, i, math.Float32bits(got[i]), math.Float32bits(m), r0[2*i], r0[2*i+1], r1[2*i], r1[2*i+1])
				}
			}
		}
	})
}

// max_pool2d 2×2/2 with the vector rows installed is bitwise the op's own
// loop, odd sizes and both thread counts.
func TestMaxPool2dWithVectorRows(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		defer parallel.SetThreads(parallel.Threads())
		defer installKernels()
		installKernels()
		if op.Active().MaxPool2x2Rows32 == nil {
			t.Skip("no vector max pooling on this CPU/build")
		}
		r := rand.New(rand.NewPCG(43, 44))
		def := op.Lookup("max_pool2d")
		a := op.Attrs{"kernel_shape": []int{2, 2}, "strides": []int{2, 2}}
		for _, th := range []int{1, 2} {
			parallel.SetThreads(th)
			for _, s := range [][4]int{{6, 20, 2, 96}, {1, 3, 5, 37}, {2, 2, 8, 64}} {
				x := tensor.New(tensor.Float32, s[:]...)
				for i, v := range x.F32() {
					x.F32()[i] = v + poolValues[r.IntN(len(poolValues))] + float32(r.IntN(4))
				}
				got := op.Call(def, a, x)[0]
				saved := op.Active().MaxPool2x2Rows32
				op.Active().MaxPool2x2Rows32 = nil
				want := op.Call(def, a, x)[0]
				op.Active().MaxPool2x2Rows32 = saved
				for i, w := range want.F32() {
					if g := got.F32()[i]; math.Float32bits(g) != math.Float32bits(w) {
						t.Fatalf("%v, %d threads: [%d] = %v, want %v", s, th, i, g, w)
					}
				}
			}
		}
	})
}

// The vector float64 sum of float32 values agrees with a sequential
// float64 sum (orders differ: within 1e-13 relative of the absolute sum)
// at lengths around the 32-element blocks, and global_avg_pool with it
// installed is within one float32 ulp of the portable kernel.
func TestSumF64AndGlobalAvgPool(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		defer parallel.SetThreads(parallel.Threads())
		defer installKernels()
		installKernels()
		if op.Active().SumF32To64 == nil {
			t.Skip("no vector sum on this CPU/build")
		}
		r := rand.New(rand.NewPCG(45, 46))
		for _, n := range []int{0, 1, 15, 16, 17, 31, 32, 33, 47, 63, 64, 65, 192, 288, 1000} {
			x := make([]float32, n)
			want, abs := 0.0, 0.0
			for i := range x {
				x[i] = float32(r.NormFloat64() * 100)
				want += float64(x[i])
				abs += math.Abs(float64(x[i]))
			}
			if got := op.Active().SumF32To64(x); math.Abs(got-want) > 1e-13*abs {
				t.Fatalf("n=%d: sum %v, want %v", n, got, want)
			}
		}
		gap := op.Lookup("global_avg_pool")
		for _, th := range []int{1, 2} {
			parallel.SetThreads(th)
			x := tensor.Rand(r, tensor.Float32, -1, 1, 6, 40, 3, 97)
			got := op.Call(gap, nil, x)[0].F32()
			saved := op.Active().SumF32To64
			op.Active().SumF32To64 = nil
			want := op.Call(gap, nil, x)[0].F32()
			op.Active().SumF32To64 = saved
			for i := range want {
				if d := math.Float32bits(got[i]) - math.Float32bits(want[i]); d+1 > 2 {
					t.Fatalf("%d threads: plane %d = %v, portable kernel %v", th, i, got[i], want[i])
				}
			}
		}
	})
}
