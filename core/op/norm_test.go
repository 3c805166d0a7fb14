package op_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"paddle/core/op"
	"paddle/core/op/optest"
	"paddle/core/tensor"
)

func convVec(dt tensor.DType, v ...float64) *tensor.Tensor {
	return tensor.FromSlice(v, len(v)).Cast(dt)
}

func TestNormHandValues(t *testing.T) {
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
		// [1 2 3 4]: mean 2.5, variance 1.25
		x := convSeq(dt, 1, 4)
		s5 := 1 / math.Sqrt(1.25)
		convWant(t, "LayerNorm", op.LayerNorm(x, convVec(dt, 2, 2, 2, 2), convVec(dt, 1, 1, 1, 1), -1, 0),
			[]float64{1 - 3*s5, 1 - s5, 1 + s5, 1 + 3*s5}, 1, 4)
		// groups of two: [1 3] and [5 7] each become [-1 1], then channel affine
		g := tensor.FromSlice([]float64{1, 3, 5, 7}, 1, 2, 1, 2).Cast(dt)
		convWant(t, "GroupNorm", op.GroupNorm(g, convVec(dt, 1, 2), convVec(dt, 0, 10), 2, 0), []float64{-1, 1, 8, 12}, 1, 2, 1, 2)
		convWant(t, "InstanceNorm", op.InstanceNorm(g, convVec(dt, 1, 2), convVec(dt, 0, 10), 0), []float64{-1, 1, 8, 12}, 1, 2, 1, 2)
		// one group over all four: mean 4, variance 5
		s := 1 / math.Sqrt(5)
		convWant(t, "GroupNorm 1 group", op.GroupNorm(g, convVec(dt, 1, 1), convVec(dt, 0, 0), 1, 0), []float64{-3 * s, -s, s, 3 * s}, 1, 2, 1, 2)
		// (2 - 1)/sqrt(4)·3 + 0.5 = 2
		convWant(t, "BatchNorm", op.BatchNorm(tensor.Full(dt, 2, 1, 1, 1, 1), convVec(dt, 3), convVec(dt, 0.5), convVec(dt, 1), convVec(dt, 4), 0),
			[]float64{2}, 1, 1, 1, 1)
		// channel 0 over (N, H·W) = {1, 3, 0, 2}: mean 1.5, variance 1.25
		b := tensor.FromSlice([]float64{1, 3, 5, 7, 0, 2, 4, 10}, 2, 2, 2).Cast(dt)
		y, m, v := op.BatchNormTrain(b, convVec(dt, 1, 1), convVec(dt, 0, 0), 0)
		convWant(t, "BatchNormTrain mean", m, []float64{1.5, 6.5}, 2)
		convWant(t, "BatchNormTrain var", v, []float64{1.25, 5.25}, 2)
		convWant(t, "BatchNormTrain y[0]", y.Reshape(8).Slice(0, 0, 1, 1), []float64{-0.5 / math.Sqrt(1.25)}, 1)
	}
}

func TestNormGradientCases(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	rnd := func(lo, hi float64, shape ...int) *tensor.Tensor {
		return tensor.Rand(r, tensor.Float64, lo, hi, shape...)
	}
	cases := []struct {
		name string
		op   string
		in   []*tensor.Tensor
		a    op.Attrs
	}{
		{"layer_norm last axis", "layer_norm", []*tensor.Tensor{rnd(-1, 1, 4, 5), rnd(0.5, 1.5, 5), rnd(-1, 1, 5)}, op.Attrs{"axis": -1}},
		{"layer_norm all axes", "layer_norm", []*tensor.Tensor{rnd(-1, 1, 2, 3), rnd(0.5, 1.5, 2, 3), rnd(-1, 1, 2, 3)}, op.Attrs{"axis": 0}},
		{"group_norm 1 group", "group_norm", []*tensor.Tensor{rnd(-1, 1, 2, 4, 3), rnd(0.5, 1.5, 4), rnd(-1, 1, 4)}, op.Attrs{"groups": 1}},
		{"group_norm rank 2", "group_norm", []*tensor.Tensor{rnd(-1, 1, 3, 4), rnd(0.5, 1.5, 4), rnd(-1, 1, 4)}, op.Attrs{"groups": 2}},
		{"batch_norm_train (N, C)", "batch_norm_train", []*tensor.Tensor{rnd(-1, 1, 5, 3), rnd(0.5, 1.5, 3), rnd(-1, 1, 3)}, op.Attrs{"epsilon": 1e-3}},
		{"instance_norm rank 3", "instance_norm", []*tensor.Tensor{rnd(-1, 1, 2, 3, 5), rnd(0.5, 1.5, 3), rnd(-1, 1, 3)}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			optest.GradCheck(t, op.Lookup(tc.op), tc.in, tc.a, optest.Tol{Abs: 1e-6, Rel: 1e-5})
		})
	}
}

// Many rows split across workers: dscale and dbias are summed from each
// worker's buffer. Compare with sums computed by other ops.
func TestLayerNormGradReducesAcrossWorkers(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	x := tensor.Rand(r, tensor.Float64, -2, 2, 9000, 8)
	dy := tensor.Rand(r, tensor.Float64, -1, 1, 9000, 8)
	scale := tensor.Rand(r, tensor.Float64, 0.5, 1.5, 8)
	g := op.Call(op.Lookup("layer_norm_grad"), op.Attrs{"axis": -1, "epsilon": 1e-5}, x, scale, dy)
	xhat := op.LayerNorm(x, tensor.Ones(tensor.Float64, 8), tensor.New(tensor.Float64, 8), -1, 1e-5)
	if d, ok := tensor.MaxDiff(g[1], op.Sum(op.Mul(dy, xhat), []int{0}, false), 1e-9, 1e-9); !ok {
		t.Errorf("dscale differs from Σ dy·x̂ by %g", d)
	}
	if d, ok := tensor.MaxDiff(g[2], op.Sum(dy, []int{0}, false), 1e-9, 1e-9); !ok {
		t.Errorf("dbias differs from Σ dy by %g", d)
	}
	// float32 agrees with float64
	g32 := op.Call(op.Lookup("layer_norm_grad"), op.Attrs{"axis": -1, "epsilon": 1e-5}, x.Cast(tensor.Float32), scale.Cast(tensor.Float32), dy.Cast(tensor.Float32))
	for i := range g {
		if d, ok := tensor.MaxDiff(g32[i].Cast(tensor.Float64), g[i], 1e-4, 1e-4); !ok {
			t.Errorf("float32 output %d differs by %g", i, d)
		}
	}
}

func TestNormShapeErrors(t *testing.T) {
	x := tensor.New(tensor.Float32, 2, 4, 3)
	p4, p3 := tensor.New(tensor.Float32, 4), tensor.New(tensor.Float32, 3)
	cases := []struct {
		name string
		f    func()
	}{
		{"layer_norm scale shape", func() { op.LayerNorm(x, p4, p3, -1, 1e-5) }},
		{"layer_norm axis", func() { op.LayerNorm(x, p3, p3, 3, 1e-5) }},
		{"group_norm groups", func() { op.GroupNorm(x, p4, p4, 3, 1e-5) }},
		{"batch_norm dtype", func() { op.BatchNorm(x, p4, p4, p4, tensor.New(tensor.Float64, 4), 1e-5) }},
		{"batch_norm_train channels", func() { op.BatchNormTrain(x, p3, p3, 1e-5) }},
		{"instance_norm rank 2", func() { op.InstanceNorm(tensor.New(tensor.Float32, 2, 4), p4, p4, 1e-5) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if _, ok := recover().(*op.ShapeError); !ok {
					t.Errorf("%s: no ShapeError", tc.name)
				}
			}()
			tc.f()
		})
	}
}
