package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"paddle/core/op"
	"paddle/core/tensor"
)

// TestDepthwiseKernel compares the vector depthwise conv2d with conv2d's
// reference kernel (float64) on awkward sizes, pads, kernels and biases, and
// checks that it declines what it does not handle.
func TestDepthwiseKernel(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		k := depthwiseKernel()
		if k == nil {
			t.Skip("no vector depthwise kernel on this CPU/build")
		}
		def := op.Lookup("conv2d")
		r := rand.New(rand.NewPCG(3, 5))
		cases := []struct {
			n, c, h, w, kh, kw int
			pads               []int
			bias               bool
			strides            []int
		}{
			{1, 3, 7, 7, 3, 3, []int{1, 1}, true, nil},
			{2, 5, 17, 33, 5, 5, []int{2, 2}, false, nil},
			{1, 4, 9, 70, 3, 3, []int{1, 1, 1, 1}, true, nil},
			{1, 2, 6, 129, 5, 5, []int{2, 2, 2, 2}, true, nil},
			{3, 2, 5, 1, 1, 1, nil, true, nil},
			{1, 3, 12, 65, 3, 5, []int{0, 2, 1, 1}, false, nil},
			{1, 2, 8, 16, 7, 7, []int{3, 3}, true, nil},
			{1, 1, 3, 3, 3, 3, nil, false, nil},
			{1, 2, 5, 63, 3, 3, []int{1, 1}, true, nil},   // avx2: a block of 7 vectors, then 7 masked
			{1, 2, 4, 120, 5, 5, []int{2, 2}, false, nil}, // avx2: 96, then 3 vectors
			{1, 3, 17, 33, 3, 3, []int{1, 1}, true, []int{2, 2}},
			{2, 2, 16, 80, 5, 5, []int{2, 2}, true, []int{2, 2}},
			{1, 2, 15, 131, 3, 3, []int{1, 0, 0, 1}, false, []int{2, 1}},
			{1, 3, 12, 40, 5, 5, []int{2, 2}, true, []int{1, 2}},
			{1, 2, 9, 9, 4, 2, []int{1, 1, 2, 0}, true, []int{2, 2}},
			{1, 1, 6, 6, 1, 1, nil, false, []int{2, 2}},
			// planes shorter than the kernel (cls's 5×5 on 2-3 rows), rows
			// wholly in the padding (bias only)
			{2, 3, 2, 96, 5, 5, []int{2, 2}, true, nil},
			{1, 2, 3, 40, 5, 5, []int{2, 2}, false, []int{2, 1}},
			{1, 2, 1, 20, 3, 3, []int{3, 1, 3, 1}, true, nil},
			{1, 2, 1, 20, 3, 3, []int{3, 1, 3, 1}, false, []int{2, 1}},
		}
		// every row width to 200: each avx2 block size (12 vectors, then
		// 1..11), with and without a masked tail
		for w := 1; w <= 200; w++ {
			cases = append(cases, struct {
				n, c, h, w, kh, kw int
				pads               []int
				bias               bool
				strides            []int
			}{1, 1, 3, w, 3, 3, []int{1, 1}, w%2 == 0, nil})
		}
		for _, cs := range cases {
			name := fmt.Sprintf("%+v", cs)
			x := tensor.Rand(r, tensor.Float64, -1, 1, cs.n, cs.c, cs.h, cs.w)
			w := tensor.Rand(r, tensor.Float64, -1, 1, cs.c, 1, cs.kh, cs.kw)
			in := []*tensor.Tensor{x, w}
			if cs.bias {
				in = append(in, tensor.Rand(r, tensor.Float64, -1, 1, cs.c))
			}
			a := op.Attrs{"groups": cs.c}
			if cs.pads != nil {
				a["pads"] = cs.pads
			}
			if cs.strides != nil {
				a["strides"] = cs.strides
			}
			want := op.Call(def, a, in...)[0] // float64: the reference kernel
			in32 := make([]*tensor.Tensor, len(in))
			for i, v := range in {
				in32[i] = v.Cast(tensor.Float32)
			}
			got := tensor.New(tensor.Float32, want.Shape()...)
			if !k([]*tensor.Tensor{got}, in32, a) {
				t.Fatalf("%s: kernel declined", name)
			}
			g, wv := got.Float64s(), want.Float64s()
			for i := range g {
				if math.Abs(g[i]-wv[i]) > 1e-5*(1+math.Abs(wv[i])) {
					t.Fatalf("%s: y[%d] = %v, want %v", name, i, g[i], wv[i])
				}
			}
		}
		x := tensor.Rand(r, tensor.Float32, -1, 1, 1, 4, 8, 8)
		w := tensor.Rand(r, tensor.Float32, -1, 1, 4, 1, 3, 3)
		for _, a := range []op.Attrs{
			{"groups": 4, "strides": []int{3, 3}},
			{"groups": 4, "dilations": []int{2, 2}},
			{"groups": 4, "auto_pad": "SAME_UPPER"},
		} {
			y := tensor.New(tensor.Float32, 1, 4, 6, 6)
			if k([]*tensor.Tensor{y}, []*tensor.Tensor{x, w}, a) {
				t.Errorf("kernel accepted %v", a)
			}
		}
	})
}

// BenchmarkDepthwise times the PP-OCR-like depthwise shapes (GFLOP/s counts
// 2 FLOPs per tap).
func BenchmarkDepthwise(b *testing.B) {
	def := op.Lookup("conv2d")
	r := rand.New(rand.NewPCG(1, 1))
	// the last two: PP-OCRv4 rec's 5×5 on 12×80 planes and 3×3 on 24×160
	for _, s := range []struct{ c, h, w, k int }{{128, 56, 56, 3}, {192, 60, 60, 5}, {480, 12, 12, 5}, {240, 12, 80, 5}, {64, 24, 160, 3}} {
		x := tensor.Rand(r, tensor.Float32, -1, 1, 1, s.c, s.h, s.w)
		w := tensor.Rand(r, tensor.Float32, -1, 1, s.c, 1, s.k, s.k)
		a := op.Attrs{"groups": s.c, "pads": []int{s.k / 2, s.k / 2}}
		flops := 2 * float64(s.c*s.h*s.w*s.k*s.k)
		for _, impl := range []string{"ref", "kernel"} {
			b.Run(fmt.Sprintf("c%d_%dx%d_k%d/%s", s.c, s.h, s.w, s.k, impl), func(b *testing.B) {
				k := depthwiseKernel()
				if impl == "kernel" && k == nil {
					b.Skip("no vector depthwise kernel at this level")
				}
				y := tensor.New(tensor.Float32, 1, s.c, s.h, s.w)
				for b.Loop() {
					if impl == "ref" {
						def.Ref([]*tensor.Tensor{y}, []*tensor.Tensor{x, w}, a)
					} else {
						k([]*tensor.Tensor{y}, []*tensor.Tensor{x, w}, a)
					}
				}
				b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// TestDepthwiseTransposeKernel compares the depthwise conv_transpose2d
// kernel (conv2d's input gradient) with the reference, and checks it
// declines strides and output padding.
func TestDepthwiseTransposeKernel(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		k := depthwiseTransposeKernel()
		if k == nil {
			t.Skip("no vector depthwise kernel on this CPU/build")
		}
		def := op.Lookup("conv_transpose2d")
		r := rand.New(rand.NewPCG(8, 9))
		for _, cs := range []struct {
			c, h, w, kh, kw int
			pads            []int
			bias            bool
		}{
			{3, 7, 9, 3, 3, []int{1, 1}, true},
			{4, 20, 70, 5, 5, []int{2, 2, 2, 2}, false},
			{2, 5, 33, 5, 3, []int{0, 1, 4, 0}, true},
			{1, 4, 4, 3, 3, nil, false},
		} {
			x := tensor.Rand(r, tensor.Float64, -1, 1, 2, cs.c, cs.h, cs.w)
			w := tensor.Rand(r, tensor.Float64, -1, 1, cs.c, 1, cs.kh, cs.kw)
			in := []*tensor.Tensor{x, w}
			if cs.bias {
				in = append(in, tensor.Rand(r, tensor.Float64, -1, 1, cs.c))
			}
			a := op.Attrs{"groups": cs.c}
			if cs.pads != nil {
				a["pads"] = cs.pads
			}
			want := op.Call(def, a, in...)[0]
			in32 := make([]*tensor.Tensor, len(in))
			for i, v := range in {
				in32[i] = v.Cast(tensor.Float32)
			}
			got := tensor.New(tensor.Float32, want.Shape()...)
			if !k([]*tensor.Tensor{got}, in32, a) {
				t.Fatalf("%+v: kernel declined", cs)
			}
			g, wv := got.Float64s(), want.Float64s()
			for i := range g {
				if math.Abs(g[i]-wv[i]) > 1e-5*(1+math.Abs(wv[i])) {
					t.Fatalf("%+v: y[%d] = %v, want %v", cs, i, g[i], wv[i])
				}
			}
		}
		x := tensor.Rand(r, tensor.Float32, -1, 1, 1, 2, 5, 5)
		w := tensor.Rand(r, tensor.Float32, -1, 1, 2, 1, 3, 3)
		for _, a := range []op.Attrs{
			{"groups": 2, "strides": []int{2, 2}},
			{"groups": 2, "output_padding": []int{1, 1}},
			{"groups": 2, "pads": []int{3, 3}},
		} {
			if k([]*tensor.Tensor{tensor.New(tensor.Float32, 1, 2, 7, 7)}, []*tensor.Tensor{x, w}, a) {
				t.Errorf("kernel accepted %v", a)
			}
		}
	})
}

// TestDepthwiseFilterGradKernel compares the depthwise conv2d_filter_grad
// kernel with the reference (float64) and checks what it declines.
func TestDepthwiseFilterGradKernel(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		k := depthwiseFilterGradKernel()
		if k == nil {
			t.Skip("no vector depthwise kernel on this CPU/build")
		}
		def := op.Lookup("conv2d_filter_grad")
		r := rand.New(rand.NewPCG(10, 11))
		for _, cs := range []struct {
			n, c, h, w, k int
			pads          []int
		}{
			{1, 3, 7, 9, 3, []int{1, 1}},
			{2, 4, 20, 70, 5, []int{2, 2, 2, 2}},
			{3, 2, 6, 33, 3, []int{0, 1, 2, 0}},
			{1, 1, 16, 16, 5, nil},
			{2, 5, 9, 48, 3, []int{1, 1}},
			{1, 2, 5, 5, 3, nil},                // ow 3: only a tail
			{2, 3, 6, 10, 5, []int{1, 1}},       // ow 8: one full block, no tail
			{1, 2, 7, 13, 5, []int{2, 2, 2, 2}}, // ow 13: a block and a tail of 5
		} {
			x := tensor.Rand(r, tensor.Float64, -1, 1, cs.n, cs.c, cs.h, cs.w)
			a := op.Attrs{"groups": cs.c, "kernel_shape": []int{cs.k, cs.k}}
			if cs.pads != nil {
				a["pads"] = cs.pads
			}
			p := []int{0, 0, 0, 0}
			if len(cs.pads) == 2 {
				p = []int{cs.pads[0], cs.pads[1], cs.pads[0], cs.pads[1]}
			} else if len(cs.pads) == 4 {
				p = cs.pads
			}
			oh, ow := cs.h+p[0]+p[2]-cs.k+1, cs.w+p[1]+p[3]-cs.k+1
			dy := tensor.Rand(r, tensor.Float64, -1, 1, cs.n, cs.c, oh, ow)
			want := op.Call(def, a, x, dy)[0]
			got := tensor.New(tensor.Float32, want.Shape()...)
			if !k([]*tensor.Tensor{got}, []*tensor.Tensor{x.Cast(tensor.Float32), dy.Cast(tensor.Float32)}, a) {
				t.Fatalf("%+v: kernel declined", cs)
			}
			g, wv := got.Float64s(), want.Float64s()
			tol := 1e-5 * math.Sqrt(float64(cs.n*oh*ow))
			for i := range g {
				if math.Abs(g[i]-wv[i]) > tol*(1+math.Abs(wv[i])) {
					t.Fatalf("%+v: dw[%d] = %v, want %v", cs, i, g[i], wv[i])
				}
			}
		}
		x := tensor.Rand(r, tensor.Float32, -1, 1, 1, 2, 8, 8)
		for _, a := range []op.Attrs{
			{"groups": 2, "kernel_shape": []int{3, 3}, "strides": []int{2, 2}},
			{"groups": 2, "kernel_shape": []int{7, 7}},
			{"groups": 2, "kernel_shape": []int{3, 5}},
		} {
			dy := tensor.Rand(r, tensor.Float32, -1, 1, 1, 2, 6, 6)
			if k([]*tensor.Tensor{tensor.New(tensor.Float32, 2, 1, 3, 3)}, []*tensor.Tensor{x, dy}, a) {
				t.Errorf("kernel accepted %v", a)
			}
		}
	})
}

// BenchmarkDepthwiseBackward times the depthwise input gradient
// (conv_transpose2d) and filter gradient (conv2d_filter_grad), reference
// kernels against the cpu backend's (batch 8, 2 FLOPs per tap each).
func BenchmarkDepthwiseBackward(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, s := range []struct{ c, h, k int }{{128, 56, 3}, {192, 30, 5}} {
		x := tensor.Rand(r, tensor.Float32, -1, 1, 8, s.c, s.h, s.h)
		w := tensor.Rand(r, tensor.Float32, -1, 1, s.c, 1, s.k, s.k)
		pads := []int{s.k / 2, s.k / 2}
		flops := 2 * float64(8*s.c*s.h*s.h*s.k*s.k)
		for _, c := range []struct {
			op   string
			k    op.Kernel
			in   []*tensor.Tensor
			a    op.Attrs
			outS []int
		}{
			{"conv_transpose2d", depthwiseTransposeKernel(), []*tensor.Tensor{x, w}, op.Attrs{"groups": s.c, "pads": pads}, []int{8, s.c, s.h, s.h}},
			{"conv2d_filter_grad", depthwiseFilterGradKernel(), []*tensor.Tensor{x, x}, op.Attrs{"groups": s.c, "pads": pads, "kernel_shape": []int{s.k, s.k}}, []int{s.c, 1, s.k, s.k}},
		} {
			for _, impl := range []string{"ref", "avx512"} {
				b.Run(fmt.Sprintf("%s/c%d_%dx%d_k%d/%s", c.op, s.c, s.h, s.h, s.k, impl), func(b *testing.B) {
					if impl == "avx512" && c.k == nil {
						b.Skip("no AVX-512")
					}
					y := tensor.New(tensor.Float32, c.outS...)
					def := op.Lookup(c.op)
					for b.Loop() {
						if impl == "ref" {
							def.Ref([]*tensor.Tensor{y}, c.in, c.a)
						} else if !c.k([]*tensor.Tensor{y}, c.in, c.a) {
							b.Fatal("kernel declined")
						}
					}
					b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
				})
			}
		}
	}
}
