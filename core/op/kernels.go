package op

import (
	"sync/atomic"

	"paddle/core/parallel"
)

// Kernels is the backend contract: everything a backend can give core/op
// to run faster, as one value. A backend builds a Kernels and Use makes it
// the active set; core/op reads the active set on every call, so a second
// backend (another ISA, int8 kernels, a GPU) plugs in by building its own
// Kernels, without touching this package.
//
// Every field is optional. A nil field, or a kernel that reports false,
// means "no fast path here": core/op runs its own reference code, which is
// always correct and host-only.
type Kernels struct {
	// Name says which backend and level built the set ("cpu avx512"), for messages.
	Name string

	// Ops holds fast kernels of whole ops by op name (the Def's Name).
	Ops map[string]Kernel

	// SGEMM computes the row-major float32 product c = alpha·op(a)·op(b) + beta·c
	// (see the package function SGEMM for the contract); nil: gonum's Sgemm.
	SGEMM func(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int)
	// SGEMMEx is SGEMM followed by the epilogue ep (nil: none), bitwise equal
	// to SGEMM and then ep's steps one by one; nil: exactly those steps.
	SGEMMEx func(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int, ep *GemmEpilogue)
	// GemmLoop is called before a convolution's parallel loop whose tasks
	// goroutines each call SGEMM, and its result when the loop ends; the
	// backend's SGEMM then gives each call its share of the threads
	// (threads/tasks) instead of splitting it again.
	GemmLoop func(tasks int) (end func())
	// ApplyEpilogue runs ep (RowBias nil) on every element of c in place,
	// bitwise as ep.Apply; nil: a parallel scalar loop.
	ApplyEpilogue func(c []float32, ep *GemmEpilogue)
	// DepthwiseEx runs conv2d (out, in, a: conv2d's) when it is a depthwise
	// convolution it takes, with ep (RowBias nil) applied to each output
	// plane while in cache, bitwise conv2d followed by ApplyEpilogue; it
	// reports false, writing nothing, otherwise.
	DepthwiseEx func(out, in []*T, a Attrs, ep *GemmEpilogue) bool
	// Winograd3x3 runs p with Winograd's minimal filtering.
	Winograd3x3 func(p *WinogradConv)
	// Winograd3x3Filter computes the filter gradient of the conv p by the
	// same transforms: p.Wt (OC, C, 3, 3) from p.X and the output gradient
	// p.Y (p.B, p.Ep and p.Adjoint unused).
	Winograd3x3Filter func(p *WinogradConv)
	// Stride2Rows32 sets dst[r·ldd + i] = src[r·lds + 2i] for r < rows,
	// i < n, reading only src[r·lds .. r·lds+2n-2]: the gather that im2col
	// runs for the rows of one tap of a stride-2 float32 conv.
	Stride2Rows32 func(dst []float32, ldd int, src []float32, lds, n, rows int)
	// Interleave2Row32 sets out[2i] = max(a[i]+bias, floor) and out[2i+1]
	// = max(b[i]+bias, floor) (Go's max) for a prefix of i < len(a) and
	// returns its length: the stores of a non-overlapping transposed conv
	// with 2-tap rows (floor −Inf, or 0 for a fused relu).
	Interleave2Row32 func(out, a, b []float32, bias, floor float32) int
	// Stride2Add32 adds src[i] into dst[2i] for i < len(src), touching only
	// those elements of dst: col2im's scatter for stride-2 float32 convs.
	Stride2Add32 func(dst, src []float32)
	// MaxPool2x2Rows32 sets dst[i] to the max of r0[2i], r0[2i+1], r1[2i],
	// r1[2i+1] for i < len(dst), bitwise as maxPool2x2's loop (taken in that
	// order, a later value replaces the max when greater or a NaN).
	MaxPool2x2Rows32 func(dst, r0, r1 []float32)
	// MaxPool2x2GradRows32 is the backward of one output row of
	// MaxPool2x2Rows32: with n = len(dy), it scans each window r0[2i],
	// r0[2i+1], r1[2i], r1[2i+1] as MaxPool2x2Rows32 does and sets d0[2i],
	// d0[2i+1], d1[2i], d1[2i+1] (every one of them, i < n) to 0+dy[i] at the
	// winner and +0 elsewhere: bitwise maxPool2x2's loop on a cleared dx.
	MaxPool2x2GradRows32 func(d0, d1, r0, r1, dy []float32)
	// DWRow3x32 adds d[i] += (w0·s[i] + w1·s[i+1]) + w2·s[i+2] for
	// i < len(d) (len(s) ≥ len(d)+2), bitwise as the Go loop (no fused
	// multiply-add): the interior of the depthwise convolution's 3-wide,
	// stride-1 row (dwRow) and, with the taps reversed, of its adjoint (dwRowT).
	DWRow3x32 func(d, s []float32, w0, w1, w2 float32)
	// SumF32To64 returns the sum of x with every element widened to float64
	// (in any order): global_avg_pool's plane sums.
	SumF32To64 func(x []float32) float64
	// VecRow32 computes one float32 row of add (code '+') or mul ('*')
	// bitwise as core/op's loops, a the first operand of each element's
	// operation and b a row (sb = 1) or one value repeated (sb = 0),
	// reporting false for what it leaves to them.
	VecRow32 func(code byte, o, a, b []float32, sb int) bool
	// Quantize8 sets dst[i] = clamp(roundEven(src[i]/scale) + zero) (uint8,
	// or int8 bits when signed) bitwise as quantize_linear's loop for a
	// prefix of the elements and returns its length; the op's loop does
	// the rest. NaN inputs are out of contract.
	Quantize8 func(dst []byte, src []float32, scale, zero float32, signed bool) int
	// Requantize8 is Quantize8 with a multiply by inv (1/scale rounded
	// once) in place of the division: the int8 ops' requantizing epilogue,
	// bitwise as its loop (requantizeRow).
	Requantize8 func(dst []byte, src []float32, inv, zero float32, signed bool) int
	// DequantRow32 sets v[j] = min(max(x, lo), hi) with x = float32(acc[j]+ib)·m + b
	// (product and sum rounded separately), or with hardswish (lo, hi
	// unused) v[j] = x·min(max(x+3, 0), 6)·(1/6 as float32), bitwise as the int8 ops'
	// epilogue, for a prefix of the elements and returns its length.
	DequantRow32 func(v []float32, acc []int32, ib int32, m, b, lo, hi float32, hardswish bool) int
	// DequantCols32 sets v[j] = float32(acc[j]+ib[j])·m[j] + b[j] (a
	// channel per element: qgemm's float32 outputs; ib or b nil: none;
	// product and sum rounded separately), bitwise as the int8 ops'
	// epilogue, for a prefix of the elements and returns its length.
	DequantCols32 func(v []float32, acc, ib []int32, m, b []float32) int
	// QGEMM8 sets c[i·ldc+j] = Σ_p A[i·lda+p]·B[p·ldb+j] (int32,
	// wrapping) for i < m, j < n, A int8 when aSigned (B uint8) else uint8
	// (B int8): the backend's int8 GEMM on strided operands, which
	// qconv2d's pointwise path calls on column tiles of x in place. pa is
	// A packed by QPackA8 (opaque; nil: packed in the call).
	QGEMM8 func(m, n, k int, a []byte, lda int, aSigned bool, pa any, b []byte, ldb int, c []int32, ldc int)
	// QKernel names the int8 GEMM kernel behind QGEMM8 and matmul_integer
	// (e.g. "avx512-vnni", "avx2", "neon-sdot"; empty: not said), for reports.
	QKernel string
	// QGEMMRows8 is QGEMM8 with B's row p at b[rowOff[p]:][:n] (anywhere
	// in b, in any order): qconv2d multiplies its weights by shifted views
	// of its input this way instead of unrolling the windows. Its packing
	// is fastest where runs of rows (groups of 4) lie evenly spaced.
	QGEMMRows8 func(m, n, k int, a []byte, lda int, aSigned bool, pa any, b []byte, rowOff []int, c []int32, ldc int)
	// QGEMMGroups8 is QGEMM8 with B's k rows interleaved in groups of four,
	// column by column, anywhere in b: B[4g+t, j] = b[groupOff[g]+4j+t]
	// (k a multiple of 4). That is the layout vpdpbusd reads, so the
	// kernel reads B in place without packing it; qconv2d lays out its
	// input so (qshifted). Nil where the level has no such kernel (all but
	// avx512 with VNNI). The kernel reads whole 32-column tiles: a tile
	// whose reads would reach past the end of b is copied out instead, so
	// b holding 31 columns (124 bytes) past the last group's n lets every
	// tile be read in place.
	QGEMMGroups8 func(m, n, k int, a []byte, lda int, aSigned bool, pa any, b []byte, groupOff []int, c []int32, ldc int)
	// Interleave4Bytes8 sets dst[4j+t] = src[t·ld+j] for t < 4 and j in a
	// prefix of the n columns and returns the prefix's length: four
	// channel rows into the dword-interleaved layout of QGEMMGroups8.
	Interleave4Bytes8 func(dst, src []byte, ld, n int) int
	// QPackA8 packs A once for repeated QGEMM8 calls (nil where the level
	// does not pack).
	QPackA8 func(m, k int, a []byte, lda int, aSigned bool) any
	// QWeights7 says that the int8 GEMM runs a faster kernel when the
	// signed operand (the weights) lies in [-64, 63]: 7-bit weights, as
	// `paddle model quantize --reduce-range` writes (AVX2 without VNNI).
	QWeights7 bool
	// QEpilogueRow8 runs the requantizing int8 epilogue of one output
	// channel's row in one pass (QEpilogue8.Row, bitwise) for a prefix of
	// the elements and returns its length.
	QEpilogueRow8 func(dst []byte, acc []int32, p *QEpilogue8) int
	// QDepthwise8 computes the exact int32 accumulators of planes [p0, p1)
	// of the depthwise int8 convolution d, calling done(p, acc) with plane
	// p's OH×OW accumulators (valid during the call) in order; it reports
	// false, having called nothing, for a d it does not take.
	QDepthwise8 func(d *QDepthwise, p0, p1 int, done func(p int, acc []int32)) bool
}

// SetOp installs k as the fast kernel of the op named name.
func (k *Kernels) SetOp(name string, kern Kernel) {
	if k.Ops == nil {
		k.Ops = map[string]Kernel{}
	}
	k.Ops[name] = kern
}

var active atomic.Pointer[Kernels]

func init() { active.Store(&Kernels{Name: "reference"}) }

// Use makes k the kernel set core/op runs on (nil: the reference kernels
// alone) and returns the set it replaces, so a test can restore it.
func Use(k *Kernels) (previous *Kernels) {
	if k == nil {
		k = &Kernels{Name: "reference"}
	}
	return active.Swap(k)
}

// Active returns the kernel set in use; it is never nil.
func Active() *Kernels { return active.Load() }

// SGEMM computes the row-major float32 product c = alpha·op(a)·op(b) + beta·c,
// where op(a) is m×k (a is k×m with leading dimension lda when transA) and
// op(b) is k×n (n×k when transB); c is m×n with leading dimension ldc. When
// beta is 0, c is not read. matmul and the convolutions call it for float32;
// it runs the active backend's kernel, or gonum's Sgemm when there is none.
// float64 products always use gonum's Dgemm.
func SGEMM(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if f := Active().SGEMM; f != nil {
		f(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	gonumSGEMM(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// SGEMMEx is SGEMM followed by the epilogue ep (nil: none), bitwise equal
// to SGEMM and then ep's steps one by one; the active backend may apply ep
// to each tile of C while it is in cache. The convolutions of conv2d_act call it.
func SGEMMEx(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int, ep *GemmEpilogue) {
	if f := Active().SGEMMEx; f != nil {
		f(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, ep)
		return
	}
	SGEMM(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	if ep != nil {
		ep.Apply(c, ldc, m, n)
	}
}

// ApplyEpilogue runs ep, whose RowBias must be nil, on every element of c
// in place, bitwise as ep.Apply: the activation and scale/shift of
// conv2d_act after a convolution that does not go through SGEMMEx
// (depthwise ones).
func ApplyEpilogue(c []float32, ep *GemmEpilogue) {
	if f := Active().ApplyEpilogue; f != nil {
		f(c, ep)
		return
	}
	parallel.For(len(c), 1<<14, func(lo, hi int) { ep.Apply(c[lo:hi], hi-lo, 1, hi-lo) })
}
