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

// expKernels are this processor's vector exp-and-sum kernels by level.
func expKernels() map[string]func(y, x *float32, n int, mx float32) float64 {
	ks := map[string]func(y, x *float32, n int, mx float32) float64{}
	if cpu.X86.HasAVX512F && cpu.X86.HasBMI2 {
		ks["avx512"] = expShiftSumAVX512
	}
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		ks["avx2"] = expShiftSumAVX2
	}
	return ks
}

// The vector exp of each level is within 1 ulp of float32(math.Exp) over
// softmax's range (and 0 for -Inf and below the float32 range), the sum is
// their float64 sum, and nothing past n is written.
func TestExpShiftSum(t *testing.T) {
	ks := expKernels()
	if len(ks) == 0 {
		t.Skip("no AVX2")
	}
	for name, exp := range ks {
		t.Run(name, func(t *testing.T) { testExpShiftSum(t, exp) })
	}
}

func testExpShiftSum(t *testing.T, exp func(y, x *float32, n int, mx float32) float64) {
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
		for _, n := range []int{len(xs), 1, 7, 8, 9, 15, 16, 17, 33} {
			y := make([]float32, n+1)
			sum := exp(unsafe.SliceData(y), unsafe.SliceData(xs), n, mx)
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
	if s := exp(unsafe.SliceData(y), unsafe.SliceData([]float32{float32(math.NaN())}), 1, 0); !math.IsNaN(s) || !math.IsNaN(float64(y[0])) {
		t.Fatalf("exp(NaN) = %v, sum %v", y[0], s)
	}
}

// expShiftSumAVX2's sum is its float64 sum in the order it documents
// (avx2_asm_gen.py): per lane of two float64 vectors over the 8-float
// vectors in order, then the lanes pairwise; bitwise, at every length
// around the three-vector main loop.
func TestExpShiftSumAVX2Order(t *testing.T) {
	if !cpu.X86.HasAVX2 || !cpu.X86.HasFMA {
		t.Skip("no AVX2")
	}
	r := rand.New(rand.NewPCG(13, 14))
	x := make([]float32, 1000)
	for i := range x {
		x[i] = -float32(r.Float64()) * 30
	}
	for n := 1; n <= len(x); n++ {
		if n > 100 && n%97 != 0 && n != len(x) {
			continue
		}
		y := make([]float32, n)
		got := expShiftSumAVX2(unsafe.SliceData(y), unsafe.SliceData(x), n, 0)
		var lo, hi [4]float64
		for v := 0; v*8 < n; v++ {
			for j := range 4 {
				if i := 8*v + j; i < n {
					lo[j] += float64(y[i])
				}
				if i := 8*v + 4 + j; i < n {
					hi[j] += float64(y[i])
				}
			}
		}
		var s [4]float64
		for j := range s {
			s[j] = lo[j] + hi[j]
		}
		if want := (s[0] + s[2]) + (s[1] + s[3]); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("n=%d: sum %v, want %v", n, got, want)
		}
	}
}

// The avx2 level's exp and sigmoid are bitwise the avx512 level's (the
// same operations, 2^n applied in two exact steps instead of VSCALEFPS),
// at every length around the vector widths, specials included.
func TestExpSigmoidAVX2BitwiseAVX512(t *testing.T) {
	if !cpu.X86.HasAVX512F || !cpu.X86.HasBMI2 {
		t.Skip("no AVX-512 to compare with")
	}
	x := actInputs()
	for i := range 3000 {
		x = append(x, -float32(i)*0.05, float32(i)*0.05)
	}
	neg := make([]float32, len(x))
	for i, v := range x {
		neg[i] = -float32(math.Abs(float64(v)))
	}
	neg = append(neg, float32(math.Inf(-1)), -103.9, -104, -104.1, -87.3, -1e-40)
	for _, n := range []int{1, 7, 8, 9, 16, 17, 31, len(neg)} {
		a, b := make([]float32, n), make([]float32, n)
		sa := expShiftSumAVX2(unsafe.SliceData(a), unsafe.SliceData(neg), n, 0)
		sb := expShiftSumAVX512(unsafe.SliceData(b), unsafe.SliceData(neg), n, 0)
		for i := range a {
			if !sameBits(a[i], b[i]) {
				t.Fatalf("exp(%g): avx2 %g, avx512 %g", neg[i], a[i], b[i])
			}
		}
		if math.Abs(sa-sb) > 1e-12*sb {
			t.Fatalf("n=%d: sums %v and %v", n, sa, sb)
		}
	}
	for _, n := range []int{1, 7, 8, 9, 16, 17, 31, len(x)} {
		a, b := make([]float32, n), make([]float32, n)
		sigmoidAVX2(unsafe.SliceData(a), unsafe.SliceData(x), n)
		sigmoidAVX512(unsafe.SliceData(b), unsafe.SliceData(x), n)
		for i := range a {
			if !sameBits(a[i], b[i]) {
				t.Fatalf("sigmoid(%g): avx2 %g, avx512 %g", x[i], a[i], b[i])
			}
		}
	}
}

// maxF32AVX2 is the row's max for every length up to 80 and every position
// of the max (the 32-wide steps, the 8-wide ones and the masked tail,
// whose lanes past n hold a larger value that must not count), and a NaN
// when any element is NaN, wherever it is.
func TestMaxF32AVX2(t *testing.T) {
	if !cpu.X86.HasAVX2 {
		t.Skip("no AVX2")
	}
	r := rand.New(rand.NewPCG(3, 4))
	buf := make([]float32, 88)
	for n := 1; n <= 80; n++ {
		for at := range n {
			for i := range buf {
				buf[i] = 1e30 // past n: larger than any element
			}
			for i := range n {
				buf[i] = r.Float32()*200 - 300
			}
			buf[at] = -1.5 + float32(at)/1000
			want := buf[0]
			for _, v := range buf[1:n] {
				want = max(want, v)
			}
			if got := maxF32AVX2(&buf[0], n); got != want {
				t.Fatalf("n=%d, max at %d: got %g, want %g", n, at, got, want)
			}
			buf[at] = float32(math.NaN())
			if got := maxF32AVX2(&buf[0], n); !math.IsNaN(float64(got)) {
				t.Fatalf("n=%d, NaN at %d: got %g, want NaN", n, at, got)
			}
		}
	}
	inf := []float32{float32(math.Inf(-1)), float32(math.Inf(-1))}
	if got := maxF32AVX2(&inf[0], 2); !math.IsInf(float64(got), -1) {
		t.Fatalf("max(-Inf, -Inf) = %g", got)
	}
}

// softmaxLast agrees with the reference softmax within 4e-7 relative
// (a few ulp) at every vector level, takes only the last axis, and declines
// float64 (and everything at the generic level).
func TestSoftmaxLast(t *testing.T) {
	forLevels(t, testSoftmaxLast)
}

func testSoftmaxLast(t *testing.T) {
	if Level() == "generic" {
		x := tensor.Rand(rand.New(rand.NewPCG(5, 6)), tensor.Float32, -1, 1, 3, 4)
		if softmaxLast([]*op.T{tensor.New(tensor.Float32, 3, 4)}, []*op.T{x}, op.Attrs{}) {
			t.Fatal("took a softmax at the generic level")
		}
		return
	}
	def := op.Lookup("softmax")
	r := rand.New(rand.NewPCG(5, 6))
	for _, s := range [][]int{{6, 40, 6625}, {3, 7}, {1, 1}, {2, 3, 33}, {5, 9}, {2, 16}} {
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
		// in place (op.Def.InPlace: the runtime passes the input's buffer
		// as the output at its last use): bitwise the out-of-place result
		if !softmaxLast([]*op.T{x}, []*op.T{x}, op.Attrs{"axis": -1}) {
			t.Fatalf("%v: declined in place", s)
		}
		for i, g := range got.F32() {
			if v := x.F32()[i]; math.Float32bits(v) != math.Float32bits(g) {
				t.Fatalf("%v in place: y[%d] = %g, want %g", s, i, v, g)
			}
		}
	}
	// a NaN makes its row NaN, as in the reference; the other rows stay finite
	x := tensor.Rand(r, tensor.Float32, -1, 1, 3, 40)
	x.F32()[40+17] = float32(math.NaN())
	got := tensor.New(tensor.Float32, 3, 40)
	if !softmaxLast([]*op.T{got}, []*op.T{x}, op.Attrs{}) {
		t.Fatal("declined (3, 40)")
	}
	for i, v := range got.F32() {
		if nan := math.IsNaN(float64(v)); nan != (i/40 == 1) {
			t.Fatalf("NaN in row 1: y[%d] = %g", i, v)
		}
	}
	x = tensor.Rand(r, tensor.Float32, -1, 1, 3, 4)
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
