package op

import (
	"cmp"
	"math"
	"math/rand/v2"

	"paddle/core/parallel"
	"paddle/core/tensor"
)

// Elementwise primitives. Binary ops broadcast NumPy-style; inputs must share a dtype.

func binKernel(f func(x, y float64) float64) func(out, in []*T, _ Attrs) {
	return func(out, in []*T, _ Attrs) {
		switch out[0].DType() {
		case tensor.Float32:
			binLoop[float32](out[0], in[0], in[1], f)
		case tensor.Float64:
			binLoop[float64](out[0], in[0], in[1], f)
		case tensor.Int64:
			binLoop[int64](out[0], in[0], in[1], f)
		case tensor.Int32:
			binLoop[int32](out[0], in[0], in[1], f)
		case tensor.Uint8:
			binLoop[uint8](out[0], in[0], in[1], f)
		case tensor.Int8:
			binLoop[int8](out[0], in[0], in[1], f)
		default:
			panic("op: unsupported dtype " + out[0].DType().String())
		}
	}
}

// binKernelInt is binKernel with an exact int64 path: fi runs on int64
// inputs, since float64 cannot hold int64 values beyond 2^53.
func binKernelInt(f func(x, y float64) float64, fi func(x, y int64) int64) func(out, in []*T, _ Attrs) {
	k := binKernel(f)
	return func(out, in []*T, a Attrs) {
		if out[0].DType() != tensor.Int64 {
			k(out, in, a)
			return
		}
		ov, av, bv := out[0].I64(), in[0].I64(), in[1].I64()
		forBroadcast2(out[0].Shape(), in[0].Shape(), in[1].Shape(), func(i, ia, ib int) { ov[i] = fi(av[ia], bv[ib]) })
	}
}

// intDiv truncates toward zero like Go and C; division by zero gives 0
// (NumPy's result) instead of a Go run-time panic.
func intDiv(x, y int64) int64 {
	if y == 0 {
		return 0
	}
	return x / y
}

func binLoop[E tensor.Num](o, a, b *T, f func(x, y float64) float64) {
	ov, av, bv := tensor.Data[E](o), tensor.Data[E](a), tensor.Data[E](b)
	forBroadcast2(o.Shape(), a.Shape(), b.Shape(), func(i, ia, ib int) {
		ov[i] = E(f(float64(av[ia]), float64(bv[ib])))
	})
}

func unaryKernel(f func(x float64) float64) func(out, in []*T, _ Attrs) {
	return func(out, in []*T, _ Attrs) {
		switch out[0].DType() {
		case tensor.Float32:
			x, y := in[0].F32(), out[0].F32()
			for i, v := range x {
				y[i] = float32(f(float64(v)))
			}
		case tensor.Float64:
			x, y := in[0].F64(), out[0].F64()
			for i, v := range x {
				y[i] = f(v)
			}
		default:
			n := in[0].Len()
			xs := in[0].Float64s()
			for i := range n {
				out[0].SetAt(f(xs[i]), flatToIndex(out[0].Shape(), i)...)
			}
		}
	}
}

func flatToIndex(s tensor.Shape, flat int) []int {
	idx := make([]int, len(s))
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] > 0 {
			idx[i] = flat % s[i]
			flat /= s[i]
		}
	}
	return idx
}

func uniform(lo, hi float64, shapes ...tensor.Shape) func(r *rand.Rand) ([]*T, Attrs) {
	return func(r *rand.Rand) ([]*T, Attrs) {
		in := make([]*T, len(shapes))
		for i, s := range shapes {
			in[i] = tensor.Rand(r, tensor.Float64, lo, hi, s...)
		}
		return in, nil
	}
}

// sampleAwayFrom draws uniform values in [lo, hi] but at least eps away from
// the kinks in avoid, so finite differences do not straddle them.
func sampleAwayFrom(lo, hi, eps float64, avoid []float64, shapes ...tensor.Shape) func(r *rand.Rand) ([]*T, Attrs) {
	return func(r *rand.Rand) ([]*T, Attrs) {
		in := make([]*T, len(shapes))
		for i, s := range shapes {
			t := tensor.New(tensor.Float64, s...)
			v := t.F64()
			for j := range v {
			again:
				x := lo + (hi-lo)*r.Float64()
				for _, k := range avoid {
					if math.Abs(x-k) < eps {
						goto again
					}
				}
				v[j] = x
			}
			in[i] = t
		}
		return in, nil
	}
}

var (
	s34 = tensor.Shape{3, 4}
	s4  = tensor.Shape{4}
	s31 = tensor.Shape{3, 1}
)

// Add returns a+b (broadcast).
func Add(a, b *T) *T { return call1(addDef, nil, a, b) }

// Sub returns a-b (broadcast).
func Sub(a, b *T) *T { return call1(subDef, nil, a, b) }

// Mul returns a*b (broadcast).
func Mul(a, b *T) *T { return call1(mulDef, nil, a, b) }

// Div returns a/b (broadcast; integer division truncates toward zero, and an
// integer division by zero gives 0, as NumPy).
func Div(a, b *T) *T { return call1(divDef, nil, a, b) }

// Pow returns a^b (broadcast).
func Pow(a, b *T) *T { return call1(powDef, nil, a, b) }

// Maximum returns max(a, b) element-wise (broadcast); ties send the gradient to a.
func Maximum(a, b *T) *T { return call1(maximumDef, nil, a, b) }

// Minimum returns min(a, b) element-wise (broadcast); ties send the gradient to a.
func Minimum(a, b *T) *T { return call1(minimumDef, nil, a, b) }

// ScalarLike returns a rank-0 tensor with x's dtype holding v.
func ScalarLike(x *T, v float64) *T {
	t := tensor.New(x.DType())
	t.Fill(v)
	return t
}

// Unary ops ---------------------------------------------------------------

func unary(name, onnx string, f func(float64) float64, vjp func(c *VJPCtx) []*T, sample func(r *rand.Rand) ([]*T, Attrs)) *Def {
	return define(&Def{Name: name, ONNX: onnx, Arity: 1, Infer: sameAsInput, Ref: unaryKernel(f), VJP: vjp, Sample: sample})
}

// Neg returns -x.
func Neg(x *T) *T { return call1(negDef, nil, x) }

// Exp returns e^x.
func Exp(x *T) *T { return call1(expDef, nil, x) }

// Log returns the natural logarithm of x.
func Log(x *T) *T { return call1(logDef, nil, x) }

// Relu returns max(x, 0).
func Relu(x *T) *T { return call1(reluDef, nil, x) }

// Comparisons (no gradient) -------------------------------------------------

func compare(name, onnx string, f func(x, y float64) bool) *Def {
	return define(&Def{
		Name: name, ONNX: onnx, Arity: 2, Infer: compareInfer, NoGrad: []int{0, 1},
		Ref: func(out, in []*T, _ Attrs) {
			o := out[0].Bools()
			if in[0].DType() == tensor.Int64 {
				// compare int64 as integers: float64 cannot tell 2^53 from 2^53+1
				a, b := in[0].I64(), in[1].I64()
				forBroadcast2(out[0].Shape(), in[0].Shape(), in[1].Shape(), func(i, ia, ib int) {
					o[i] = f(float64(cmp.Compare(a[ia], b[ib])), 0)
				})
				return
			}
			a, b := in[0].Float64s(), in[1].Float64s()
			forBroadcast2(out[0].Shape(), in[0].Shape(), in[1].Shape(), func(i, ia, ib int) { o[i] = f(a[ia], b[ib]) })
		},
	})
}

// Greater returns a > b as a bool tensor (broadcast).
func Greater(a, b *T) *T { return call1(greaterDef, nil, a, b) }

// GreaterEqual returns a >= b as a bool tensor (broadcast).
func GreaterEqual(a, b *T) *T { return call1(greaterEqualDef, nil, a, b) }

// Less returns a < b as a bool tensor (broadcast).
func Less(a, b *T) *T { return call1(lessDef, nil, a, b) }

// LessEqual returns a <= b as a bool tensor (broadcast).
func LessEqual(a, b *T) *T { return call1(lessEqualDef, nil, a, b) }

// Equal returns a == b as a bool tensor (broadcast).
func Equal(a, b *T) *T { return call1(equalDef, nil, a, b) }

// Cast ----------------------------------------------------------------------

// Cast converts x to dtype d (explicit; ops never promote silently).
func Cast(x *T, d tensor.DType) *T {
	if x.DType() == d {
		return x
	}
	return call1(castDef, Attrs{"dtype": d.String()}, x)
}

var (
	addDef          *Def
	subDef          *Def
	mulDef          *Def
	divDef          *Def
	powDef          *Def
	maximumDef      *Def
	minimumDef      *Def
	negDef          *Def
	expDef          *Def
	logDef          *Def
	reluDef         *Def
	greaterDef      *Def
	greaterEqualDef *Def
	lessDef         *Def
	lessEqualDef    *Def
	equalDef        *Def
	castDef         *Def
)

func init() {
	addDef = define(&Def{
		Name: "add", Export: exportTwin, Overwrites: true, ONNX: "Add", Arity: 2, Infer: broadcastInfer,
		Ref: fastBinary(binAdd, binKernelInt(func(x, y float64) float64 { return x + y }, func(x, y int64) int64 { return x + y })),
		VJP: func(c *VJPCtx) []*T {
			g := c.G(0)
			return []*T{unbroadcast(g, c.In[0].Shape()), unbroadcast(g, c.In[1].Shape())}
		},
		Sample: uniform(-1, 1, s34, s4),
	})
	subDef = define(&Def{
		Name: "sub", Export: exportTwin, Overwrites: true, ONNX: "Sub", Arity: 2, Infer: broadcastInfer,
		Ref: fastBinary(binSub, binKernelInt(func(x, y float64) float64 { return x - y }, func(x, y int64) int64 { return x - y })),
		VJP: func(c *VJPCtx) []*T {
			g := c.G(0)
			return []*T{unbroadcast(g, c.In[0].Shape()), unbroadcast(Neg(g), c.In[1].Shape())}
		},
		Sample: uniform(-1, 1, s31, s34),
	})
	mulDef = define(&Def{
		Name: "mul", Export: exportTwin, Overwrites: true, ONNX: "Mul", Arity: 2, Infer: broadcastInfer,
		Ref: fastBinary(binMul, binKernelInt(func(x, y float64) float64 { return x * y }, func(x, y int64) int64 { return x * y })),
		VJP: func(c *VJPCtx) []*T {
			g := c.G(0)
			return []*T{unbroadcast(Mul(g, c.In[1]), c.In[0].Shape()), unbroadcast(Mul(g, c.In[0]), c.In[1].Shape())}
		},
		Sample: uniform(-1, 1, s34, s4),
	})
	divDef = define(&Def{
		Name: "div", Export: exportTwin, Overwrites: true, ONNX: "Div", Arity: 2, Infer: broadcastInfer,
		Ref: fastBinary(binDiv, binKernelInt(func(x, y float64) float64 { return x / y }, intDiv)),
		// d(a/b) = g/b, -g*a/b²
		VJP: func(c *VJPCtx) []*T {
			g, a, b := c.G(0), c.In[0], c.In[1]
			da := Div(g, b)
			db := Neg(Div(Mul(g, a), Mul(b, b)))
			return []*T{unbroadcast(da, a.Shape()), unbroadcast(db, b.Shape())}
		},
		Sample: sampleAwayFrom(-2, 2, 0.5, []float64{0}, s34, s4),
	})
	powDef = define(&Def{
		Name: "pow", Export: exportTwin, ONNX: "Pow", Arity: 2, Infer: broadcastInfer,
		Ref: func(out, in []*T, a Attrs) {
			if !square32(out[0], in[0], in[1]) {
				powRef(out, in, a)
			}
		},
		// d(a^b) = g*b*a^(b-1), g*a^b*ln(a)
		VJP: func(c *VJPCtx) []*T {
			g, a, b := c.G(0), c.In[0], c.In[1]
			da := Mul(g, Mul(b, Pow(a, Sub(b, ScalarLike(b, 1)))))
			db := Mul(g, Mul(c.Out[0], Log(a)))
			return []*T{unbroadcast(da, a.Shape()), unbroadcast(db, b.Shape())}
		},
		Sample: uniform(0.5, 2, s34, s4),
	})
	maximumDef = define(&Def{
		Name: "maximum", Export: exportTwin, ONNX: "Max", Arity: 2, Infer: broadcastInfer,
		Ref: binKernelInt(math.Max, func(x, y int64) int64 { return max(x, y) }),
		VJP: func(c *VJPCtx) []*T {
			g, a, b := c.G(0), c.In[0], c.In[1]
			m := Cast(GreaterEqual(a, b), g.DType())
			return []*T{unbroadcast(Mul(g, m), a.Shape()), unbroadcast(Mul(g, Sub(ScalarLike(m, 1), m)), b.Shape())}
		},
		Sample: uniform(-1, 1, s34, s34),
	})
	minimumDef = define(&Def{
		Name: "minimum", Export: exportTwin, ONNX: "Min", Arity: 2, Infer: broadcastInfer,
		Ref: binKernelInt(math.Min, func(x, y int64) int64 { return min(x, y) }),
		VJP: func(c *VJPCtx) []*T {
			g, a, b := c.G(0), c.In[0], c.In[1]
			m := Cast(LessEqual(a, b), g.DType())
			return []*T{unbroadcast(Mul(g, m), a.Shape()), unbroadcast(Mul(g, Sub(ScalarLike(m, 1), m)), b.Shape())}
		},
		Sample: uniform(-1, 1, s34, s34),
	})
	negDef = unary("neg", "Neg", func(x float64) float64 { return -x },
		func(c *VJPCtx) []*T { return []*T{Neg(c.G(0))} }, uniform(-1, 1, s34)).exports(exportTwin)
	negFloat := negDef.Ref
	negDef.Ref = func(out, in []*T, a Attrs) {
		if in[0].DType() != tensor.Int64 {
			negFloat(out, in, a)
			return
		}
		y := out[0].I64() // exact: float64 would round beyond 2^53
		for i, v := range in[0].I64() {
			y[i] = -v
		}
	}
	expDef = unary("exp", "Exp", math.Exp,
		func(c *VJPCtx) []*T { return []*T{Mul(c.G(0), c.Out[0])} }, uniform(-1, 1, s34)).exports(exportTwin)
	logDef = unary("log", "Log", math.Log,
		func(c *VJPCtx) []*T { return []*T{Div(c.G(0), c.In[0])} }, uniform(0.5, 2, s34)).exports(exportTwin)
	// relu runs on the fused float unary kernels of math.go (it is the hottest activation)
	reluDef = defUnary("relu", "Relu", &unaryImpl{fwd32: reluF[float32], fwd64: reluF[float64],
		bwd32: reluB32, bwd64: reluB[float64], ints: true}, sampleAwayFrom(-2, 2, 0.05, []float64{0}, s34)).exports(exportTwin).fusable(GemmActRelu).overwrites()
	greaterDef = compare("greater", "Greater", func(x, y float64) bool { return x > y }).exports(exportTwin)
	greaterEqualDef = compare("greater_equal", "GreaterOrEqual", func(x, y float64) bool { return x >= y }).exports(exportTwin)
	lessDef = compare("less", "Less", func(x, y float64) bool { return x < y }).exports(exportTwin)
	lessEqualDef = compare("less_equal", "LessOrEqual", func(x, y float64) bool { return x <= y }).exports(exportTwin)
	equalDef = compare("equal", "Equal", func(x, y float64) bool { return x == y }).exports(exportTwin)
	castDef = define(&Def{
		Name: "cast", Export: copyAttrs(castAttrs), ONNX: "Cast", Arity: 1,
		Infer: func(in []Meta, a Attrs) ([]Meta, error) {
			d, err := tensor.ParseDType(a.Str("dtype", ""))
			if err != nil {
				return nil, err
			}
			return []Meta{{d, in[0].Shape}}, nil
		},
		Ref: func(out, in []*T, _ Attrs) { out[0].CopyFrom(in[0].Cast(out[0].DType())) },
		VJP: func(c *VJPCtx) []*T {
			if !c.In[0].DType().IsFloat() {
				return []*T{nil}
			}
			return []*T{Cast(c.G(0), c.In[0].DType())}
		},
		// float64 → float64 is the only cast a finite-difference check can
		// resolve; TestCastGradientDTypes covers float32 ↔ float64 and ints.
		Sample: withAttrs(uniform(-2, 2, tensor.Shape{3, 4}), Attrs{"dtype": "float64"}),
	})
}

var powRef = binKernel(math.Pow)

// square32 computes y = x² for a float32 pow whose exponent is one element
// equal to 2 (the layer norms of exported transformers), as x·x: the
// product of two float32 values is exact in float64, so rounding it once
// to float32 is bitwise what math.Pow's float64 result rounds to. It
// reports false, writing nothing, for anything else.
func square32(y, x, e *T) bool {
	if y.DType() != tensor.Float32 || x.DType() != tensor.Float32 || e.DType() != tensor.Float32 || e.Len() != 1 ||
		!x.Shape().Equal(y.Shape()) || !x.IsContiguous() || !y.IsContiguous() || e.Contiguous().F32()[0] != 2 {
		return false
	}
	xv, yv := x.F32(), y.F32()
	parallel.For(len(xv), 1<<14, func(lo, hi int) {
		for i, v := range xv[lo:hi] {
			yv[lo+i] = v * v
		}
	})
	return true
}
