//go:build amd64 && !purego

package cpu

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"golang.org/x/sys/cpu"

	"paddle/core/op"
	"paddle/core/tensor"
)

// The AVX2 hardswish is the fallback on CPUs without AVX-512: test it here too.
func TestHardswishAVX2Bitwise(t *testing.T) {
	if !cpu.X86.HasAVX2 {
		t.Skip("no AVX2")
	}
	x := actInputs()
	n := len(x) &^ 7
	y := make([]float32, n)
	hardswishAVX2(unsafe.SliceData(y), unsafe.SliceData(x), n)
	for i, v := range x[:n] {
		if want := v * min(max(v+3, 0), 6) / 6; !sameBits(y[i], want) {
			t.Fatalf("hardswish(%g) = %g, want %g", v, y[i], want)
		}
	}
}

// The vector exp is within 1 ulp of float32(math.Exp) over softmax's range
// (and 0 for -Inf and below the float32 range), and the sum is their float64 sum.
func TestExpShiftSumAVX512(t *testing.T) {
	if !cpu.X86.HasAVX512F || !cpu.X86.HasBMI2 {
		t.Skip("no AVX-512")
	}
	var x []float32
	for i := range 200001 {
		x = append(x, -float32(i)*90/200000)
	}
	x = append(x, float32(math.Inf(-1)), -200, -1e30, 0, float32(math.Copysign(0, -1)), -1e-30)
	for _, mx := range []float32{0, 2.5} {
		xs := make([]float32, len(x))
		for i, v := range x {
			xs[i] = v + mx
		}
		xs[len(xs)-6] = float32(math.Inf(-1))
		for _, n := range []int{len(xs), 1, 15, 17, 33} {
			y := make([]float32, n+1)
			sum := expShiftSumAVX512(unsafe.SliceData(y), unsafe.SliceData(xs), n, mx)
			want := 0.0
			for i, v := range xs[:n] {
				e := math.Exp(float64(v - mx))
				w := float32(e)
				want += float64(y[i])
				if d := int64(math.Float32bits(y[i])) - int64(math.Float32bits(w)); d > 1 || d < -1 {
					t.Fatalf("mx %g: exp(%g) = %g, want %g (%d ulp)", mx, v-mx, y[i], w, d)
				}
			}
			if y[n] != 0 {
				t.Fatalf("n=%d: wrote past the end", n)
			}
			if math.Abs(sum-want) > 1e-12*want {
				t.Fatalf("n=%d: sum %v, want %v", n, sum, want)
			}
		}
	}
	y := make([]float32, 1)
	if s := expShiftSumAVX512(unsafe.SliceData(y), unsafe.SliceData([]float32{float32(math.NaN())}), 1, 0); !math.IsNaN(s) || !math.IsNaN(float64(y[0])) {
		t.Fatalf("exp(NaN) = %v, sum %v", y[0], s)
	}
}

// softmaxLast agrees with the reference softmax within 4e-7 relative
// (a few ulp), takes only the last axis, and declines float64.
func TestSoftmaxLast(t *testing.T) {
	if !cpu.X86.HasAVX512F || !cpu.X86.HasBMI2 {
		t.Skip("no AVX-512")
	}
	def := op.Lookup("softmax")
	r := rand.New(rand.NewPCG(5, 6))
	for _, s := range [][]int{{6, 40, 6625}, {3, 7}, {1, 1}, {2, 3, 33}} {
		x := tensor.Rand(r, tensor.Float32, -20, 20, s...)
		x.F32()[0] = float32(math.Inf(-1))
		want, got := tensor.New(tensor.Float32, s...), tensor.New(tensor.Float32, s...)
		def.Ref([]*op.T{want}, []*op.T{x}, op.Attrs{"axis": -1})
		if !softmaxLast([]*op.T{got}, []*op.T{x}, op.Attrs{"axis": len(s) - 1}) {
			t.Fatalf("%v: declined", s)
		}
		for i, w := range want.F32() {
			if g := got.F32()[i]; math.Abs(float64(g-w)) > 4e-7*float64(w)+1e-30 {
				t.Fatalf("%v: y[%d] = %g, want %g", s, i, g, w)
			}
		}
	}
	x := tensor.Rand(r, tensor.Float32, -1, 1, 3, 4)
	if softmaxLast([]*op.T{tensor.New(tensor.Float32, 3, 4)}, []*op.T{x}, op.Attrs{"axis": 0}) {
		t.Fatal("took axis 0 of 2")
	}
	x64 := tensor.Rand(r, tensor.Float64, -1, 1, 3, 4)
	if softmaxLast([]*op.T{tensor.New(tensor.Float64, 3, 4)}, []*op.T{x64}, op.Attrs{}) {
		t.Fatal("took float64")
	}
}

// The vector op.ApplyEpilogue is bitwise the scalar GemmEpilogue.Apply.
func TestApplyEpilogueVec(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		x := actInputs()
		for _, n := range []int{0, 1, 31, 32, 33, 100, len(x)} {
			for _, ep := range []op.GemmEpilogue{{Act: op.GemmActHardSwish}, {Act: op.GemmActHardSwish, Affine: true, Scale: 0.37, Shift: -0.21}, {Affine: true, Scale: 2, Shift: 1}} {
				got := append([]float32(nil), x[:n]...)
				want := append([]float32(nil), x[:n]...)
				applyEpilogueVec(got, &ep)
				ep.Apply(want, n, 1, n)
				for i := range want {
					if !sameBits(got[i], want[i]) {
						t.Fatalf("n=%d %+v: y[%d] = %g, want %g (x %g)", n, ep, i, got[i], want[i], x[i])
					}
				}
			}
		}
	})
}
