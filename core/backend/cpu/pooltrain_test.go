package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"paddle/core/op"
	"paddle/core/parallel"
	"paddle/core/tensor"
)

// maxPool2x2GradRef is the backward rule of op's maxPool2x2 loop, as the
// kernels must reproduce it: cleared rows, dy added at each window's winner.
func maxPool2x2GradRef(d0, d1, r0, r1, dy []float32) {
	clear(d0[:2*len(dy)])
	clear(d1[:2*len(dy)])
	for i, g := range dy {
		c := 2 * i
		m, d, at := r0[c], d0, c
		for _, w := range []struct {
			v  float32
			d  []float32
			at int
		}{{r0[c+1], d0, c + 1}, {r1[c], d1, c}, {r1[c+1], d1, c + 1}} {
			if w.v > m || w.v != w.v {
				m, d, at = w.v, w.d, w.at
			}
		}
		d[at] += g
	}
}

// The vector 2×2 max pooling backward rows are bitwise the scalar rule
// (ties, signed zeros, NaN payloads, -0 and NaN gradients), at every length
// around the vector width, and write nothing past 2·len(dy).
func TestMaxPool2x2GradRowsBitwise(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		f := maxPool2x2GradKernel()
		if f == nil {
			t.Skip("no vector max pooling backward at this level")
		}
		r := rand.New(rand.NewPCG(45, 46))
		grads := []float32{1.5, -2, 0, float32(math.Copysign(0, -1)), math.Float32frombits(0x7fc00005)}
		for n := 0; n <= 70; n++ {
			r0, r1, dy := make([]float32, 2*n+1), make([]float32, 2*n+1), make([]float32, n)
			for i := range r0 {
				r0[i], r1[i] = poolValues[r.IntN(len(poolValues))], poolValues[r.IntN(len(poolValues))]
			}
			for i := range dy {
				dy[i] = grads[r.IntN(len(grads))]
			}
			const sentinel = 12345
			got0, got1 := make([]float32, 2*n+1), make([]float32, 2*n+1)
			for i := range got0 {
				got0[i], got1[i] = -7, -7 // stale values the kernel must overwrite
			}
			got0[2*n], got1[2*n] = sentinel, sentinel
			want0, want1 := make([]float32, 2*n), make([]float32, 2*n)
			f(got0, got1, r0, r1, dy)
			maxPool2x2GradRef(want0, want1, r0, r1, dy)
			if got0[2*n] != sentinel || got1[2*n] != sentinel {
				t.Fatalf("n=%d: wrote past 2n", n)
			}
			for i := range want0 {
				if math.Float32bits(got0[i]) != math.Float32bits(want0[i]) || math.Float32bits(got1[i]) != math.Float32bits(want1[i]) {
					t.Fatalf("n=%d [%d]: rows %#x %#x, want %#x %#x (window %v %v %v %v, dy %v)", n, i,
						math.Float32bits(got0[i]), math.Float32bits(got1[i]), math.Float32bits(want0[i]), math.Float32bits(want1[i]),
						r0[i&^1], r0[i|1], r1[i&^1], r1[i|1], dy[i/2])
				}
			}
		}
	})
}

// max_pool2d_grad 2×2/2 with the vector rows installed is bitwise the op's
// own loop (odd heights and widths leave a row and column no window
// covers, which must come out zero), at both thread counts.
func TestMaxPool2dGradWithVectorRows(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		defer parallel.SetThreads(parallel.Threads())
		if op.Active().MaxPool2x2GradRows32 == nil {
			t.Skip("no vector max pooling backward at this level")
		}
		r := rand.New(rand.NewPCG(47, 48))
		def := op.Lookup("max_pool2d_grad")
		a := op.Attrs{"kernel_shape": []int{2, 2}, "strides": []int{2, 2}}
		for _, th := range []int{1, 2} {
			parallel.SetThreads(th)
			for _, s := range [][4]int{{6, 20, 2, 96}, {1, 3, 5, 37}, {2, 2, 8, 64}, {1, 1, 3, 17}} {
				x := tensor.New(tensor.Float32, s[:]...)
				for i := range x.F32() {
					x.F32()[i] = poolValues[r.IntN(len(poolValues))] + float32(r.IntN(4))
				}
				dy := tensor.Rand(r, tensor.Float32, -1, 1, s[0], s[1], s[2]/2, s[3]/2)
				got := op.Call(def, a, x, dy)[0]
				saved := op.Active().MaxPool2x2GradRows32
				op.Active().MaxPool2x2GradRows32 = nil
				want := op.Call(def, a, x, dy)[0]
				op.Active().MaxPool2x2GradRows32 = saved
				for i, w := range want.F32() {
					if g := got.F32()[i]; math.Float32bits(g) != math.Float32bits(w) {
						t.Fatalf("%v, %d threads: [%d] = %v, want %v", s, th, i, g, w)
					}
				}
			}
		}
	})
}

// The float32 max_pool2d gradient at every level is the finite difference
// of Σ maxpool(x)·R: inputs 0.1 apart make the pooling linear within ±h.
func TestMaxPool2dGradFiniteDifference32(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(49, 50))
		a := op.Attrs{"kernel_shape": []int{2, 2}, "strides": []int{2, 2}}
		x := tensor.New(tensor.Float32, 1, 2, 5, 19)
		xs := x.F32()
		for i, p := range r.Perm(len(xs)) {
			xs[i] = float32(p)*0.1 - float32(len(xs))*0.05
		}
		R := tensor.Rand(r, tensor.Float32, -1, 1, 1, 2, 2, 9)
		dx := op.Call(op.Lookup("max_pool2d_grad"), a, x, R)[0].F32()
		loss := func() float64 {
			s := 0.0
			for k, v := range op.Call(op.Lookup("max_pool2d"), a, x)[0].F32() {
				s += float64(v) * float64(R.F32()[k])
			}
			return s
		}
		const h = 0.03
		for i := range xs {
			v := xs[i]
			xs[i] = v + h
			lp := loss()
			xs[i] = v - h
			lm := loss()
			xs[i] = v
			fd := (lp - lm) / (float64(v+h) - float64(v-h))
			if math.Abs(fd-float64(dx[i])) > 1e-4 {
				t.Fatalf("[%d]: gradient %v, finite difference %v", i, dx[i], fd)
			}
		}
	})
}
