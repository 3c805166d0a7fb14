package op_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"paddle/core/op"
	"paddle/core/op/optest"
	"paddle/core/tensor"
)

// naiveConv is conv2d by its definition, in float64 over At: the oracle for
// the im2col/GEMM and depthwise kernels. pads are explicit [t, l, b, r].
func naiveConv(x, w, b *tensor.Tensor, s, pads, d []int, groups int) *tensor.Tensor {
	n, c, h, wd := x.Dims4()
	oc, cg, kh, kw := w.Dims4()
	oh := (h+pads[0]+pads[2]-(kh-1)*d[0]-1)/s[0] + 1
	ow := (wd+pads[1]+pads[3]-(kw-1)*d[1]-1)/s[1] + 1
	ocg := oc / groups
	y := tensor.New(tensor.Float64, n, oc, oh, ow)
	for ni := range n {
		for o := range oc {
			gi := o / ocg
			for i := range oh {
				for j := range ow {
					acc := 0.0
					if b != nil {
						acc = b.At(o)
					}
					for ci := range cg {
						for u := range kh {
							for v := range kw {
								ih, iw := i*s[0]-pads[0]+u*d[0], j*s[1]-pads[1]+v*d[1]
								if ih >= 0 && ih < h && iw >= 0 && iw < wd {
									acc += x.At(ni, gi*cg+ci, ih, iw) * w.At(o, ci, u, v)
								}
							}
						}
					}
					y.SetAt(acc, ni, o, i, j)
				}
			}
		}
	}
	_ = c
	return y
}

// naiveConvT scatters every input pixel through the kernel (the definition of
// a transposed convolution).
func naiveConvT(x, w, b *tensor.Tensor, s, pads, d, outPad []int, groups int) *tensor.Tensor {
	n, c, h, wd := x.Dims4()
	_, ocg, kh, kw := w.Dims4()
	cg := c / groups
	oh := (h-1)*s[0] - pads[0] - pads[2] + (kh-1)*d[0] + 1 + outPad[0]
	ow := (wd-1)*s[1] - pads[1] - pads[3] + (kw-1)*d[1] + 1 + outPad[1]
	y := tensor.New(tensor.Float64, n, ocg*groups, oh, ow)
	for ni := range n {
		for ci := range c {
			gi := ci / cg
			for i := range h {
				for j := range wd {
					for o := range ocg {
						for u := range kh {
							for v := range kw {
								yh, yw := i*s[0]-pads[0]+u*d[0], j*s[1]-pads[1]+v*d[1]
								if yh >= 0 && yh < oh && yw >= 0 && yw < ow {
									q := []int{ni, gi*ocg + o, yh, yw}
									y.SetAt(y.At(q...)+x.At(ni, ci, i, j)*w.At(ci, o, u, v), q...)
								}
							}
						}
					}
				}
			}
		}
	}
	if b != nil {
		for ni := range n {
			for o := range ocg * groups {
				for i := range oh {
					for j := range ow {
						y.SetAt(y.At(ni, o, i, j)+b.At(o), ni, o, i, j)
					}
				}
			}
		}
	}
	return y
}

type convCase struct {
	name           string
	n, c, h, w, oc int
	kh, kw         int
	p              op.ConvParams
}

var convCases = []convCase{
	{"3x3 pad1", 2, 3, 7, 6, 4, 3, 3, op.ConvParams{Pads: []int{1, 1, 1, 1}}},
	{"stride2 asym pads", 2, 4, 9, 8, 5, 3, 2, op.ConvParams{Strides: []int{2, 2}, Pads: []int{1, 0, 2, 1}}},
	{"dilation2", 1, 3, 9, 9, 2, 3, 3, op.ConvParams{Dilations: []int{2, 2}, Pads: []int{2, 2, 2, 2}}},
	{"groups2", 2, 4, 6, 6, 6, 3, 3, op.ConvParams{Groups: 2, Pads: []int{1, 1, 1, 1}}},
	{"depthwise", 2, 5, 8, 7, 5, 3, 3, op.ConvParams{Groups: 5, Pads: []int{1, 1, 1, 1}}},
	{"depthwise x2 stride2", 1, 3, 9, 8, 6, 5, 5, op.ConvParams{Groups: 3, Strides: []int{2, 2}, Pads: []int{2, 2, 2, 2}}},
	{"depthwise dilated", 1, 4, 9, 9, 4, 3, 3, op.ConvParams{Groups: 4, Dilations: []int{2, 3}, Pads: []int{1, 3, 2, 0}}},
	{"depthwise 3x3 s2 asym", 2, 4, 9, 8, 4, 3, 3, op.ConvParams{Groups: 4, Strides: []int{2, 2}, Pads: []int{0, 1, 1, 0}}},
	{"depthwise 3x3 narrow", 1, 2, 4, 3, 2, 3, 3, op.ConvParams{Groups: 2, Pads: []int{1, 0, 1, 0}}},
	{"pointwise", 2, 6, 5, 4, 3, 1, 1, op.ConvParams{}},
	{"1x1 stride2", 1, 4, 7, 7, 3, 1, 1, op.ConvParams{Strides: []int{2, 2}}},
	{"one channel", 2, 1, 6, 6, 3, 3, 3, op.ConvParams{Strides: []int{1, 2}}},
	{"same_upper", 1, 2, 6, 7, 3, 3, 3, op.ConvParams{AutoPad: "SAME_UPPER", Strides: []int{2, 2}}},
	{"same_lower", 1, 2, 6, 7, 3, 4, 2, op.ConvParams{AutoPad: "SAME_LOWER"}},
}

func TestConv2DMatchesDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, tc := range convCases {
		for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
			t.Run(fmt.Sprintf("%s/%v", tc.name, dt), func(t *testing.T) {
				groups := max(tc.p.Groups, 1)
				x := tensor.Rand(r, dt, -1, 1, tc.n, tc.c, tc.h, tc.w)
				w := tensor.Rand(r, dt, -1, 1, tc.oc, tc.c/groups, tc.kh, tc.kw)
				b := tensor.Rand(r, dt, -1, 1, tc.oc)
				got := op.Conv2D(x, w, b, tc.p)
				pads := tc.p.Pads
				if tc.p.AutoPad != "" { // resolved by hand for these two cases
					pads = map[string][]int{"same_upper": {0, 1, 1, 1}, "same_lower": {2, 1, 1, 0}}[tc.name]
				}
				want := naiveConv(x, w, b, convOnes(tc.p.Strides), convZeros(pads), convOnes(tc.p.Dilations), groups)
				if d, ok := tensor.MaxDiff(got, want, 1e-5, 1e-5); !ok {
					t.Errorf("Conv2D shape %v (want %v), max diff %g", got.Shape(), want.Shape(), d)
				}
			})
		}
	}
}

func TestConvTranspose2DMatchesDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	cases := []struct {
		name        string
		n, c, h, w  int
		ocg, kh, kw int
		p           op.ConvParams
	}{
		{"basic", 2, 3, 4, 5, 2, 3, 3, op.ConvParams{}},
		{"stride2 pad outpad", 1, 4, 5, 4, 3, 3, 3, op.ConvParams{Strides: []int{2, 2}, Pads: []int{1, 1, 1, 1}, OutputPadding: []int{1, 1}}},
		{"groups2 dilated", 2, 4, 4, 4, 3, 2, 3, op.ConvParams{Groups: 2, Dilations: []int{2, 1}, Pads: []int{0, 1, 1, 0}}},
		{"depthwise stride2", 1, 5, 4, 6, 1, 4, 4, op.ConvParams{Groups: 5, Strides: []int{2, 2}, Pads: []int{1, 1, 1, 1}}},
		{"pointwise", 2, 3, 3, 4, 4, 1, 1, op.ConvParams{}},
		{"2x2 stride2", 1, 3, 3, 3, 2, 2, 2, op.ConvParams{Strides: []int{2, 2}}},
		// kernel = stride (no overlap): one output channel from many, row
		// tiles of a larger image, groups, unequal sides; output padding
		// falls back to the accumulating path
		{"2x2 stride2 to one channel", 2, 24, 9, 7, 1, 2, 2, op.ConvParams{Strides: []int{2, 2}}},
		{"2x2 stride2 tiles", 1, 8, 40, 33, 3, 2, 2, op.ConvParams{Strides: []int{2, 2}}},
		{"3x3 stride3 groups2", 2, 4, 5, 4, 3, 3, 3, op.ConvParams{Groups: 2, Strides: []int{3, 3}}},
		{"2x1 stride2x1", 1, 3, 6, 5, 2, 2, 1, op.ConvParams{Strides: []int{2, 1}}},
		{"2x2 stride2 outpad", 1, 3, 4, 4, 2, 2, 2, op.ConvParams{Strides: []int{2, 2}, OutputPadding: []int{1, 1}}},
		{"depthwise 2x2 stride2", 1, 3, 4, 4, 1, 2, 2, op.ConvParams{Groups: 3, Strides: []int{2, 2}}},
	}
	for _, tc := range cases {
		for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
			t.Run(fmt.Sprintf("%s/%v", tc.name, dt), func(t *testing.T) {
				groups := max(tc.p.Groups, 1)
				x := tensor.Rand(r, dt, -1, 1, tc.n, tc.c, tc.h, tc.w)
				w := tensor.Rand(r, dt, -1, 1, tc.c, tc.ocg, tc.kh, tc.kw)
				b := tensor.Rand(r, dt, -1, 1, tc.ocg*groups)
				got := op.ConvTranspose2D(x, w, b, tc.p)
				want := naiveConvT(x, w, b, convOnes(tc.p.Strides), convZeros(tc.p.Pads), convOnes(tc.p.Dilations), convZeros(tc.p.OutputPadding), groups)
				if d, ok := tensor.MaxDiff(got, want, 1e-5, 1e-5); !ok {
					t.Errorf("ConvTranspose2D shape %v (want %v), max diff %g", got.Shape(), want.Shape(), d)
				}
			})
		}
	}
}

func convOnes(v []int) []int {
	if v == nil {
		return []int{1, 1}
	}
	return v
}

func convZeros(v []int) []int {
	switch len(v) {
	case 0:
		return []int{0, 0, 0, 0}
	case 2:
		return []int{v[0], v[1], v[0], v[1]}
	}
	return v
}

// Hand-computed: a 2x2 kernel [[1, 0], [0, -1]] over 1..9 gives x[i,j]-x[i+1,j+1] = -4;
// a transposed conv of [1 2] with ones(2, 2) spreads each pixel over a 2x2 block.
func TestConvHandValues(t *testing.T) {
	x := tensor.FromSlice([]float32{1, 2, 3, 4, 5, 6, 7, 8, 9}, 1, 1, 3, 3)
	w := tensor.FromSlice([]float32{1, 0, 0, -1}, 1, 1, 2, 2)
	got := op.Conv2D(x, w, nil, op.ConvParams{})
	want := tensor.FromSlice([]float32{-4, -4, -4, -4}, 1, 1, 2, 2)
	if !tensor.AllClose(got, want, 0, 0) {
		t.Errorf("Conv2D = %v, want %v", got, want)
	}
	// with pad 1 the corner sees only x[0,0]*(-1) at the top left: y[0,0] = -1
	got = op.Conv2D(x, w, nil, op.ConvParams{Pads: []int{1, 1, 0, 0}})
	want = tensor.FromSlice([]float32{-1, -2, -3, -4, -4, -4, -7, -4, -4}, 1, 1, 3, 3)
	if !tensor.AllClose(got, want, 0, 0) {
		t.Errorf("Conv2D pad = %v, want %v", got, want)
	}
	xt := tensor.FromSlice([]float32{1, 2}, 1, 1, 1, 2)
	got = op.ConvTranspose2D(xt, tensor.Ones(tensor.Float32, 1, 1, 2, 2), nil, op.ConvParams{})
	want = tensor.FromSlice([]float32{1, 3, 2, 1, 3, 2}, 1, 1, 2, 3)
	if !tensor.AllClose(got, want, 0, 0) {
		t.Errorf("ConvTranspose2D = %v, want %v", got, want)
	}
}

// Gradient checks beyond each Def's Sample: the depthwise, pointwise,
// dilated and strided kernels have their own backward code paths.
func TestConvGradientCases(t *testing.T) {
	cases := []struct {
		name   string
		d      string
		xs, ws []int
		bias   int
		a      op.Attrs
	}{
		{"conv stride2 pad", "conv2d", []int{2, 3, 7, 6}, []int{4, 3, 3, 3}, 4, op.Attrs{"strides": []int{2, 2}, "pads": []int{1, 1, 1, 1}}},
		{"conv dilation2", "conv2d", []int{1, 2, 7, 7}, []int{3, 2, 3, 3}, 0, op.Attrs{"dilations": []int{2, 2}, "pads": []int{2, 1, 0, 2}}},
		{"conv depthwise", "conv2d", []int{2, 3, 6, 5}, []int{3, 1, 3, 3}, 3, op.Attrs{"groups": 3, "pads": []int{1, 1, 1, 1}}},
		{"conv depthwise x2 stride2 dil", "conv2d", []int{1, 2, 7, 7}, []int{4, 1, 3, 2}, 4, op.Attrs{"groups": 2, "strides": []int{2, 2}, "dilations": []int{2, 1}, "pads": []int{1, 0, 1, 1}}},
		{"conv depthwise 5x5", "conv2d", []int{1, 2, 7, 8}, []int{2, 1, 5, 5}, 2, op.Attrs{"groups": 2, "pads": []int{2, 2, 2, 1}}},
		{"conv depthwise 5x5 stride2", "conv2d", []int{1, 2, 9, 9}, []int{2, 1, 5, 5}, 0, op.Attrs{"groups": 2, "strides": []int{2, 2}, "pads": []int{2, 2, 2, 2}}},
		{"conv depthwise 3x3 narrow", "conv2d", []int{1, 2, 4, 2}, []int{2, 1, 3, 3}, 0, op.Attrs{"groups": 2, "pads": []int{1, 1, 1, 1}}},
		{"conv pointwise", "conv2d", []int{2, 4, 3, 3}, []int{3, 4, 1, 1}, 3, nil},
		{"conv same_upper", "conv2d", []int{1, 2, 6, 5}, []int{2, 2, 3, 3}, 0, op.Attrs{"auto_pad": "SAME_UPPER", "strides": []int{2, 2}}},
		{"convT depthwise stride2", "conv_transpose2d", []int{1, 3, 3, 4}, []int{3, 1, 3, 3}, 3, op.Attrs{"groups": 3, "strides": []int{2, 2}, "pads": []int{1, 1, 1, 1}, "output_padding": []int{1, 0}}},
		{"convT depthwise 5x5", "conv_transpose2d", []int{1, 2, 5, 6}, []int{2, 1, 5, 5}, 0, op.Attrs{"groups": 2, "pads": []int{2, 1, 2, 1}}},
		{"convT pointwise", "conv_transpose2d", []int{2, 3, 3, 2}, []int{3, 2, 1, 1}, 0, nil},
		{"convT dilated outpad", "conv_transpose2d", []int{1, 2, 3, 3}, []int{2, 2, 2, 2}, 2, op.Attrs{"dilations": []int{3, 1}, "output_padding": []int{2, 0}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(9, 10))
			in := []*tensor.Tensor{tensor.Rand(r, tensor.Float64, -1, 1, tc.xs...), tensor.Rand(r, tensor.Float64, -1, 1, tc.ws...)}
			if tc.bias > 0 {
				in = append(in, tensor.Rand(r, tensor.Float64, -1, 1, tc.bias))
			}
			optest.GradCheck(t, op.Lookup(tc.d), in, tc.a, optest.Tol{Abs: 1e-6, Rel: 1e-5})
		})
	}
}

func TestConvShapeErrors(t *testing.T) {
	x := tensor.New(tensor.Float32, 1, 4, 5, 5)
	cases := []struct {
		name string
		w    *tensor.Tensor
		p    op.ConvParams
	}{
		{"channels", tensor.New(tensor.Float32, 2, 3, 3, 3), op.ConvParams{}},
		{"groups", tensor.New(tensor.Float32, 3, 2, 3, 3), op.ConvParams{Groups: 2}},
		{"too small", tensor.New(tensor.Float32, 2, 4, 7, 7), op.ConvParams{}},
		{"dtype", tensor.New(tensor.Float64, 2, 4, 3, 3), op.ConvParams{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if _, ok := recover().(*op.ShapeError); !ok {
					t.Errorf("Conv2D(%v, %v) did not panic with a ShapeError", x.Shape(), tc.w.Shape())
				}
			}()
			op.Conv2D(x, tc.w, nil, tc.p)
		})
	}
}

func benchConv(b *testing.B, n, c, hw, oc, groups int) {
	r := rand.New(rand.NewPCG(1, 1))
	x := tensor.Rand(r, tensor.Float32, -1, 1, n, c, hw, hw)
	w := tensor.Rand(r, tensor.Float32, -1, 1, oc, c/groups, 3, 3)
	p := op.ConvParams{Pads: []int{1, 1, 1, 1}, Groups: groups}
	flops := 2.0 * float64(n*oc*hw*hw*(c/groups)*9)
	b.ResetTimer()
	for range b.N {
		op.Conv2D(x, w, nil, p)
	}
	b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

func benchConvBackward(b *testing.B, n, c, hw, oc, groups int) {
	r := rand.New(rand.NewPCG(1, 1))
	x := tensor.Rand(r, tensor.Float32, -1, 1, n, c, hw, hw)
	w := tensor.Rand(r, tensor.Float32, -1, 1, oc, c/groups, 3, 3)
	a := op.ConvParams{Pads: []int{1, 1, 1, 1}, Groups: groups}.Attrs()
	d := op.Lookup("conv2d")
	y := op.Call(d, a, x, w)[0]
	dy := tensor.Rand(r, tensor.Float32, -1, 1, y.Shape()...)
	flops := 4.0 * float64(n*oc*hw*hw*(c/groups)*9) // dx and dw
	b.ResetTimer()
	for range b.N {
		d.VJP(&op.VJPCtx{In: []*tensor.Tensor{x, w}, Out: []*tensor.Tensor{y}, GradOut: []*tensor.Tensor{dy}, Attrs: a})
	}
	b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkConv2D3x3Backward is BenchmarkConv2D3x3's dx and dw.
func BenchmarkConv2D3x3Backward(b *testing.B) { benchConvBackward(b, 8, 64, 56, 64, 1) }

// BenchmarkDepthwise3x3Backward is BenchmarkDepthwise3x3's dx and dw.
func BenchmarkDepthwise3x3Backward(b *testing.B) { benchConvBackward(b, 8, 128, 56, 128, 128) }

// BenchmarkConv2D3x3 is a ResNet stage-1 conv: 3x3, 64→64, 56x56, batch 8.
func BenchmarkConv2D3x3(b *testing.B) { benchConv(b, 8, 64, 56, 64, 1) }

// BenchmarkDepthwise3x3 is a MobileNet depthwise conv: 3x3, 128 channels, 56x56, batch 8.
func BenchmarkDepthwise3x3(b *testing.B) { benchConv(b, 8, 128, 56, 128, 128) }

// A pad wider than the input leaves some taps with no valid column at
// all (a 1-wide row with left pad 2 under a 3-wide kernel): im2col and
// col2im skip those taps instead of slicing out of range.
func TestConvPadWiderThanInput(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	for _, c := range []struct{ x, pads []int }{
		{[]int{2, 3, 2, 1}, []int{1, 2, 2, 0}},
		{[]int{1, 2, 1, 3}, []int{2, 0, 0, 2}},
		{[]int{1, 2, 1, 1}, []int{2, 2, 2, 2}},
	} {
		x := tensor.Rand(r, tensor.Float64, -1, 1, c.x...)
		w := tensor.Rand(r, tensor.Float64, -1, 1, 4, c.x[1], 3, 3)
		got := op.Conv2D(x, w, nil, op.ConvParams{Pads: c.pads})
		want := naiveConv(x, w, nil, []int{1, 1}, c.pads, []int{1, 1}, 1)
		if d, ok := tensor.MaxDiff(got, want, 1e-12, 1e-12); !ok {
			t.Errorf("conv2d x%v pads%v: differs from the definition by %g", c.x, c.pads, d)
		}
		gotT := op.ConvTranspose2D(got, w, nil, op.ConvParams{Pads: c.pads})
		wantT := naiveConvT(got, w, nil, []int{1, 1}, c.pads, []int{1, 1}, []int{0, 0}, 1)
		if d, ok := tensor.MaxDiff(gotT, wantT, 1e-12, 1e-12); !ok {
			t.Errorf("conv_transpose2d pads%v: differs from the definition by %g", c.pads, d)
		}
	}
}
