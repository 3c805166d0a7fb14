package cpu

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"paddle/core/op"
	"paddle/core/parallel"
	"paddle/core/tensor"
)

// convTErr runs conv_transpose2d's float32 result got against the float64
// conv_transpose2d of the same values: the maximum error normalised as in
// convErr (by Σ|dy|·|w| + |b|, floored at its mean).
func convTErr(got, x, w, b *tensor.Tensor, p op.ConvParams) float64 {
	x64, w64 := x.Cast(tensor.Float64), w.Cast(tensor.Float64)
	var b64, babs *tensor.Tensor
	if b != nil {
		b64 = b.Cast(tensor.Float64)
		babs = op.Abs(b64)
	}
	ref := op.ConvTranspose2D(x64, w64, b64, p).Float64s()
	scale := op.ConvTranspose2D(op.Abs(x64), op.Abs(w64), babs, p).Float64s()
	return normErr(got.Float64s(), ref, scale)
}

// The input gradient of a stride-1 3×3 conv (conv_transpose2d) on Winograd
// against the float64 reference and the im2col path: awkward sizes, every
// pad 0..2 on each side, batches 1..3, bias or none, 1/2/3 threads, the
// portable transforms and tiny tile blocks.
func TestWinogradAdjointMatchesReference(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		defer op.SetWinogradMode(op.SetWinogradMode(op.WinogradOn))
		defer func(old int) { wgBlockFloats = old }(wgBlockFloats)
		defer parallel.SetThreads(parallel.Threads())
		defer func(old bool) { wgVector = old }(wgVector)
		vector := wgVector
		sizes := []int{1, 3, 7, 17, 33}
		chans := []int{1, 3, 17, 64}
		r := rand.New(rand.NewPCG(21, 22))
		worstW, worstI := 0.0, 0.0
		cases := 0
		for hi, h := range sizes {
			for ci, c := range chans {
				for oi, oc := range chans {
					wd := sizes[(hi+2*ci+oi)%len(sizes)]
					if c*oc*h*wd > 64*17*33*33 {
						wd = min(wd, 17)
					}
					pads := []int{cases % 3, (cases / 3) % 3, (cases + 1) % 3, (cases / 2) % 3}
					// dy (N, OC, h, wd) → dx (N, C, h-pt-pb+2, wd-pl-pr+2)
					if h-pads[0]-pads[2]+2 < 1 || wd-pads[1]-pads[3]+2 < 1 {
						continue
					}
					dy := tensor.Rand(r, tensor.Float32, -1, 1, 1+cases%3, oc, h, wd)
					w := tensor.Rand(r, tensor.Float32, -1, 1, oc, c, 3, 3)
					var b *tensor.Tensor
					if cases%2 == 0 {
						b = tensor.Rand(r, tensor.Float32, -1, 1, c)
					}
					p := op.ConvParams{Pads: pads}
					parallel.SetThreads(1 + cases%3)
					wgVector = vector && cases%4 != 1
					wgBlockFloats = 1 << 19
					if cases%3 == 1 {
						wgBlockFloats = 36 * (c + oc) * 3 // blocks of 3 tiles
					}
					name := fmt.Sprintf("dy%v w%v pads%v", dy.Shape(), w.Shape(), pads)
					ew := convTErr(op.ConvTranspose2D(dy, w, b, p), dy, w, b, p)
					op.SetWinogradMode(op.WinogradOff)
					ei := convTErr(op.ConvTranspose2D(dy, w, b, p), dy, w, b, p)
					op.SetWinogradMode(op.WinogradOn)
					if ew > wgTol {
						t.Errorf("%s: Winograd error %.3g > %g (im2col %.3g)", name, ew, wgTol, ei)
					}
					worstW, worstI = max(worstW, ew), max(worstI, ei)
					cases++
				}
			}
		}
		t.Logf("%d convs: max normalised error Winograd %.3g, im2col %.3g", cases, worstW, worstI)
	})
}

// conv2d's VJP (the kernels autograd runs) gives the same input and filter
// gradients on Winograd as on im2col, with the forward and the adjoint transform of
// one weight buffer cached side by side; also on the portable kernels.
func TestWinogradAdjointVJP(t *testing.T) {
	defer op.SetWinogradMode(op.SetWinogradMode(op.WinogradOn))
	defer parallel.SetThreads(parallel.Threads())
	defer func() { _ = SelectKernel("") }()
	def := op.Lookup("conv2d")
	r := rand.New(rand.NewPCG(23, 24))
	for i, c := range []struct {
		x, w []int
		pads []int
	}{
		{[]int{2, 16, 19, 23}, []int{24, 16, 3, 3}, []int{1, 1, 1, 1}},
		{[]int{3, 8, 17, 9}, []int{8, 8, 3, 3}, []int{0, 2, 1, 0}},
		{[]int{1, 33, 7, 33}, []int{17, 33, 3, 3}, []int{2, 2, 2, 2}},
	} {
		for _, kern := range Levels() {
			if err := SelectKernel(kern); err != nil {
				t.Fatal(err)
			}
			parallel.SetThreads(1 + i)
			x := tensor.Rand(r, tensor.Float32, -1, 1, c.x...)
			w := tensor.Rand(r, tensor.Float32, -1, 1, c.w...)
			p := op.ConvParams{Pads: c.pads}
			y := op.Conv2D(x, w, nil, p)
			dy := tensor.Rand(r, tensor.Float32, -1, 1, y.Shape()...)
			grads := func() []*op.T {
				return def.VJP(&op.VJPCtx{In: []*op.T{x, w}, Out: []*op.T{y}, GradOut: []*op.T{dy}, Attrs: p.Attrs()})
			}
			got := grads()
			op.SetWinogradMode(op.WinogradOff)
			want := grads()
			op.SetWinogradMode(op.WinogradOn)
			name := fmt.Sprintf("x%v w%v pads%v kernel %q", c.x, c.w, c.pads, kern)
			if !got[0].Shape().Equal(want[0].Shape()) {
				t.Fatalf("%s: dx %v, want %v", name, got[0].Shape(), want[0].Shape())
			}
			if e := convTErr(got[0], dy, w, nil, op.ConvParams{Pads: c.pads}); e > wgTol {
				t.Errorf("%s: dx error %.3g > %g", name, e, wgTol)
			}
			if d, ok := tensor.MaxDiff(got[0], want[0], 1e-4, 1e-4); !ok {
				t.Errorf("%s: dx differs from im2col by %g", name, d)
			}
			fa := op.Attrs{"pads": c.pads, "kernel_shape": []int{3, 3}}
			if d := filterDiff(got[1], want[1], x, dy, fa); d > wgTol {
				t.Errorf("%s: dw differs from im2col's by %.3g (normalised)", name, d)
			}
			// the forward on the same weights still sees its own transform
			if e := convErr(t, op.Conv2D(x, w, nil, p), x, w, nil, p); e > wgTol {
				t.Errorf("%s: forward after the adjoint: error %.3g", name, e)
			}
		}
	}
}

// Which input gradients go to Winograd: stride-1 3×3 convs with pads ≤ 2,
// one group, float32, and not when PADDLE_WINOGRAD=0.
func TestWinogradAdjointDispatch(t *testing.T) {
	defer op.SetWinogradMode(op.SetWinogradMode(op.WinogradAuto))
	calls := 0
	old := op.Active().Winograd3x3
	op.Active().Winograd3x3 = func(p *op.WinogradConv) {
		if p.Adjoint {
			calls++
		}
		old(p)
	}
	defer func() { op.Active().Winograd3x3 = old }()
	r := rand.New(rand.NewPCG(25, 26))
	for _, c := range []struct {
		dy, w []int
		p     op.ConvParams
		auto  bool
		on    bool
	}{
		{[]int{1, 64, 56, 56}, []int{64, 64, 3, 3}, op.ConvParams{Pads: []int{1, 1, 1, 1}}, true, true},
		{[]int{1, 64, 56, 56}, []int{64, 4, 3, 3}, op.ConvParams{Pads: []int{1, 1, 1, 1}}, false, true}, // dx has 4 channels
		{[]int{1, 64, 8, 8}, []int{64, 64, 3, 3}, op.ConvParams{}, false, true},
		{[]int{1, 64, 30, 30}, []int{64, 64, 3, 3}, op.ConvParams{Pads: []int{3, 3, 3, 3}}, false, false},
		{[]int{1, 64, 30, 30}, []int{64, 64, 3, 3}, op.ConvParams{Strides: []int{2, 2}, Pads: []int{1, 1, 1, 1}}, false, false},
		{[]int{1, 64, 30, 30}, []int{64, 32, 3, 3}, op.ConvParams{Groups: 2}, false, false},
		{[]int{1, 64, 30, 30}, []int{64, 64, 3, 3}, op.ConvParams{Dilations: []int{2, 2}}, false, false},
		{[]int{1, 64, 30, 30}, []int{64, 64, 1, 1}, op.ConvParams{}, false, false},
	} {
		dy := tensor.Rand(r, tensor.Float32, -1, 1, c.dy...)
		w := tensor.Rand(r, tensor.Float32, -1, 1, c.w...)
		for _, m := range []struct {
			mode int
			want bool
		}{{op.WinogradAuto, c.auto}, {op.WinogradOn, c.on}, {op.WinogradOff, false}} {
			op.SetWinogradMode(m.mode)
			calls = 0
			op.ConvTranspose2D(dy, w, nil, c.p)
			if (calls == 1) != m.want {
				t.Errorf("dy%v w%v %+v mode %d: Winograd calls %d, want used=%v", c.dy, c.w, c.p, m.mode, calls, m.want)
			}
		}
	}
	op.SetWinogradMode(op.WinogradOn)
	calls = 0
	op.ConvTranspose2D(tensor.Rand(r, tensor.Float64, -1, 1, 1, 4, 9, 9), tensor.Rand(r, tensor.Float64, -1, 1, 4, 4, 3, 3), nil, op.ConvParams{})
	if calls != 0 {
		t.Errorf("float64 conv_transpose2d went to Winograd")
	}
}
