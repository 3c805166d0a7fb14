package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"paddle/core/op"
	"paddle/core/parallel"
	"paddle/core/tensor"
)

// wgTol bounds Winograd's error, normalised per output element by
// Σ|x|·|w| + |b| (the magnitude a float32 dot product's rounding scales
// with; floored at its mean over the output). F(4,3) amplifies rounding
// through its transforms (their entries reach 8 and 1/24): the measured
// maximum over TestWinogradMatchesReference (printed with -v) is MEASURED,
// against about 3e-7 for the float32 im2col path on the same convs.
const wgTol = 1e-5

// convErr runs conv2d on x, w, b in float32 and returns its maximum
// normalised error against the float64 conv of the same values.
func convErr(t *testing.T, got *tensor.Tensor, x, w, b *tensor.Tensor, p op.ConvParams) float64 {
	t.Helper()
	x64, w64 := x.Cast(tensor.Float64), w.Cast(tensor.Float64)
	var b64, babs *tensor.Tensor
	if b != nil {
		b64 = b.Cast(tensor.Float64)
		babs = op.Abs(b64)
	}
	ref := op.Conv2D(x64, w64, b64, p).Float64s()
	scale := op.Conv2D(op.Abs(x64), op.Abs(w64), babs, p).Float64s()
	return normErr(got.Float64s(), ref, scale)
}

// normErr is the maximum of |got-ref| / scale over the elements (NaN counts
// as infinite); outputs whose window reads mostly padding have a tiny scale
// but share their tile's rounding, so the scale is floored at its mean.
func normErr(got, ref, scale []float64) float64 {
	floor := 0.0
	for _, v := range scale {
		floor += v / float64(len(scale))
	}
	worst := 0.0
	for i := range ref {
		e := math.Abs(got[i]-ref[i]) / max(scale[i], floor, 1e-30)
		if !(e <= worst) { // NaN too
			worst = e
		}
	}
	return worst
}

// Winograd against the float64 reference and the float32 im2col path on
// awkward sizes, pads, channel counts, with and without bias, at 1 and 2
// threads and with tiny tile blocks.
func TestWinogradMatchesReference(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		defer op.SetWinogradMode(op.SetWinogradMode(op.WinogradOn))
		defer func(old int) { wgBlockFloats = old }(wgBlockFloats)
		defer parallel.SetThreads(parallel.Threads())
		defer func(old bool) { wgVector = old }(wgVector)
		vector := wgVector
		sizes := []int{1, 3, 7, 15, 17, 33, 65}
		chans := []int{1, 3, 17, 64}
		r := rand.New(rand.NewPCG(5, 6))
		worstW, worstI := 0.0, 0.0
		cases := 0
		for hi, h := range sizes {
			for ci, c := range chans {
				for oi, oc := range chans {
					wd := sizes[(hi+ci+2*oi)%len(sizes)]
					if c*oc*h*wd > 64*64*33*33 { // keep the test short
						wd = min(wd, 17)
					}
					pad := (hi + ci + oi) % 3
					if h+2*pad < 3 || wd+2*pad < 3 {
						continue
					}
					x := tensor.Rand(r, tensor.Float32, -1, 1, 1+cases%2, c, h, wd)
					w := tensor.Rand(r, tensor.Float32, -1, 1, oc, c, 3, 3)
					var b *tensor.Tensor
					if cases%2 == 0 {
						b = tensor.Rand(r, tensor.Float32, -1, 1, oc)
					}
					p := op.ConvParams{Pads: []int{pad, pad + cases%2, pad, pad}}
					parallel.SetThreads(1 + cases%2)
					wgVector = vector && cases%4 != 1 // the portable transforms too
					wgBlockFloats = 1 << 19
					if cases%3 == 0 {
						wgBlockFloats = 36 * (c + oc) * 3 // blocks of 3 tiles
					}
					name := fmt.Sprintf("x%v w%v pads%v", x.Shape(), w.Shape(), p.Pads)
					got := op.Conv2D(x, w, b, p)
					ew := convErr(t, got, x, w, b, p)
					op.SetWinogradMode(op.WinogradOff)
					ei := convErr(t, op.Conv2D(x, w, b, p), x, w, b, p)
					op.SetWinogradMode(op.WinogradOn)
					if ew > wgTol {
						t.Errorf("%s: Winograd error %.3g > %g (im2col %.3g)", name, ew, wgTol, ei)
					}
					worstW, worstI = max(worstW, ew), max(worstI, ei)
					cases++
				}
			}
		}
		// many channels: the GEMMs' sums are long
		x := tensor.Rand(r, tensor.Float32, -1, 1, 1, 384, 21, 19)
		w := tensor.Rand(r, tensor.Float32, -1, 1, 48, 384, 3, 3)
		p := op.ConvParams{Pads: []int{1, 1, 1, 1}}
		if e := convErr(t, op.Conv2D(x, w, nil, p), x, w, nil, p); e > wgTol {
			t.Errorf("C=384: Winograd error %.3g > %g", e, wgTol)
		} else {
			worstW = max(worstW, e)
		}
		t.Logf("%d convs: max normalised error Winograd %.3g, im2col %.3g", cases+1, worstW, worstI)
	})
}

// The fused path (Conv2DEx: bias, hardswish, scale/shift) on Winograd is
// bitwise conv2d on Winograd followed by the unfused steps, and close to
// the im2col result.
func TestWinogradEpilogue(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		defer op.SetWinogradMode(op.SetWinogradMode(op.WinogradOn))
		conv := op.Lookup("conv2d")
		r := rand.New(rand.NewPCG(7, 8))
		for _, c := range []struct{ x, w []int }{
			{[]int{2, 17, 15, 33}, []int{64, 17, 3, 3}},
			{[]int{1, 3, 7, 7}, []int{17, 3, 3, 3}},
			{[]int{3, 17, 6, 7}, []int{9, 17, 3, 3}}, // one block spans the images
		} {
			x := tensor.Rand(r, tensor.Float32, -2, 2, c.x...)
			w := tensor.Rand(r, tensor.Float32, -1, 1, c.w...)
			for _, bias := range []bool{false, true} {
				in := []*op.T{x, w}
				if bias {
					in = append(in, tensor.Rand(r, tensor.Float32, -3, 3, c.w[0]))
				}
				attrs := op.Attrs{"pads": []int{1, 1, 1, 1}}
				for _, act := range []op.GemmAct{op.GemmActNone, op.GemmActHardSwish} {
					for _, affine := range []bool{false, true} {
						want := op.Call(conv, attrs, in...)[0]
						if act == op.GemmActHardSwish {
							want = op.Hardswish(want)
						}
						if affine {
							want = op.Add(op.Mul(want, tensor.Scalar(float32(0.37))), tensor.Scalar(float32(-0.21)))
						}
						got := tensor.New(tensor.Float32, want.Shape()...)
						if !op.Conv2DEx([]*op.T{got}, in, attrs, act, affine, 0.37, -0.21) {
							t.Fatalf("%v: Conv2DEx declined", c.w)
						}
						name := fmt.Sprintf("w%v bias %v act %d affine %v", c.w, bias, act, affine)
						wv, gv := want.F32(), got.F32()
						for i := range wv {
							if math.Float32bits(wv[i]) != math.Float32bits(gv[i]) {
								t.Fatalf("%s: y[%d] = %v, want %v (unfused)", name, i, gv[i], wv[i])
							}
						}
						op.SetWinogradMode(op.WinogradOff)
						im := tensor.New(tensor.Float32, want.Shape()...)
						op.Conv2DEx([]*op.T{im}, in, attrs, act, affine, 0.37, -0.21)
						op.SetWinogradMode(op.WinogradOn)
						if d, ok := tensor.MaxDiff(got, im, 2e-3, 1e-4); !ok {
							t.Errorf("%s: differs from im2col by %g", name, d)
						}
					}
				}
			}
		}
	})
}

// Changing the weights in place (a training step) must not reuse the
// cached transformed filter.
func TestWinogradFilterCacheSeesNewWeights(t *testing.T) {
	defer op.SetWinogradMode(op.SetWinogradMode(op.WinogradOn))
	r := rand.New(rand.NewPCG(9, 10))
	x := tensor.Rand(r, tensor.Float32, -1, 1, 1, 8, 9, 9)
	w := tensor.Rand(r, tensor.Float32, -1, 1, 4, 8, 3, 3)
	p := op.ConvParams{Pads: []int{1, 1, 1, 1}}
	for step := range 3 {
		got := op.Conv2D(x, w, nil, p)
		if e := convErr(t, got, x, w, nil, p); e > wgTol {
			t.Fatalf("step %d: error %.3g", step, e)
		}
		wv := w.F32()
		wv[step*7] += 0.5 // one weight changes
	}
}

// The rule sends big 3×3 convs to Winograd and leaves other convs alone;
// PADDLE_WINOGRAD's modes override it.
func TestWinogradDispatch(t *testing.T) {
	defer op.SetWinogradMode(op.SetWinogradMode(op.WinogradAuto))
	calls := 0
	old := op.Active().Winograd3x3
	op.Active().Winograd3x3 = func(p *op.WinogradConv) { calls++; old(p) }
	defer func() { op.Active().Winograd3x3 = old }()
	r := rand.New(rand.NewPCG(11, 12))
	for _, c := range []struct {
		x, w []int
		p    op.ConvParams
		auto bool // the rule picks Winograd
		on   bool // eligible at all
	}{
		{[]int{1, 64, 56, 56}, []int{64, 64, 3, 3}, op.ConvParams{Pads: []int{1, 1, 1, 1}}, true, true},
		{[]int{1, 8, 56, 56}, []int{8, 8, 3, 3}, op.ConvParams{Pads: []int{1, 1, 1, 1}}, true, true},
		{[]int{1, 4, 56, 56}, []int{8, 4, 3, 3}, op.ConvParams{Pads: []int{1, 1, 1, 1}}, false, true},
		{[]int{1, 16, 30, 30}, []int{16, 16, 3, 3}, op.ConvParams{Pads: []int{1, 1, 1, 1}}, true, true},  // 64 tiles
		{[]int{1, 16, 28, 30}, []int{16, 16, 3, 3}, op.ConvParams{Pads: []int{1, 1, 1, 1}}, false, true}, // 56 tiles
		{[]int{1, 64, 8, 8}, []int{64, 64, 3, 3}, op.ConvParams{}, false, true},
		{[]int{1, 64, 40, 40}, []int{64, 64, 3, 3}, op.ConvParams{Strides: []int{2, 2}}, false, false},
		{[]int{1, 64, 40, 40}, []int{64, 64, 3, 3}, op.ConvParams{Dilations: []int{2, 2}}, false, false},
		{[]int{1, 64, 40, 40}, []int{64, 32, 3, 3}, op.ConvParams{Groups: 2}, false, false},
		{[]int{1, 64, 40, 40}, []int{64, 64, 1, 1}, op.ConvParams{}, false, false},
	} {
		x := tensor.Rand(r, tensor.Float32, -1, 1, c.x...)
		w := tensor.Rand(r, tensor.Float32, -1, 1, c.w...)
		for _, m := range []struct {
			mode int
			want bool
		}{{op.WinogradAuto, c.auto}, {op.WinogradOn, c.on}, {op.WinogradOff, false}} {
			op.SetWinogradMode(m.mode)
			calls = 0
			op.Conv2D(x, w, nil, c.p)
			if (calls == 1) != m.want {
				t.Errorf("x%v w%v %+v mode %d: Winograd calls %d, want used=%v", c.x, c.w, c.p, m.mode, calls, m.want)
			}
		}
	}
	// float64 never takes it
	op.SetWinogradMode(op.WinogradOn)
	calls = 0
	op.Conv2D(tensor.Rand(r, tensor.Float64, -1, 1, 1, 4, 9, 9), tensor.Rand(r, tensor.Float64, -1, 1, 4, 4, 3, 3), nil, op.ConvParams{})
	if calls != 0 {
		t.Errorf("float64 conv2d went to Winograd")
	}
}
