package op

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"

	"paddle/core/parallel"
	"paddle/core/tensor"
)

// Elementwise math: sqrt, rsqrt, abs, sign, reciprocal, floor, ceil, round,
// erf, sin, cos, clip; where; logical not/and/or.
//
// Float unary ops (here and in activation.go) share one machinery: each has a
// forward kernel y = f(x) and a backward kernel dx = g·f'(x) written as plain
// loops over float32 and float64 slices. The backward runs as the primitive
// "unary_grad" (inputs x, y, g; attribute "op" names the forward op): one fused
// pass instead of the three to six allocating passes the same rule costs
// when written with eager ops, which matters for activations in training.

// fl is the element constraint of the float kernels.
type fl interface{ ~float32 | ~float64 }

// uparams are a unary op's numeric attributes, read once per call.
type uparams struct{ a, b float64 }

// unaryImpl is one float unary op: its kernels and how it reads its attributes.
type unaryImpl struct {
	fwd32  func(y, x []float32, p uparams)
	fwd64  func(y, x []float64, p uparams)
	bwd32  func(dx, x, y, g []float32, p uparams) // nil: the gradient is zero
	bwd64  func(dx, x, y, g []float64, p uparams)
	params func(Attrs) uparams // nil: no attributes
	check  func(Attrs) error   // nil: any attributes are fine
	ints   bool                // integer inputs are allowed (computed through float64; int64 exactly, see int64Unary)
	name   string
}

// int64Unary computes the integer-allowed unary ops on int64 exactly (float64
// holds integers only up to 2^53, and MaxInt64 overflows its conversion back).
var int64Unary = map[string]func(v int64, p uparams) int64{
	"abs": func(v int64, _ uparams) int64 {
		if v < 0 {
			return -v
		}
		return v
	},
	"sign":  func(v int64, _ uparams) int64 { return int64(cmp.Compare(v, 0)) },
	"relu":  func(v int64, _ uparams) int64 { return max(v, 0) },
	"floor": func(v int64, _ uparams) int64 { return v },
	"ceil":  func(v int64, _ uparams) int64 { return v },
	"round": func(v int64, _ uparams) int64 { return v },
	"clip": func(v int64, p uparams) int64 {
		if !math.IsInf(p.a, 0) && float64(v) < p.a {
			v = int64(math.Ceil(p.a))
		}
		if !math.IsInf(p.b, 0) && float64(v) > p.b {
			v = int64(math.Floor(p.b))
		}
		return v
	},
}

var unaryImpls = map[string]*unaryImpl{} // filled by init, read-only afterwards

const unaryGrain = 1 << 14

func (u *unaryImpl) p(a Attrs) uparams {
	if u.params == nil {
		return uparams{}
	}
	return u.params(a)
}

func (u *unaryImpl) ref(out, in []*T, a Attrs) {
	p := u.p(a)
	switch in[0].DType() {
	case tensor.Float32:
		x, y := in[0].F32(), out[0].F32()
		parallel.For(len(x), unaryGrain, func(lo, hi int) { u.fwd32(y[lo:hi], x[lo:hi], p) })
	case tensor.Float64:
		x, y := in[0].F64(), out[0].F64()
		parallel.For(len(x), unaryGrain, func(lo, hi int) { u.fwd64(y[lo:hi], x[lo:hi], p) })
	case tensor.Int64:
		f := int64Unary[u.name]
		x, y := in[0].I64(), out[0].I64()
		for i, v := range x {
			y[i] = f(v, p)
		}
	default: // int32, uint8, int8: exact through float64
		x := in[0].Float64s()
		y := make([]float64, len(x))
		u.fwd64(y, x, p)
		out[0].CopyFrom(tensor.FromSlice(y, out[0].Shape()...).Cast(out[0].DType()))
	}
}

// defUnary registers a float unary op with its kernels.
func defUnary(name, onnx string, u *unaryImpl, sample func(r *rand.Rand) ([]*T, Attrs)) *Def {
	unaryImpls[name] = u
	u.name = name
	if _, ok := int64Unary[name]; u.ints && !ok {
		panic("op: " + name + " takes integers but has no int64Unary entry")
	}
	d := &Def{Name: name, ONNX: onnx, Arity: 1, Ref: u.ref, Sample: sample, DTypes: FloatDTypes}
	if u.ints {
		d.DTypes = NumericDTypes
	}
	d.Infer = func(in []Meta, a Attrs) ([]Meta, error) {
		if u.check != nil {
			if err := u.check(a); err != nil {
				return nil, err
			}
		}
		return sameAsInput(in, a)
	}
	d.VJP = func(c *VJPCtx) []*T {
		if !c.In[0].DType().IsFloat() {
			return []*T{nil}
		}
		if u.bwd32 == nil {
			return []*T{tensor.ZerosLike(c.In[0])}
		}
		return []*T{call1(unaryGradDef, c.Attrs.With("op", name), c.In[0], c.Out[0], c.G(0))}
	}
	return define(d)
}

// withAttrs adds fixed attributes to a sample generator.
func withAttrs(s func(r *rand.Rand) ([]*T, Attrs), a Attrs) func(r *rand.Rand) ([]*T, Attrs) {
	return func(r *rand.Rand) ([]*T, Attrs) {
		in, _ := s(r)
		return in, a
	}
}

// Forward and backward kernels ---------------------------------------------

func sqrtF[E fl](y, x []E, _ uparams) {
	for i, v := range x {
		y[i] = E(math.Sqrt(float64(v)))
	}
}

// d sqrt(x) = 1 / (2 sqrt(x))
func sqrtB[E fl](dx, _, y, g []E, _ uparams) {
	for i := range dx {
		dx[i] = g[i] / (2 * y[i])
	}
}

func rsqrtF[E fl](y, x []E, _ uparams) {
	for i, v := range x {
		y[i] = E(1 / math.Sqrt(float64(v)))
	}
}

// d x^-1/2 = -x^-3/2 / 2 = -y³/2
func rsqrtB[E fl](dx, _, y, g []E, _ uparams) {
	for i := range dx {
		dx[i] = -g[i] * y[i] * y[i] * y[i] / 2
	}
}

func absF[E fl](y, x []E, _ uparams) {
	for i, v := range x {
		y[i] = E(math.Abs(float64(v)))
	}
}

// d|x| = sign(x) (0 at 0)
func absB[E fl](dx, x, _, g []E, _ uparams) {
	for i, v := range x {
		switch {
		case v > 0:
			dx[i] = g[i]
		case v < 0:
			dx[i] = -g[i]
		default:
			dx[i] = 0
		}
	}
}

func signF[E fl](y, x []E, _ uparams) {
	for i, v := range x {
		switch {
		case v > 0:
			y[i] = 1
		case v < 0:
			y[i] = -1
		default:
			y[i] = v // 0 stays 0, NaN stays NaN
		}
	}
}

func reciprocalF[E fl](y, x []E, _ uparams) {
	for i, v := range x {
		y[i] = 1 / v
	}
}

// d 1/x = -1/x² = -y²
func reciprocalB[E fl](dx, _, y, g []E, _ uparams) {
	for i := range dx {
		dx[i] = -g[i] * y[i] * y[i]
	}
}

func floorF[E fl](y, x []E, _ uparams) {
	for i, v := range x {
		y[i] = E(math.Floor(float64(v)))
	}
}

func ceilF[E fl](y, x []E, _ uparams) {
	for i, v := range x {
		y[i] = E(math.Ceil(float64(v)))
	}
}

// roundF rounds half to even, as ONNX Round and torch.round do.
func roundF[E fl](y, x []E, _ uparams) {
	for i, v := range x {
		y[i] = E(math.RoundToEven(float64(v)))
	}
}

func erfF[E fl](y, x []E, _ uparams) {
	for i, v := range x {
		y[i] = E(math.Erf(float64(v)))
	}
}

// d erf(x) = 2/√π · e^(-x²)
func erfB[E fl](dx, x, _, g []E, _ uparams) {
	for i, v := range x {
		dx[i] = g[i] * E(2/math.SqrtPi*math.Exp(-float64(v)*float64(v)))
	}
}

func sinF[E fl](y, x []E, _ uparams) {
	for i, v := range x {
		y[i] = E(math.Sin(float64(v)))
	}
}

func sinB[E fl](dx, x, _, g []E, _ uparams) {
	for i, v := range x {
		dx[i] = g[i] * E(math.Cos(float64(v)))
	}
}

func cosF[E fl](y, x []E, _ uparams) {
	for i, v := range x {
		y[i] = E(math.Cos(float64(v)))
	}
}

func cosB[E fl](dx, x, _, g []E, _ uparams) {
	for i, v := range x {
		dx[i] = -g[i] * E(math.Sin(float64(v)))
	}
}

// clipF clamps to [p.a, p.b].
func clipF[E fl](y, x []E, p uparams) {
	lo, hi := E(p.a), E(p.b) // ±Inf convert to ±Inf
	for i, v := range x {
		y[i] = min(max(v, lo), hi)
	}
}

// the gradient passes where lo <= x <= hi (as torch.clamp)
func clipB[E fl](dx, x, _, g []E, p uparams) {
	for i, v := range x {
		if float64(v) >= p.a && float64(v) <= p.b {
			dx[i] = g[i]
		} else {
			dx[i] = 0
		}
	}
}

func clipParams(a Attrs) uparams {
	return uparams{a.Float("min", math.Inf(-1)), a.Float("max", math.Inf(1))}
}

// Eager functions ------------------------------------------------------------

// Sqrt returns √x.
func Sqrt(x *T) *T { return call1(sqrtDef, nil, x) }

// Rsqrt returns 1/√x.
func Rsqrt(x *T) *T { return call1(rsqrtDef, nil, x) }

// Abs returns |x|.
func Abs(x *T) *T { return call1(absDef, nil, x) }

// Sign returns -1, 0 or 1 by the sign of x.
func Sign(x *T) *T { return call1(signDef, nil, x) }

// Reciprocal returns 1/x.
func Reciprocal(x *T) *T { return call1(reciprocalDef, nil, x) }

// Floor rounds x down.
func Floor(x *T) *T { return call1(floorDef, nil, x) }

// Ceil rounds x up.
func Ceil(x *T) *T { return call1(ceilDef, nil, x) }

// Round rounds x to the nearest integer, halves to even (as ONNX Round).
func Round(x *T) *T { return call1(roundDef, nil, x) }

// Erf returns the error function of x.
func Erf(x *T) *T { return call1(erfDef, nil, x) }

// Sin returns sin x.
func Sin(x *T) *T { return call1(sinDef, nil, x) }

// Cos returns cos x.
func Cos(x *T) *T { return call1(cosDef, nil, x) }

// Clip clamps x to [lo, hi]; use ±Inf for an open side.
func Clip(x *T, lo, hi float64) *T { return call1(clipDef, Attrs{"min": lo, "max": hi}, x) }

// UnaryGrad runs the fused backward of the float unary op named op: dx = g·op'(x),
// given the forward input x, output y and upstream gradient g (one shape and dtype).
func UnaryGrad(opName string, x, y, g *T, a Attrs) *T {
	return call1(unaryGradDef, a.With("op", opName), x, y, g)
}

// Where picks a where cond is true and b elsewhere (all three broadcast).
func Where(cond, a, b *T) *T { return call1(whereDef, nil, cond, a, b) }

// LogicalNot returns !x for a bool tensor.
func LogicalNot(x *T) *T { return call1(logicalNotDef, nil, x) }

// LogicalAnd returns a && b for bool tensors (broadcast).
func LogicalAnd(a, b *T) *T { return call1(logicalAndDef, nil, a, b) }

// LogicalOr returns a || b for bool tensors (broadcast).
func LogicalOr(a, b *T) *T { return call1(logicalOrDef, nil, a, b) }

var (
	sqrtDef, rsqrtDef, absDef, signDef, reciprocalDef *Def
	floorDef, ceilDef, roundDef, erfDef, sinDef       *Def
	cosDef, clipDef, unaryGradDef, whereDef           *Def
	logicalNotDef, logicalAndDef, logicalOrDef        *Def
)

func init() {
	sqrtDef = defUnary("sqrt", "Sqrt", &unaryImpl{fwd32: sqrtF[float32], fwd64: sqrtF[float64],
		bwd32: sqrtB[float32], bwd64: sqrtB[float64]}, uniform(0.5, 2, s34)).exports(exportTwin)
	rsqrtDef = defUnary("rsqrt", "", &unaryImpl{fwd32: rsqrtF[float32], fwd64: rsqrtF[float64],
		bwd32: rsqrtB[float32], bwd64: rsqrtB[float64]}, uniform(0.5, 2, s34)).exports(exportRsqrt)
	absDef = defUnary("abs", "Abs", &unaryImpl{fwd32: absF[float32], fwd64: absF[float64],
		bwd32: absB[float32], bwd64: absB[float64], ints: true}, sampleAwayFrom(-2, 2, 0.05, []float64{0}, s34)).exports(exportTwin)
	signDef = defUnary("sign", "Sign", &unaryImpl{fwd32: signF[float32], fwd64: signF[float64], ints: true},
		sampleAwayFrom(-2, 2, 0.05, []float64{0}, s34)).exports(exportTwin)
	reciprocalDef = defUnary("reciprocal", "Reciprocal", &unaryImpl{fwd32: reciprocalF[float32], fwd64: reciprocalF[float64],
		bwd32: reciprocalB[float32], bwd64: reciprocalB[float64]}, sampleAwayFrom(-2, 2, 0.5, []float64{0}, s34)).exports(exportTwin)
	kinks := []float64{-2, -1.5, -1, -0.5, 0, 0.5, 1, 1.5, 2}
	floorDef = defUnary("floor", "Floor", &unaryImpl{fwd32: floorF[float32], fwd64: floorF[float64], ints: true},
		sampleAwayFrom(-2, 2, 0.05, kinks, s34)).exports(exportTwin)
	ceilDef = defUnary("ceil", "Ceil", &unaryImpl{fwd32: ceilF[float32], fwd64: ceilF[float64], ints: true},
		sampleAwayFrom(-2, 2, 0.05, kinks, s34)).exports(exportTwin)
	roundDef = defUnary("round", "Round", &unaryImpl{fwd32: roundF[float32], fwd64: roundF[float64], ints: true},
		sampleAwayFrom(-2, 2, 0.05, kinks, s34)).exports(exportTwin)
	erfDef = defUnary("erf", "Erf", &unaryImpl{fwd32: erfF[float32], fwd64: erfF[float64],
		bwd32: erfB[float32], bwd64: erfB[float64]}, uniform(-2, 2, s34)).exports(exportTwin)
	sinDef = defUnary("sin", "Sin", &unaryImpl{fwd32: sinF[float32], fwd64: sinF[float64],
		bwd32: sinB[float32], bwd64: sinB[float64]}, uniform(-3, 3, s34)).exports(exportTwin)
	cosDef = defUnary("cos", "Cos", &unaryImpl{fwd32: cosF[float32], fwd64: cosF[float64],
		bwd32: cosB[float32], bwd64: cosB[float64]}, uniform(-3, 3, s34)).exports(exportTwin)
	clipDef = defUnary("clip", "Clip", &unaryImpl{fwd32: clipF[float32], fwd64: clipF[float64],
		bwd32: clipB[float32], bwd64: clipB[float64], params: clipParams, ints: true},
		withAttrs(sampleAwayFrom(-2, 2, 0.05, []float64{-0.5, 1}, s34), Attrs{"min": -0.5, "max": 1.0})).exports(exportClip).fusable(GemmActNone).overwrites()

	unaryGradDef = define(&Def{
		Name: "unary_grad", Arity: 3,
		Infer: func(in []Meta, a Attrs) ([]Meta, error) {
			u := unaryImpls[a.Str("op", "")]
			if u == nil || u.bwd32 == nil {
				return nil, fmt.Errorf("attribute op %q is not a differentiable unary op", a.Str("op", ""))
			}
			for i, m := range in {
				if !m.DType.IsFloat() || m.DType != in[0].DType || !m.Shape.Equal(in[0].Shape) {
					return nil, fmt.Errorf("input %d is %v %v, want float %v %v like input 0", i, m.DType, m.Shape, in[0].DType, in[0].Shape)
				}
			}
			return []Meta{in[0]}, nil
		},
		Ref: func(out, in []*T, a Attrs) {
			u := unaryImpls[a.Str("op", "")]
			p := u.p(a)
			if out[0].DType() == tensor.Float32 {
				dx, x, y, g := out[0].F32(), in[0].F32(), in[1].F32(), in[2].F32()
				parallel.For(len(dx), unaryGrain, func(lo, hi int) { u.bwd32(dx[lo:hi], x[lo:hi], y[lo:hi], g[lo:hi], p) })
				return
			}
			dx, x, y, g := out[0].F64(), in[0].F64(), in[1].F64(), in[2].F64()
			parallel.For(len(dx), unaryGrain, func(lo, hi int) { u.bwd64(dx[lo:hi], x[lo:hi], y[lo:hi], g[lo:hi], p) })
		},
	})
	defineWhereLogical()
}
