package cpu

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"paddle/core/op"
	"paddle/core/parallel"
	"paddle/core/tensor"
)

// filterErr is the maximum error of the float32 filter gradient got
// against the float64 one of the same x and dy, normalised by Σ|dy|·|x|
// per weight (floored at its mean, as in convErr).
func filterErr(got, x, dy *tensor.Tensor, a op.Attrs) float64 {
	x64, dy64 := x.Cast(tensor.Float64), dy.Cast(tensor.Float64)
	return filterDiff(got, op.Conv2DFilterGrad(x64, dy64, a), x, dy, a)
}

// filterDiff is filterErr's normalised difference between got and ref.
func filterDiff(got, ref, x, dy *tensor.Tensor, a op.Attrs) float64 {
	x64, dy64 := x.Cast(tensor.Float64), dy.Cast(tensor.Float64)
	scale := op.Conv2DFilterGrad(op.Abs(x64), op.Abs(dy64), a).Float64s()
	return normErr(got.Float64s(), ref.Float64s(), scale)
}

// The filter gradient of a stride-1 3×3 conv on Winograd against the
// float64 reference and the im2col path: awkward sizes, pads 0..3 per
// side, batches 1..3, 1/2/3 threads, the portable shuffles and tiny blocks.
func TestWinogradFilterGradMatchesReference(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		defer op.SetWinogradMode(op.SetWinogradMode(op.WinogradOn))
		defer func(old int) { wgBlockFloats = old }(wgBlockFloats)
		defer func(old int) { wgFilterMinTiles = old }(wgFilterMinTiles)
		defer parallel.SetThreads(parallel.Threads())
		defer func(old bool) { wgVector = old }(wgVector)
		vector := wgVector
		sizes := []int{1, 3, 7, 17, 33}
		chans := []int{1, 3, 17, 64}
		r := rand.New(rand.NewPCG(51, 52))
		worstW, worstI := 0.0, 0.0
		cases := 0
		for hi, h := range sizes {
			for ci, c := range chans {
				for oi, oc := range chans {
					wd := sizes[(hi+ci+2*oi)%len(sizes)]
					if c*oc*h*wd > 64*17*33*33 {
						wd = min(wd, 17)
					}
					pads := []int{cases % 3, (cases / 3) % 4, (cases + 1) % 3, (cases / 2) % 3}
					oh, ow := h+pads[0]+pads[2]-2, wd+pads[1]+pads[3]-2
					if oh < 1 || ow < 1 {
						continue
					}
					n := 1 + cases%3
					x := tensor.Rand(r, tensor.Float32, -1, 1, n, c, h, wd)
					dy := tensor.Rand(r, tensor.Float32, -1, 1, n, oc, oh, ow)
					a := op.Attrs{"pads": pads, "kernel_shape": []int{3, 3}}
					parallel.SetThreads(1 + cases%3)
					wgVector = vector && cases%4 != 1
					wgBlockFloats, wgFilterMinTiles = 1<<19, 64
					if cases%3 == 1 {
						wgBlockFloats, wgFilterMinTiles = 36*(c+oc)*3+16*oc*3, 1 // blocks of 3 tiles
					}
					name := fmt.Sprintf("x%v dy%v pads%v", x.Shape(), dy.Shape(), pads)
					ew := filterErr(op.Conv2DFilterGrad(x, dy, a), x, dy, a)
					op.SetWinogradMode(op.WinogradOff)
					ei := filterErr(op.Conv2DFilterGrad(x, dy, a), x, dy, a)
					op.SetWinogradMode(op.WinogradOn)
					if ew > wgTol {
						t.Errorf("%s: Winograd error %.3g > %g (im2col %.3g)", name, ew, wgTol, ei)
					}
					worstW, worstI = max(worstW, ew), max(worstI, ei)
					cases++
				}
			}
		}
		t.Logf("%d filter gradients: max normalised error Winograd %.3g, im2col %.3g", cases, worstW, worstI)
	})
}

// conv2d's VJP gives the same filter gradient on Winograd as on im2col
// (batch 8 at 56², as in training), also on the portable kernels.
func TestWinogradFilterGradVJP(t *testing.T) {
	defer op.SetWinogradMode(op.SetWinogradMode(op.WinogradOn))
	defer parallel.SetThreads(parallel.Threads())
	defer func() { _ = SelectKernel("") }()
	def := op.Lookup("conv2d")
	r := rand.New(rand.NewPCG(53, 54))
	for i, c := range []struct{ x, w, pads []int }{
		{[]int{8, 16, 56, 56}, []int{16, 16, 3, 3}, []int{1, 1, 1, 1}},
		{[]int{3, 9, 21, 35}, []int{24, 9, 3, 3}, []int{0, 2, 1, 0}},
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
			a := op.Attrs{"pads": c.pads, "kernel_shape": []int{3, 3}}
			if e := filterErr(got[1], x, dy, a); e > wgTol {
				t.Errorf("%s: dw error %.3g > %g", name, e, wgTol)
			}
			if d := filterDiff(got[1], want[1], x, dy, a); d > wgTol {
				t.Errorf("%s: dw differs from im2col's by %.3g (normalised)", name, d)
			}
		}
	}
}
