package op_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"paddle/core/op"
	"paddle/core/op/optest"
	"paddle/core/tensor"
)

// tentSample is bilinear sampling with zero padding written as its
// definition: the sum over every pixel of x·max(0, 1−|u−j|)·max(0, 1−|v−i|)
// at pixel coordinate (u, v).
func tentSample(x, grid *tensor.Tensor, ac bool) []float64 {
	xs, gs := x.Shape(), grid.Shape()
	n, c, h, w, oh, ow := xs[0], xs[1], xs[2], xs[3], gs[1], gs[2]
	xv, gv := x.Float64s(), grid.Float64s()
	out := make([]float64, n*c*oh*ow)
	pix := func(g float64, size int) float64 {
		if ac {
			return (g + 1) / 2 * float64(size-1)
		}
		return ((g+1)*float64(size) - 1) / 2
	}
	for b := range n {
		for p := range oh * ow {
			u, v := pix(gv[(b*oh*ow+p)*2], w), pix(gv[(b*oh*ow+p)*2+1], h)
			for ch := range c {
				s := 0.0
				for i := range h {
					for j := range w {
						s += xv[((b*c+ch)*h+i)*w+j] * max(0, 1-math.Abs(u-float64(j))) * max(0, 1-math.Abs(v-float64(i)))
					}
				}
				out[(b*c+ch)*oh*ow+p] = s
			}
		}
	}
	return out
}

func TestGridSampleMatchesTentDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 25))
	for _, ac := range []bool{false, true} {
		for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
			x := tensor.Rand(r, tensor.Float64, -1, 1, 2, 3, 5, 7)
			g := tensor.Rand(r, tensor.Float64, -1.3, 1.3, 2, 4, 6, 2)
			got := op.GridSample(x.Cast(dt), g.Cast(dt), op.GridSampleParams{AlignCorners: ac})
			if s := got.Shape(); s[0] != 2 || s[1] != 3 || s[2] != 4 || s[3] != 6 {
				t.Fatalf("shape %v, want [2 3 4 6]", s)
			}
			want := tentSample(x.Cast(dt).Cast(tensor.Float64), g.Cast(dt).Cast(tensor.Float64), ac)
			tol := 1e-12
			if dt == tensor.Float32 {
				tol = 1e-5
			}
			for i, v := range got.Float64s() {
				if math.Abs(v-want[i]) > tol {
					t.Fatalf("align_corners %v %v: y[%d] = %g, want %g", ac, dt, i, v, want[i])
				}
			}
		}
	}
}

// Hand values: the corners of a 2×2 image with and without align_corners,
// the centre, and a point outside (zeros).
func TestGridSampleHandValues(t *testing.T) {
	x := tensor.FromSlice([]float64{1, 2, 3, 4}, 1, 1, 2, 2)
	g := tensor.FromSlice([]float64{-1, -1, 1, 1, 0, 0, 3, 0, 1, -1}, 1, 1, 5, 2)
	for ac, want := range map[bool][]float64{
		// align_corners: ±1 are the pixel centres
		true: {1, 4, 2.5, 0, 2},
		// otherwise ±1 are the outer edges: a quarter of the corner pixel's weight
		false: {0.25, 1, 2.5, 0, 0.5},
	} {
		got := op.GridSample(x, g, op.GridSampleParams{AlignCorners: ac}).Float64s()
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-12 {
				t.Errorf("align_corners %v: y = %v, want %v", ac, got, want)
				break
			}
		}
	}
}

// The finite-difference check of both gradients, in both coordinate modes
// (the registry-wide check covers align_corners 0 only).
func TestGridSampleGradient(t *testing.T) {
	d := op.Lookup("grid_sample")
	for _, ac := range []bool{false, true} {
		r := rand.New(rand.NewPCG(3, 4))
		in := []*tensor.Tensor{tensor.Rand(r, tensor.Float64, -1, 1, 2, 2, 4, 3), tensor.Rand(r, tensor.Float64, -1.1, 1.1, 2, 3, 2, 2)}
		optest.GradCheck(t, d, in, op.GridSampleParams{AlignCorners: ac}.Attrs(), optest.Tol{Abs: 1e-6, Rel: 1e-5})
	}
}

func TestGridSampleRefusals(t *testing.T) {
	d := op.Lookup("grid_sample")
	x := op.Meta{DType: tensor.Float32, Shape: tensor.Shape{1, 2, 3, 4}}
	for _, tc := range []struct {
		in   []op.Meta
		a    op.Attrs
		want string
	}{
		{[]op.Meta{x, {DType: tensor.Float32, Shape: tensor.Shape{1, 3, 4, 3}}}, nil, "want grid (N=1, OH, OW, 2)"},
		{[]op.Meta{x, {DType: tensor.Float32, Shape: tensor.Shape{2, 3, 4, 2}}}, nil, "want grid (N=1"},
		{[]op.Meta{x, {DType: tensor.Float64, Shape: tensor.Shape{1, 3, 4, 2}}}, nil, "grid is float64"},
		{[]op.Meta{x, {DType: tensor.Float32, Shape: tensor.Shape{1, 3, 4, 2}}}, op.Attrs{"mode": "nearest"}, `mode "nearest"`},
		{[]op.Meta{x, {DType: tensor.Float32, Shape: tensor.Shape{1, 3, 4, 2}}}, op.Attrs{"padding_mode": "border"}, `padding_mode "border"`},
	} {
		if _, err := d.InferMeta(tc.in, tc.a); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v %v: got %v, want an error with %q", tc.in, tc.a, err, tc.want)
		}
	}
}
