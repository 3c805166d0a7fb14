//go:build arm64 && !purego

package cpu

import (
	"unsafe"

	"paddle/core/op"
	"paddle/core/parallel"
)

// The activations of neon_arm64.s, n a multiple of 4: reluNEON sets y[i]
// = max(x[i], 0), hardswishNEON bitwise hardswishGo, hardsigmoidNEON
// min(max(alpha·x[i]+beta, 0), 1) with the multiply-add fused (as Go
// compiles that expression on arm64).
//
//go:noescape
func reluNEON(y, x *float32, n int)

//go:noescape
func hardswishNEON(y, x *float32, n int)

//go:noescape
func hardsigmoidNEON(y, x *float32, n int, alpha, beta float32)

// actGrain is the elements per parallel chunk (the reference's grain).
const actGrain = 1 << 14

// relu sets y = max(x, 0): groups of 4 in assembly, the rest in Go.
func relu(y, x []float32) {
	y = y[:len(x)]
	n := len(x) &^ 3
	if n > 0 {
		reluNEON(unsafe.SliceData(y), unsafe.SliceData(x), n)
	}
	for i := n; i < len(x); i++ {
		y[i] = max(x[i], 0)
	}
}

// hardswishVec is the active level's vector hardswish, nil at generic.
func hardswishVec() func(y, x []float32) {
	if curISA() != isaNEON {
		return nil
	}
	return func(y, x []float32) {
		y = y[:len(x)]
		n := len(x) &^ 3
		if n > 0 {
			hardswishNEON(unsafe.SliceData(y), unsafe.SliceData(x), n)
		}
		hardswishGo(y[n:], x[n:])
	}
}

// hardsigmoidVec is the active level's vector hardsigmoid, nil at generic.
func hardsigmoidVec() func(y, x []float32, alpha, beta float32) {
	if curISA() != isaNEON {
		return nil
	}
	return func(y, x []float32, alpha, beta float32) {
		y = y[:len(x)]
		n := len(x) &^ 3
		if n > 0 {
			hardsigmoidNEON(unsafe.SliceData(y), unsafe.SliceData(x), n, alpha, beta)
		}
		for i := n; i < len(x); i++ {
			y[i] = min(max(alpha*x[i]+beta, 0), 1)
		}
	}
}

// actKernels adds the neon level's activation kernels to k (relu,
// hardswish, hardsigmoid); each declines (the reference runs) below it.
func actKernels(k *op.Kernels) {
	k.SetOp("relu", func(out, in []*op.T, _ op.Attrs) bool {
		x, y, ok := f32Pair(out, in)
		if !ok || curISA() != isaNEON {
			return false
		}
		parallel.For(len(x), actGrain, func(lo, hi int) { relu(y[lo:hi], x[lo:hi]) })
		return true
	})
	k.SetOp("hardswish", func(out, in []*op.T, _ op.Attrs) bool {
		f := hardswishVec()
		x, y, ok := f32Pair(out, in)
		if !ok || f == nil {
			return false
		}
		parallel.For(len(x), actGrain, func(lo, hi int) { f(y[lo:hi], x[lo:hi]) })
		return true
	})
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

// epilogueFlat applies e (no biases) to every element of part: relu and
// hardswish alone in NEON at the neon level, anything else in Go.
func epilogueFlat(e *Epilogue, part []float32) {
	if curISA() == isaNEON && !e.Affine {
		switch e.Act {
		case ActRelu:
			relu(part, part)
			return
		case ActHardSwish6:
			hardswishVec()(part, part)
			return
		}
	}
	e.applyGo(part, len(part), 0, 0, 1, len(part))
}
