package nn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"paddle/core/tensor"
)

// Initialisers fill a parameter tensor in place from an explicit *rand.Rand,
// with PyTorch's formulas (torch.nn.init).

// FanMode selects which fan Kaiming initialisation preserves.
type FanMode int

// The fan modes.
const (
	FanIn  FanMode = iota // preserve the forward activations' variance
	FanOut                // preserve the backward gradients' variance
)

// Fans returns fan_in and fan_out of a weight shape laid out as
// (out, in, k...): fan_in = in·Πk, fan_out = out·Πk (a rank-1 shape has
// fan_in = fan_out = its length).
func Fans(s tensor.Shape) (fanIn, fanOut int) {
	switch len(s) {
	case 0:
		return 1, 1
	case 1:
		return s[0], s[0]
	}
	rf := 1
	for _, d := range s[2:] {
		rf *= d
	}
	return s[1] * rf, s[0] * rf
}

// Gain returns the recommended gain for a nonlinearity ("linear", "conv",
// "sigmoid", "tanh", "relu", "leaky_relu" with negative slope a, "selu").
func Gain(nonlinearity string, a float64) (float64, error) {
	switch nonlinearity {
	case "linear", "conv", "conv1d", "conv2d", "conv_transpose2d", "sigmoid", "":
		return 1, nil
	case "tanh":
		return 5.0 / 3, nil
	case "relu":
		return math.Sqrt(2), nil
	case "leaky_relu":
		return math.Sqrt(2 / (1 + a*a)), nil
	case "selu":
		return 0.75, nil
	}
	return 0, fmt.Errorf("unknown nonlinearity %q (known: linear, sigmoid, tanh, relu, leaky_relu, selu)", nonlinearity)
}

func mustGain(nonlinearity string, a float64) float64 {
	g, err := Gain(nonlinearity, a)
	if err != nil {
		panic("nn: " + err.Error()) // a programmer error: the names are fixed in code
	}
	return g
}

func fan(s tensor.Shape, mode FanMode) int {
	in, out := Fans(s)
	if mode == FanOut {
		return out
	}
	return in
}

// Uniform fills t with values drawn uniformly from [lo, hi).
func Uniform(r *rand.Rand, t *tensor.Tensor, lo, hi float64) {
	t.CopyFrom(tensor.Rand(r, t.DType(), lo, hi, t.Shape()...))
}

// Normal fills t with normal values of the given mean and standard deviation.
func Normal(r *rand.Rand, t *tensor.Tensor, mean, std float64) {
	t.CopyFrom(tensor.Randn(r, t.DType(), mean, std, t.Shape()...))
}

// Constant fills t with v.
func Constant(t *tensor.Tensor, v float64) { t.Fill(v) }

// KaimingUniform fills t from U(-b, b) with b = gain·sqrt(3/fan) (He et al.
// 2015, https://arxiv.org/abs/1502.01852); a is leaky_relu's negative slope.
func KaimingUniform(r *rand.Rand, t *tensor.Tensor, a float64, mode FanMode, nonlinearity string) {
	b := mustGain(nonlinearity, a) * math.Sqrt(3/float64(fan(t.Shape(), mode)))
	Uniform(r, t, -b, b)
}

// KaimingNormal fills t from N(0, std²) with std = gain/sqrt(fan).
func KaimingNormal(r *rand.Rand, t *tensor.Tensor, a float64, mode FanMode, nonlinearity string) {
	Normal(r, t, 0, mustGain(nonlinearity, a)/math.Sqrt(float64(fan(t.Shape(), mode))))
}

// XavierUniform fills t from U(-b, b) with b = gain·sqrt(6/(fan_in+fan_out))
// (Glorot & Bengio 2010).
func XavierUniform(r *rand.Rand, t *tensor.Tensor, gain float64) {
	in, out := Fans(t.Shape())
	b := gain * math.Sqrt(6/float64(in+out))
	Uniform(r, t, -b, b)
}

// XavierNormal fills t from N(0, std²) with std = gain·sqrt(2/(fan_in+fan_out)).
func XavierNormal(r *rand.Rand, t *tensor.Tensor, gain float64) {
	in, out := Fans(t.Shape())
	Normal(r, t, 0, gain*math.Sqrt(2/float64(in+out)))
}

// TruncatedNormal fills t from N(mean, std²) restricted to [lo, hi], by
// redrawing values that fall outside (like timm's trunc_normal_, which
// defaults to lo=-2, hi=2 absolute bounds).
func TruncatedNormal(r *rand.Rand, t *tensor.Tensor, mean, std, lo, hi float64) {
	if lo >= hi || hi < mean-6*std || lo > mean+6*std {
		panic(fmt.Sprintf("nn: TruncatedNormal bounds [%g, %g] leave no mass around mean %g", lo, hi, mean))
	}
	vals := make([]float64, t.Len())
	for i := range vals {
		for {
			v := mean + std*r.NormFloat64()
			if v >= lo && v <= hi {
				vals[i] = v
				break
			}
		}
	}
	t.CopyFrom(tensor.FromSlice(vals, t.Shape()...).Cast(t.DType()))
}

// DefaultInit applies PyTorch's default initialisation of Linear and Conv
// layers: weight from kaiming_uniform(a=√5), i.e. U(±1/sqrt(fan_in)), and
// bias (if any) from U(±1/sqrt(fan_in)). fanIn overrides the weight's own
// fan_in when positive (ConvTranspose computes it from the transposed layout).
func DefaultInit(r *rand.Rand, weight, bias *tensor.Tensor, fanIn int) {
	if fanIn <= 0 {
		fanIn, _ = Fans(weight.Shape())
	}
	b := 1 / math.Sqrt(float64(fanIn))
	// kaiming_uniform with a=√5: gain = sqrt(2/(1+5)), bound = gain·sqrt(3/fan_in) = 1/sqrt(fan_in)
	Uniform(r, weight, -b, b)
	if bias != nil {
		Uniform(r, bias, -b, b)
	}
}
