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
}

// max_pool2d 2×2/2 with the vector rows installed is bitwise the op's own
// loop, odd sizes and both thread counts.
func TestMaxPool2dWithVectorRows(t *testing.T) {
	defer parallel.SetThreads(parallel.Threads())
	defer installKernels()
	installKernels()
	if op.MaxPool2x2Rows32 == nil {
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
			saved := op.MaxPool2x2Rows32
			op.MaxPool2x2Rows32 = nil
			want := op.Call(def, a, x)[0]
			op.MaxPool2x2Rows32 = saved
			for i, w := range want.F32() {
				if g := got.F32()[i]; math.Float32bits(g) != math.Float32bits(w) {
					t.Fatalf("%v, %d threads: [%d] = %v, want %v", s, th, i, g, w)
				}
			}
		}
	}
}
