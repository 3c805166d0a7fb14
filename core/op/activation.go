package op

import (
	"fmt"
	"math"
)

// Activations: sigmoid, tanh, relu6, leaky_relu, elu, hardswish, hardsigmoid,
// softplus, silu, gelu. All are float unary ops with fused backward kernels
// (see math.go); softmax and log_softmax are in softmax.go.

func sigmoid(v float64) float64 {
	if v >= 0 {
		return 1 / (1 + math.Exp(-v))
	}
	e := math.Exp(v) // no overflow for very negative v
	return e / (1 + e)
}

func sigmoidF[E fl](y, x []E, _ uparams) {
	for i, v := range x {
		y[i] = E(sigmoid(float64(v)))
	}
}

// dσ = y(1-y)
func sigmoidB[E fl](dx, _, y, g []E, _ uparams) {
	for i := range dx {
		dx[i] = g[i] * y[i] * (1 - y[i])
	}
}

func tanhF[E fl](y, x []E, _ uparams) {
	for i, v := range x {
		y[i] = E(math.Tanh(float64(v)))
	}
}

// d tanh = 1 - y²
func tanhB[E fl](dx, _, y, g []E, _ uparams) {
	for i := range dx {
		dx[i] = g[i] * (1 - y[i]*y[i])
	}
}

func reluF[E fl](y, x []E, _ uparams) {
	for i, v := range x {
		y[i] = max(v, 0)
	}
}

// reluB32 is reluB for float32 without a data-dependent branch: g's bits
// masked by x > 0 (a NaN or non-positive x gives +0, as reluB does).
func reluB32(dx, x, _, g []float32, _ uparams) {
	g = g[:len(x)]
	dx = dx[:len(x)]
	for i, v := range x {
		var m uint32
		if v > 0 {
			m = ^uint32(0)
		}
		dx[i] = math.Float32frombits(math.Float32bits(g[i]) & m)
	}
}

// dx = g·(x > 0)
func reluB[E fl](dx, x, _, g []E, _ uparams) {
	for i, v := range x {
		if v > 0 {
			dx[i] = g[i]
		} else {
			dx[i] = 0
		}
	}
}

func relu6F[E fl](y, x []E, _ uparams) {
	for i, v := range x {
		y[i] = min(max(v, 0), 6)
	}
}

// the gradient passes on 0 < x < 6 (as torch)
func relu6B[E fl](dx, x, _, g []E, _ uparams) {
	for i, v := range x {
		if v > 0 && v < 6 {
			dx[i] = g[i]
		} else {
			dx[i] = 0
		}
	}
}

// leakyReluF: x for x >= 0, alpha·x otherwise (alpha = p.a).
func leakyReluF[E fl](y, x []E, p uparams) {
	al := E(p.a)
	for i, v := range x {
		if v >= 0 {
			y[i] = v
		} else {
			y[i] = al * v
		}
	}
}

func leakyReluB[E fl](dx, x, _, g []E, p uparams) {
	al := E(p.a)
	for i, v := range x {
		if v > 0 {
			dx[i] = g[i]
		} else {
			dx[i] = al * g[i]
		}
	}
}

// eluF: x for x > 0, alpha·(e^x - 1) otherwise.
func eluF[E fl](y, x []E, p uparams) {
	for i, v := range x {
		if v > 0 {
			y[i] = v
		} else {
			y[i] = E(p.a * math.Expm1(float64(v)))
		}
	}
}

// for x <= 0: d/dx alpha(e^x - 1) = alpha·e^x = y + alpha
func eluB[E fl](dx, x, y, g []E, p uparams) {
	al := E(p.a)
	for i, v := range x {
		if v > 0 {
			dx[i] = g[i]
		} else {
			dx[i] = g[i] * (y[i] + al)
		}
	}
}

// hardswishF: x · min(max(x+3, 0), 6) / 6 (ONNX HardSwish, Paddle hardswish).
func hardswishF[E fl](y, x []E, _ uparams) {
	if x32, ok := any(x).([]float32); ok {
		hardswish32(any(y).([]float32), x32)
		return
	}
	for i, v := range x {
		y[i] = v * min(max(v+3, 0), 6) / 6
	}
}

// hardswish32 is hardswishF on float32 with the clamp on the bits of x+3:
// the sign mask zeroes negatives (and -0), and non-negative floats order as
// their bits, so an integer min (a CMOV) caps at 6. NaN stays NaN. Bitwise
// equal to the float min/max form, about 1.5x faster (those lower to
// several instructions each for NaN and signed-zero handling).
func hardswish32(y, x []float32) {
	y = y[:len(x)]
	for i, v := range x {
		b := math.Float32bits(v + 3)
		b &^= uint32(int32(b) >> 31)
		b = min(b, 0x40c00000) // 6
		y[i] = v * math.Float32frombits(b) / 6
	}
}

// d/dx: 0 below -3, 1 above 3, (2x+3)/6 between
func hardswishB[E fl](dx, x, _, g []E, _ uparams) {
	for i, v := range x {
		switch {
		case v < -3:
			dx[i] = 0
		case v > 3:
			dx[i] = g[i]
		default:
			dx[i] = g[i] * (2*v + 3) / 6
		}
	}
}

// hardsigmoidF: max(0, min(1, alpha·x + beta)) with alpha = p.a, beta = p.b.
func hardsigmoidF[E fl](y, x []E, p uparams) {
	al, be := E(p.a), E(p.b)
	for i, v := range x {
		y[i] = min(max(al*v+be, 0), 1)
	}
}

// the gradient alpha·g passes where 0 < alpha·x + beta < 1
func hardsigmoidB[E fl](dx, x, _, g []E, p uparams) {
	al, be := E(p.a), E(p.b)
	for i, v := range x {
		if t := al*v + be; t > 0 && t < 1 {
			dx[i] = al * g[i]
		} else {
			dx[i] = 0
		}
	}
}

// softplusF: log(1 + e^(βx))/β, or x where βx > threshold (β = p.a, threshold = p.b), as torch and Paddle.
func softplusF[E fl](y, x []E, p uparams) {
	for i, v := range x {
		bx := p.a * float64(v)
		if bx > p.b {
			y[i] = v
		} else {
			// log1p(e^bx) written to not overflow for large bx
			y[i] = E((max(bx, 0) + math.Log1p(math.Exp(-math.Abs(bx)))) / p.a)
		}
	}
}

// d/dx = σ(βx), 1 past the threshold
func softplusB[E fl](dx, x, _, g []E, p uparams) {
	for i, v := range x {
		bx := p.a * float64(v)
		if bx > p.b {
			dx[i] = g[i]
		} else {
			dx[i] = g[i] * E(sigmoid(bx))
		}
	}
}

// siluF: x·σ(x).
func siluF[E fl](y, x []E, _ uparams) {
	for i, v := range x {
		y[i] = E(float64(v) * sigmoid(float64(v)))
	}
}

// d/dx = σ(x)·(1 + x(1-σ(x)))
func siluB[E fl](dx, x, _, g []E, _ uparams) {
	for i, v := range x {
		s := sigmoid(float64(v))
		dx[i] = g[i] * E(s*(1+float64(v)*(1-s)))
	}
}

const (
	geluK = 0.7978845608028654 // √(2/π)
	geluC = 0.044715
)

// geluF: exact x·Φ(x) = x/2·(1+erf(x/√2)) when p.a == 0; the tanh
// approximation x/2·(1+tanh(√(2/π)(x+0.044715x³))) when p.a == 1.
func geluF[E fl](y, x []E, p uparams) {
	if p.a == 0 {
		for i, v := range x {
			f := float64(v)
			y[i] = E(0.5 * f * (1 + math.Erf(f/math.Sqrt2)))
		}
		return
	}
	for i, v := range x {
		f := float64(v)
		y[i] = E(0.5 * f * (1 + math.Tanh(geluK*(f+geluC*f*f*f))))
	}
}

// exact: Φ(x) + x·φ(x); tanh: (1+t)/2 + x/2·(1-t²)·√(2/π)(1+3·0.044715x²)
func geluB[E fl](dx, x, _, g []E, p uparams) {
	if p.a == 0 {
		for i, v := range x {
			f := float64(v)
			cdf := 0.5 * (1 + math.Erf(f/math.Sqrt2))
			pdf := math.Exp(-0.5*f*f) / math.Sqrt(2*math.Pi)
			dx[i] = g[i] * E(cdf+f*pdf)
		}
		return
	}
	for i, v := range x {
		f := float64(v)
		t := math.Tanh(geluK * (f + geluC*f*f*f))
		dx[i] = g[i] * E(0.5*(1+t)+0.5*f*(1-t*t)*geluK*(1+3*geluC*f*f))
	}
}

func geluParams(a Attrs) uparams {
	if a.Str("approximate", "none") == "tanh" {
		return uparams{a: 1}
	}
	return uparams{}
}

func geluCheck(a Attrs) error {
	if s := a.Str("approximate", "none"); s != "none" && s != "tanh" {
		return fmt.Errorf("attribute approximate is %q, want \"none\" or \"tanh\"", s)
	}
	return nil
}

// Eager functions ------------------------------------------------------------

// Sigmoid returns 1/(1+e^-x).
func Sigmoid(x *T) *T { return call1(sigmoidDef, nil, x) }

// Tanh returns tanh x.
func Tanh(x *T) *T { return call1(tanhDef, nil, x) }

// Relu6 returns min(max(x, 0), 6).
func Relu6(x *T) *T { return call1(relu6Def, nil, x) }

// LeakyRelu returns x for x >= 0 and alpha·x otherwise.
func LeakyRelu(x *T, alpha float64) *T { return call1(leakyReluDef, Attrs{"alpha": alpha}, x) }

// Elu returns x for x > 0 and alpha·(e^x - 1) otherwise.
func Elu(x *T, alpha float64) *T { return call1(eluDef, Attrs{"alpha": alpha}, x) }

// Hardswish returns x·relu6(x+3)/6.
func Hardswish(x *T) *T { return call1(hardswishDef, nil, x) }

// Hardsigmoid returns clip(alpha·x + beta, 0, 1). ONNX's defaults are
// alpha 0.2, beta 0.5; Paddle's hardsigmoid uses alpha 1/6, beta 0.5.
func Hardsigmoid(x *T, alpha, beta float64) *T {
	return call1(hardsigmoidDef, Attrs{"alpha": alpha, "beta": beta}, x)
}

// Softplus returns log(1+e^(beta·x))/beta, and x where beta·x > threshold
// (torch and Paddle use beta 1, threshold 20).
func Softplus(x *T, beta, threshold float64) *T {
	return call1(softplusDef, Attrs{"beta": beta, "threshold": threshold}, x)
}

// Silu returns x·σ(x) (swish with beta 1).
func Silu(x *T) *T { return call1(siluDef, nil, x) }

// Gelu returns x·Φ(x); approximate "tanh" uses the tanh formula, "none" the exact erf one.
func Gelu(x *T, approximate string) *T {
	return call1(geluDef, Attrs{"approximate": approximate}, x)
}

var (
	sigmoidDef, tanhDef, relu6Def, leakyReluDef, eluDef *Def
	hardswishDef, hardsigmoidDef, softplusDef           *Def
	siluDef, geluDef                                    *Def
)

func init() {
	sigmoidDef = defUnary("sigmoid", "Sigmoid", &unaryImpl{fwd32: sigmoidF[float32], fwd64: sigmoidF[float64],
		bwd32: sigmoidB[float32], bwd64: sigmoidB[float64]}, uniform(-3, 3, s34)).exports(exportTwin).fusable(GemmActNone).overwrites()
	tanhDef = defUnary("tanh", "Tanh", &unaryImpl{fwd32: tanhF[float32], fwd64: tanhF[float64],
		bwd32: tanhB[float32], bwd64: tanhB[float64]}, uniform(-2, 2, s34)).exports(exportTwin)
	relu6Def = defUnary("relu6", "", &unaryImpl{fwd32: relu6F[float32], fwd64: relu6F[float64],
		bwd32: relu6B[float32], bwd64: relu6B[float64]}, sampleAwayFrom(-2, 8, 0.05, []float64{0, 6}, s34)).exports(exportRelu6).fusable(GemmActNone)
	leakyReluDef = defUnary("leaky_relu", "LeakyRelu", &unaryImpl{fwd32: leakyReluF[float32], fwd64: leakyReluF[float64],
		bwd32: leakyReluB[float32], bwd64: leakyReluB[float64],
		params: func(a Attrs) uparams { return uparams{a: a.Float("alpha", 0.01)} }},
		withAttrs(sampleAwayFrom(-2, 2, 0.05, []float64{0}, s34), Attrs{"alpha": 0.1})).exports(copyAttrs(floatAttr("alpha", 0.01)))
	eluDef = defUnary("elu", "Elu", &unaryImpl{fwd32: eluF[float32], fwd64: eluF[float64],
		bwd32: eluB[float32], bwd64: eluB[float64],
		params: func(a Attrs) uparams { return uparams{a: a.Float("alpha", 1)} }},
		withAttrs(sampleAwayFrom(-2, 2, 0.05, []float64{0}, s34), Attrs{"alpha": 0.7})).exports(copyAttrs(floatAttr("alpha", 1)))
	hardswishDef = defUnary("hardswish", "HardSwish", &unaryImpl{fwd32: hardswishF[float32], fwd64: hardswishF[float64],
		bwd32: hardswishB[float32], bwd64: hardswishB[float64]}, sampleAwayFrom(-5, 5, 0.05, []float64{-3, 3}, s34)).exports(exportTwin).fusable(GemmActHardSwish).overwrites()
	hardsigmoidDef = defUnary("hardsigmoid", "HardSigmoid", &unaryImpl{fwd32: hardsigmoidF[float32], fwd64: hardsigmoidF[float64],
		bwd32: hardsigmoidB[float32], bwd64: hardsigmoidB[float64],
		params: func(a Attrs) uparams { return uparams{a.Float("alpha", 0.2), a.Float("beta", 0.5)} }},
		sampleAwayFrom(-4, 4, 0.05, []float64{-2.5, 2.5}, s34)).exports(copyAttrs(hardsigmoidAttrs)).fusable(GemmActNone).overwrites()
	softplusDef = defUnary("softplus", "Softplus", &unaryImpl{fwd32: softplusF[float32], fwd64: softplusF[float64],
		bwd32: softplusB[float32], bwd64: softplusB[float64],
		params: func(a Attrs) uparams { return uparams{a.Float("beta", 1), a.Float("threshold", 20)} }},
		withAttrs(sampleAwayFrom(-3, 3, 0.05, []float64{2}, s34), Attrs{"beta": 2.0, "threshold": 4.0})).exports(exportTwin)
	siluDef = defUnary("silu", "", &unaryImpl{fwd32: siluF[float32], fwd64: siluF[float64],
		bwd32: siluB[float32], bwd64: siluB[float64]}, uniform(-3, 3, s34)).exports(exportSilu)
	geluDef = defUnary("gelu", "Gelu", &unaryImpl{fwd32: geluF[float32], fwd64: geluF[float64],
		bwd32: geluB[float32], bwd64: geluB[float64], params: geluParams, check: geluCheck}, uniform(-3, 3, s34)).exports(exportGelu)
	// the tanh approximation of gelu is gradient-checked in activation_test.go
}
