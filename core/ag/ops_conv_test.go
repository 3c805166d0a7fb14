package ag

import (
	"math"
	"math/rand/v2"
	"testing"

	"paddle/core/op"
	"paddle/core/tensor"
)

// A small conv net's gradients, end to end through the wrappers, against
// central differences (float64): this checks that every wrapper passes its
// inputs in the order its op's VJP expects.
func TestConvNetGradients(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	rnd := func(shape ...int) *Var { return Param(tensor.Rand(r, tensor.Float64, -1, 1, shape...)) }
	x, w, b := rnd(2, 3, 6, 5), rnd(4, 3, 3, 3), rnd(4)
	dw := rnd(4, 1, 3, 3)
	g, be := rnd(4), rnd(4)
	ln := rnd(4)
	wt := rnd(4, 2, 2, 2)
	w1 := rnd(3, 2, 3)
	up := tensor.Rand(r, tensor.Float64, -1, 1, 2, 2, 6, 6)
	up1 := tensor.Rand(r, tensor.Float64, -1, 1, 2, 3, 5)
	params := []*Var{x, w, b, dw, g, be, ln, wt, w1}
	loss := func() *Var {
		y := Conv2D(x, w, b, op.ConvParams{Pads: []int{1, 1, 1, 1}, Strides: []int{1, 1}})
		y = Conv2D(y, dw, nil, op.ConvParams{Pads: []int{1, 1, 1, 1}, Groups: 4, Dilations: []int{1, 1}})
		y, _, _ = BatchNormTrain(y, g, be, 1e-5)
		y = AvgPool2D(y, op.PoolParams{Kernel: []int{2, 2}, Strides: []int{2, 2}})
		y = Resize(y, op.ResizeParams{Mode: "linear", Sizes: []int{5, 4}})
		y = GroupNorm(y, ln, nil, 2, 1e-5)
		y = LayerNorm(y, nil, nil, -1, 1e-5)
		y = ConvTranspose2D(y, wt, nil, op.ConvParams{Strides: []int{1, 2}, Pads: []int{0, 1, 0, 1}})
		y = Resize(y, op.ResizeParams{Sizes: []int{6, 6}})
		l := Sum(Mul(y, Const(up)), nil, false)
		// Conv1D and InstanceNorm on the side
		z := Conv1D(Reshape(Slice(x, []int{0}, []int{2}, []int{2}, nil), 2, 2, 15), w1, nil, op.ConvParams{Strides: []int{3}, Pads: []int{1, 0}})
		z = Reshape(InstanceNorm(Reshape(z, 2, 3, 5, 1), nil, nil, 1e-5), 2, 3, 5)
		return Add(l, Sum(Mul(z, Const(up1)), nil, false))
	}
	l := loss()
	l.Backward()
	const h = 1e-6
	for pi, p := range params {
		v := p.T.F64()
		gv := p.Grad.F64()
		for i := range v {
			orig := v[i]
			var lp, lm float64
			NoGrad(func() {
				v[i] = orig + h
				lp = loss().Item()
				v[i] = orig - h
				lm = loss().Item()
			})
			v[i] = orig
			num := (lp - lm) / (2 * h)
			if math.Abs(num-gv[i]) > 1e-6+1e-5*math.Abs(num) {
				t.Fatalf("param %d element %d: backward %.8g, numeric %.8g", pi, i, gv[i], num)
			}
		}
	}
}

func TestBatchNormRunningStats(t *testing.T) {
	x := Const(tensor.FromSlice([]float32{1, 3, 5, 7, 0, 2, 4, 10}, 2, 2, 2)) // channel 0: 1 3 0 2, channel 1: 5 7 4 10
	rm, rv := tensor.New(tensor.Float32, 2), tensor.Ones(tensor.Float32, 2)
	y := BatchNorm(x, nil, nil, rm, rv, true, 0.9, 0)
	// batch means 1.5 and 6.5, biased variances 1.25 and 5.25
	wantM, wantV := []float32{0.15, 0.65}, []float32{0.9 + 0.125, 0.9 + 0.525}
	for i := range 2 {
		if math.Abs(float64(rm.F32()[i]-wantM[i])) > 1e-6 || math.Abs(float64(rv.F32()[i]-wantV[i])) > 1e-6 {
			t.Fatalf("running mean %v var %v, want %v %v", rm.F32(), rv.F32(), wantM, wantV)
		}
	}
	// normalised channel 0: (1-1.5)/sqrt(1.25)
	if got, want := y.T.F32()[0], float32(-0.5/math.Sqrt(1.25)); math.Abs(float64(got-want)) > 1e-6 {
		t.Errorf("y[0] = %v, want %v", got, want)
	}
	ev := BatchNorm(x, nil, nil, rm, rv, false, 0.9, 0)
	if got, want := ev.T.F32()[0], float32((1-0.15)/math.Sqrt(1.025)); math.Abs(float64(got-want)) > 1e-6 {
		t.Errorf("eval y[0] = %v, want %v", got, want)
	}
}

func TestDropout(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	x := Param(tensor.Ones(tensor.Float32, 1000))
	if y := Dropout(x, 0.3, false, r); y != x {
		t.Fatal("eval dropout is not the identity")
	}
	y := Dropout(x, 0.3, true, r)
	zeros := 0
	for _, v := range y.T.F32() {
		switch {
		case v == 0:
			zeros++
		case math.Abs(float64(v)-1/0.7) > 1e-6:
			t.Fatalf("kept value %v, want %v", v, 1/0.7)
		}
	}
	if zeros < 240 || zeros > 360 {
		t.Errorf("%d of 1000 dropped at p=0.3", zeros)
	}
	Sum(y, nil, false).Backward()
	for i, g := range x.Grad.F32() {
		if g != y.T.F32()[i] { // d(sum(x·m))/dx = m, and x is ones
			t.Fatalf("grad %v at %d, want the mask %v", g, i, y.T.F32()[i])
		}
	}
}

func TestConv1DMatchesHand(t *testing.T) {
	// [1 2 3 4] * [1 -1], stride 2 → [1-2, 3-4]
	x := Const(tensor.FromSlice([]float64{1, 2, 3, 4}, 1, 1, 4))
	w := Const(tensor.FromSlice([]float64{1, -1}, 1, 1, 2))
	y := Conv1D(x, w, nil, op.ConvParams{Strides: []int{2}})
	if !tensor.AllClose(y.T, tensor.FromSlice([]float64{-1, -1}, 1, 1, 2), 0, 0) {
		t.Errorf("Conv1D = %v", y.T)
	}
}

// SAME padding for conv1d, worked by hand: output ceil(L/s), total padding
// (out-1)·s + (k-1)·d + 1 - L, the odd one at the end (UPPER) or start (LOWER).
func TestConv1DSamePadding(t *testing.T) {
	x := Const(tensor.FromSlice([]float64{1, 2, 3, 4, 5, 6, 7, 8}, 1, 1, 8))
	w := Const(tensor.FromSlice([]float64{1, 10, 100, 1000}, 1, 1, 4))
	tests := []struct {
		name string
		p    op.ConvParams
		want []float64
	}{
		// k=4, s=1: out 8, total pad 3 → UPPER [1, 2]: y[i] = Σ_j w[j]·x[i-1+j]
		{"same_upper", op.ConvParams{AutoPad: "SAME_UPPER"},
			[]float64{3210, 4321, 5432, 6543, 7654, 8765, 876, 87}},
		// LOWER [2, 1]: y[i] = Σ_j w[j]·x[i-2+j]
		{"same_lower", op.ConvParams{AutoPad: "SAME_LOWER"},
			[]float64{2100, 3210, 4321, 5432, 6543, 7654, 8765, 876}},
		// s=3: out 3, total pad (3-1)·3 + 4 - 8 = 2 → [1, 1]: y[i] = Σ_j w[j]·x[3i-1+j]
		{"same_upper_stride3", op.ConvParams{AutoPad: "SAME_UPPER", Strides: []int{3}},
			[]float64{3210, 6543, 876}},
		{"valid", op.ConvParams{AutoPad: "VALID", Strides: []int{3}}, []float64{4321, 7654}},
		{"explicit_symmetric", op.ConvParams{Pads: []int{1}, Strides: []int{3}}, []float64{3210, 6543, 876}},
	}
	for _, tt := range tests {
		y := Conv1D(x, w, nil, tt.p)
		if !tensor.AllClose(y.T, tensor.FromSlice(tt.want, 1, 1, len(tt.want)), 0, 0) {
			t.Errorf("%s: Conv1D = %v, want %v", tt.name, y.T, tt.want)
		}
	}
}
