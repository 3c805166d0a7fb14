package nn

import (
	"strings"
	"testing"

	"paddle/core/ag"
	"paddle/core/tensor"
)

type layerCase struct {
	Params       map[string]jt
	X, Y, Up, Dx jt
	Grads        map[string]jt
	IDs          jt `json:"ids"`
	DWeight      jt `json:"dweight"`
}

func TestLayersMatchTorch(t *testing.T) {
	var ref map[string]layerCase
	loadJSON(t, "layers_torch.json", &ref)
	mk := func(name string) (Layer, error) {
		switch name {
		case "conv_groups":
			return NewConv2D(ConvOptions{InChannels: 4, OutChannels: 6, KernelSize: []int{3}, Stride: []int{2}, Padding: []int{1}, Groups: 2}, rng())
		case "conv_depthwise":
			return NewDepthwiseConv2D(ConvOptions{InChannels: 4, OutChannels: 8, KernelSize: []int{3, 2}, Padding: []int{1, 0}, Dilation: []int{2, 1}}, rng())
		case "conv_t":
			return NewConvTranspose2D(ConvOptions{InChannels: 4, OutChannels: 6, KernelSize: []int{3}, Stride: []int{2}, Padding: []int{1}, OutputPadding: []int{1}, Groups: 2}, rng())
		case "conv1d":
			return NewConv1D(ConvOptions{InChannels: 4, OutChannels: 5, KernelSize: []int{3}, Stride: []int{2}, Padding: []int{2}}, rng())
		case "maxpool":
			return NewMaxPool2D(PoolOptions{KernelSize: []int{3}, Stride: []int{2}, Padding: []int{1}})
		case "maxpool_ceil":
			return NewMaxPool2D(PoolOptions{KernelSize: []int{2}, CeilMode: true})
		case "avgpool":
			return NewAvgPool2D(PoolOptions{KernelSize: []int{3}, Stride: []int{2}, Padding: []int{1}})
		case "avgpool_incl":
			return NewAvgPool2D(PoolOptions{KernelSize: []int{3}, Stride: []int{2}, Padding: []int{1}, CountIncludePad: true})
		case "adaptive":
			return NewAdaptiveAvgPool2D([]int{2, 4})
		case "up_nearest":
			return NewUpsample(UpsampleOptions{ScaleFactor: []float64{2}})
		case "up_bilinear":
			return NewUpsample(UpsampleOptions{Size: []int{5, 9}, Mode: "bilinear"})
		case "up_bilinear_ac":
			return NewUpsample(UpsampleOptions{ScaleFactor: []float64{1.5}, Mode: "bilinear", AlignCorners: true})
		case "embedding":
			p := 2
			return NewEmbedding(EmbeddingOptions{NumEmbeddings: 6, EmbeddingDim: 3, PaddingIdx: &p}, rng())
		}
		return nil, nil
	}
	if len(ref) != 13 {
		t.Fatalf("%d reference cases, want 13", len(ref))
	}
	for name, c := range ref {
		t.Run(name, func(t *testing.T) {
			l, err := mk(name)
			if err != nil || l == nil {
				t.Fatalf("build %s: %v", name, err)
			}
			ToDType(l, tensor.Float64)
			if c.Params != nil {
				if err := LoadState(l, stateOf(c.Params)); err != nil {
					t.Fatal(err)
				}
			}
			if name == "embedding" {
				y := l.Forward(ag.Const(c.IDs.i64()), true)
				closeTo(t, "output", y.T, c.Y, 1e-12)
				w := tensor.Arange(tensor.Float64, 0, 18, 1).Reshape(2, 3, 3)
				ag.Sum(ag.Mul(y, ag.Const(w)), nil, false).Backward()
				closeTo(t, "dweight", l.Params()[0].V.Grad, c.DWeight, 1e-12)
				return
			}
			x := ag.Param(c.X.t())
			y := l.Forward(x, true)
			closeTo(t, "output", y.T, c.Y, 1e-10)
			if c.Up.Data == nil {
				return
			}
			ag.Sum(ag.Mul(y, c.Up.v()), nil, false).Backward()
			closeTo(t, "dx", x.Grad, c.Dx, 1e-10)
			for _, p := range l.Params() {
				closeTo(t, "grad "+p.Name, p.V.Grad, c.Grads[p.Name], 1e-10)
			}
		})
	}
}

func TestSequentialNamesAndForward(t *testing.T) {
	lin, _ := NewLinear(LinearOptions{In: 3, Out: 4}, rng())
	bn, _ := NewBatchNorm1D(BatchNormOptions{NumFeatures: 4})
	act, err := NewActivation("relu")
	if err != nil {
		t.Fatal(err)
	}
	lin2, _ := NewLinear(LinearOptions{In: 4, Out: 2, NoBias: true}, rng())
	s := NewSequential(lin, bn, act, lin2)
	var names []string
	for _, p := range s.Params() {
		names = append(names, p.Name)
	}
	want := []string{"0.weight", "0.bias", "1.weight", "1.bias", "3.weight"}
	if len(names) != len(want) {
		t.Fatalf("params %v, want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("params %v, want %v", names, want)
		}
	}
	if got := len(s.Buffers()); got != 3 {
		t.Errorf("%d buffers, want 3 (BatchNorm's)", got)
	}
	y := s.Forward(ag.Const(tensor.Randn(rng(), tensor.Float32, 0, 1, 5, 3)), true)
	if !y.Shape().Equal(tensor.Shape{5, 2}) {
		t.Errorf("output %v, want (5, 2)", y.Shape())
	}
	if _, err := NewActivation("bogus"); err == nil || !strings.Contains(err.Error(), "known: relu, relu6, sigmoid, tanh, gelu, gelu_tanh, leaky_relu, hardswish, hardsigmoid, silu, swish, elu, mish, softplus, identity") {
		t.Errorf("unknown activation: %v", err)
	}
	if a, err := NewActivation("hard_sigmoid"); err != nil || a.Name != "hardsigmoid" {
		t.Errorf("hard_sigmoid = %+v, %v", a, err)
	}
	if err := LoadState(s, map[string]*tensor.Tensor{"0.weight": tensor.New(tensor.Float32, 4, 3)}); err == nil {
		t.Error("LoadState accepted a state missing most keys")
	}
}

func TestDropout(t *testing.T) {
	d, _ := NewDropout(DropoutOptions{P: 0.25}, rng())
	x := ag.Param(tensor.Ones(tensor.Float64, 4000))
	y := d.Forward(x, true)
	kept, sum := 0, 0.0
	for _, v := range y.T.F64() {
		if v != 0 {
			kept++
			if v != 1/0.75 {
				t.Fatalf("kept value %v, want 1/0.75", v)
			}
		}
		sum += v
	}
	if kept < 2850 || kept > 3150 { // 3000 ± 5σ (σ ≈ 27)
		t.Errorf("kept %d of 4000 at p=0.25", kept)
	}
	if d.Forward(x, false) != x {
		t.Error("dropout in eval must be the identity")
	}
	ag.Sum(y, nil, false).Backward()
	if g := x.Grad.F64(); (g[0] != 0) != (y.T.F64()[0] != 0) {
		t.Error("gradient does not follow the mask")
	}
}

func TestInit(t *testing.T) {
	w := tensor.New(tensor.Float64, 64, 32, 3, 3)
	if in, out := Fans(w.Shape()); in != 288 || out != 576 {
		t.Fatalf("fans %d %d, want 288 576", in, out)
	}
	std := func(t *tensor.Tensor) (float64, float64) {
		v := t.Float64s()
		m, s := 0.0, 0.0
		for _, x := range v {
			m += x
		}
		m /= float64(len(v))
		for _, x := range v {
			s += (x - m) * (x - m)
		}
		return m, s / float64(len(v))
	}
	tests := []struct {
		name    string
		fill    func()
		wantVar float64
	}{
		{"kaiming-normal-relu", func() { KaimingNormal(rng(), w, 0, FanIn, "relu") }, 2.0 / 288},
		{"kaiming-uniform-fanout", func() { KaimingUniform(rng(), w, 0, FanOut, "relu") }, 2.0 / 576},
		{"xavier-uniform", func() { XavierUniform(rng(), w, 1) }, 2.0 / (288 + 576)},
		{"xavier-normal", func() { XavierNormal(rng(), w, 1) }, 2.0 / (288 + 576)},
		{"default", func() { DefaultInit(rng(), w, nil, 0) }, 1.0 / 3 / 288},                            // U(±1/√fan_in)
		{"truncated", func() { TruncatedNormal(rng(), w, 0, 0.02, -0.04, 0.04) }, 0.02 * 0.02 * 0.7737}, // variance of N truncated at ±2σ
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.fill()
			m, v := std(w)
			if m*m > tt.wantVar/100 || v < tt.wantVar*0.95 || v > tt.wantVar*1.05 {
				t.Errorf("mean %.3g variance %.4g, want 0 and %.4g", m, v, tt.wantVar)
			}
		})
	}
	TruncatedNormal(rng(), w, 0, 1, -0.5, 0.5)
	for _, x := range w.Float64s() {
		if x < -0.5 || x > 0.5 {
			t.Fatalf("truncated normal gave %v outside [-0.5, 0.5]", x)
		}
	}
	if g, _ := Gain("leaky_relu", 0.2); g != 1.3867504905630728 {
		t.Errorf("leaky_relu gain %v", g)
	}
}

func TestCollectSkipsNilParts(t *testing.T) {
	var norm *LayerNorm
	lin, _ := NewLinear(LinearOptions{In: 2, Out: 2, NoBias: true}, rng())
	ps := Collect("fc", lin, "norm", norm, "extra", (*ag.Var)(nil))
	if len(ps) != 1 || ps[0].Name != "fc.weight" {
		t.Errorf("Collect = %v, want only fc.weight", ps)
	}
}

func TestDepthwiseConv2DOptions(t *testing.T) {
	c, err := NewDepthwiseConv2D(ConvOptions{InChannels: 3, KernelSize: []int{3}}, rng())
	if err != nil || !c.Weight.Shape().Equal(tensor.Shape{3, 1, 3, 3}) {
		t.Fatalf("default multiplier: weight %v, err %v; want (3, 1, 3, 3)", c.Weight.Shape(), err)
	}
	if _, err := NewDepthwiseConv2D(ConvOptions{InChannels: 4, OutChannels: 8, KernelSize: []int{3}, Groups: 2}, rng()); err == nil {
		t.Fatal("groups 2 with in_channels 4: want an error")
	}
	if _, err := NewDepthwiseConv2D(ConvOptions{InChannels: 4, OutChannels: 6, KernelSize: []int{3}}, rng()); err == nil {
		t.Fatal("out_channels 6 not a multiple of in_channels 4: want an error")
	}
}
