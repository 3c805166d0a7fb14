//go:build amd64 && !purego

package cpu

import (
	"unsafe"

	"paddle/core/op"
	"paddle/core/parallel"
	"paddle/core/tensor"
)

// hardswishAVX512 sets y[i] = hardswish(x[i]) for i < n (y may be x).
//
//go:noescape
func hardswishAVX512(y, x *float32, n int)

// hardswishAVX2 is hardswishAVX512 for n a multiple of 8.
//
//go:noescape
func hardswishAVX2(y, x *float32, n int)

// hardsigmoidAVX512 sets y[i] = min(max(alpha·x[i]+beta, 0), 1) for i < n.
//
//go:noescape
func hardsigmoidAVX512(y, x *float32, n int, alpha, beta float32)

// expShiftSumAVX512 sets y[i] = exp(x[i] - mx) for i < n (within about 1
// ulp for x[i] ≤ mx) and returns their sum, accumulated in float64.
//
//go:noescape
func expShiftSumAVX512(y, x *float32, n int, mx float32) float64

// expShiftSumAVX2 is expShiftSumAVX512 for the avx2 level (avx2_amd64.s):
// the same y, bitwise; the sum in another order.
//
//go:noescape
func expShiftSumAVX2(y, x *float32, n int, mx float32) float64

// maxF32AVX2 returns the largest x[i] for i < n (n ≥ 1), or a NaN when
// some x[i] is NaN (avx2_amd64.s). The avx512 level uses it too: a row's
// max is bound by its loads, not by the vector width.
//
//go:noescape
func maxF32AVX2(x *float32, n int) float32

// expShiftSumVec is the active level's vector exp-and-sum, nil at generic.
func expShiftSumVec() func(y, x *float32, n int, mx float32) float64 {
	switch curISA() {
	case isaAVX512:
		return expShiftSumAVX512
	case isaAVX2:
		return expShiftSumAVX2
	}
	return nil
}

// actGrain is the elements per parallel chunk (the reference's grain).
const actGrain = 1 << 14

// hardswishVec is the active level's vector hardswish, nil at generic.
func hardswishVec() func(y, x []float32) {
	switch curISA() {
	case isaAVX512:
		return func(y, x []float32) {
			if len(x) > 0 {
				hardswishAVX512(unsafe.SliceData(y[:len(x)]), unsafe.SliceData(x), len(x))
			}
		}
	case isaAVX2:
		return func(y, x []float32) {
			y = y[:len(x)]
			n := len(x) &^ 7
			if n > 0 {
				hardswishAVX2(unsafe.SliceData(y), unsafe.SliceData(x), n)
			}
			hardswishGo(y[n:], x[n:])
		}
	}
	return nil
}

// sigmoidAVX512: see act_amd64.s.
//
//go:noescape
func sigmoidAVX512(y, x *float32, n int)

// sigmoidAVX2 is sigmoidAVX512 for the avx2 level, bitwise (avx2_amd64.s).
//
//go:noescape
func sigmoidAVX2(y, x *float32, n int)

// sigmoidKernel is sigmoid's float32 kernel at the avx2 and avx512 levels
// (a vector exp, the same bits at both; within a few ulp of the float64
// reference the op's loop rounds).
func sigmoidKernel(out, in []*op.T, _ op.Attrs) bool {
	x, y, ok := f32Pair(out, in)
	k := sigmoidAVX512
	switch curISA() {
	case isaAVX512:
	case isaAVX2:
		k = sigmoidAVX2
	default:
		return false
	}
	if !ok {
		return false
	}
	parallel.For(len(x), actGrain, func(lo, hi int) {
		if lo < hi {
			k(&y[lo], &x[lo], hi-lo)
		}
	})
	return true
}

// sumF64AVX512: see act_amd64.s.
//
//go:noescape
func sumF64AVX512(x *float32, n int) float64

// sumF64AVX2 is sumF64AVX512 for n a multiple of 16 (avx2_amd64.s).
//
//go:noescape
func sumF64AVX2(x *float32, n int) float64

// sumF64 is op.SumF32To64: blocks of 32 (avx512) or 16 (avx2) in
// assembly, the rest in Go (all of it in Go at the generic level).
func sumF64(x []float32) float64 {
	v, k := 0, sumF64AVX512
	switch curISA() {
	case isaAVX512:
		v = len(x) &^ 31
	case isaAVX2:
		v, k = len(x)&^15, sumF64AVX2
	}
	s := 0.0
	if v > 0 {
		s = k(unsafe.SliceData(x), v)
	}
	for _, e := range x[v:] {
		s += float64(e)
	}
	return s
}

// hardsigmoidAVX2 is hardsigmoidAVX512 for the avx2 level (avx2_amd64.s).
//
//go:noescape
func hardsigmoidAVX2(y, x *float32, n int, alpha, beta float32)

// hardsigmoidVec is the active level's vector hardsigmoid, nil at generic.
func hardsigmoidVec() func(y, x []float32, alpha, beta float32) {
	k := hardsigmoidAVX512
	switch curISA() {
	case isaAVX512:
	case isaAVX2:
		k = hardsigmoidAVX2
	default:
		return nil
	}
	return func(y, x []float32, alpha, beta float32) {
		if len(x) > 0 {
			k(unsafe.SliceData(y[:len(x)]), unsafe.SliceData(x), len(x), alpha, beta)
		}
	}
}

// actKernels adds the vector activation kernels to k; each checks the
// level when called and declines (the reference runs) where the active
// level has no vector code for it.
func actKernels(k *op.Kernels) {
	k.SetOp("hardswish", func(out, in []*op.T, _ op.Attrs) bool {
		f := hardswishVec()
		x, y, ok := f32Pair(out, in)
		if !ok || f == nil {
			return false
		}
		parallel.For(len(x), actGrain, func(lo, hi int) { f(y[lo:hi], x[lo:hi]) })
		return true
	})
	k.SetOp("softmax", softmaxLast)
	k.ApplyEpilogue = applyEpilogueVec
	k.SetOp("relu", reluVec)
	k.SetOp("sigmoid", sigmoidKernel)
	k.SumF32To64 = sumF64
	k.SetOp("hardsigmoid", func(out, in []*op.T, a op.Attrs) bool {
		f := hardsigmoidVec()
		x, y, ok := f32Pair(out, in)
		if !ok || f == nil {
			return false
		}
		al, be := float32(a.Float("alpha", 0.2)), float32(a.Float("beta", 0.5))
		parallel.For(len(x), actGrain, func(lo, hi int) { f(y[lo:hi], x[lo:hi], al, be) })
		return true
	})
}

// softmaxLast is an op.Kernel for float32 softmax over the last axis: the
// reference's steps (max, exp of the shifted row summed in float64, times
// 1/sum) with a vector float32 exp instead of float64 math.Exp, so results
// differ from the reference by about 1 ulp. Other calls return false.
func softmaxLast(out, in []*op.T, a op.Attrs) bool {
	x, y, ok := f32Pair(out, in)
	s := in[0].Shape()
	exp := expShiftSumVec()
	if !ok || len(s) == 0 || exp == nil {
		return false
	}
	ax, err := tensor.NormAxis(a.Int("axis", -1), len(s))
	if err != nil || ax != len(s)-1 || s[ax] == 0 {
		return false
	}
	k := s[ax]
	scale := mulVSAVX2
	if curISA() == isaAVX512 {
		scale = mulVSAVX512
	}
	parallel.For(len(x)/k, max(1, 1<<14/k), func(lo, hi int) {
		for o := lo; o < hi; o++ {
			px, py := unsafe.SliceData(x[o*k:(o+1)*k]), unsafe.SliceData(y[o*k:(o+1)*k])
			r := float32(1 / exp(py, px, k, maxF32AVX2(px, k)))
			scale(py, py, k, r)
		}
	})
	return true
}

// applyEpilogueVec is op.ApplyEpilogue on the SGEMM epilogue's vector
// code (epilogueFlat).
func applyEpilogueVec(c []float32, ep *op.GemmEpilogue) {
	e := Epilogue{Affine: ep.Affine, Scale: ep.Scale, Shift: ep.Shift}
	switch ep.Act {
	case op.GemmActNone:
	case op.GemmActHardSwish:
		e.Act = ActHardSwish6
	case op.GemmActRelu:
		e.Act = ActRelu
	default:
		ep.Apply(c, len(c), 1, len(c))
		return
	}
	if ep.RowBias != nil {
		panic("cpu: ApplyEpilogue with a row bias")
	}
	if len(c) <= actGrain || parallel.Threads() == 1 {
		epilogueFlat(&e, c) // no closure: it and e escaped, ~100 KB a det run
		return
	}
	ec := e
	parallel.For(len(c), actGrain, func(lo, hi int) {
		e := ec
		epilogueFlat(&e, c[lo:hi])
	})
}

// epilogueFlat applies e (no biases) to every element of part: at avx512
// rows of 32, then the rest as one masked row; below, the active
// micro-kernel's epilogue on one row (applyGo where it has none).
func epilogueFlat(e *Epilogue, part []float32) {
	if curISA() != isaAVX512 {
		if k := active.Load(); k.epilogueTile != nil && len(part) > 0 {
			k.epilogueTile(e, part, len(part), 0, 0, 1, len(part))
		} else {
			e.applyGo(part, len(part), 0, 0, 1, len(part))
		}
		return
	}
	if rows := len(part) / 32; rows > 0 {
		epilogueTileAVX512(e, part, 32, 0, 0, rows, 32)
	}
	if rest := len(part) % 32; rest > 0 {
		epilogueTileAVX512(e, part[len(part)-rest:], 32, 0, 0, 1, rest)
	}
}

// reluVec is relu's float32 kernel on the active level's vector epilogue
// (bitwise Go's max(v, 0), as the op's loop): each chunk of x is copied to
// y (unless in place), then rectified in place while in cache.
func reluVec(out, in []*op.T, _ op.Attrs) bool {
	x, y, ok := f32Pair(out, in)
	if !ok || curISA() == isaGeneric {
		return false
	}
	e := Epilogue{Act: ActRelu}
	parallel.For(len(x), actGrain, func(lo, hi int) {
		if lo < hi && &y[lo] != &x[lo] {
			copy(y[lo:hi], x[lo:hi])
		}
		epilogueFlat(&e, y[lo:hi])
	})
	return true
}
