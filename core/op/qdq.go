package op

import (
	"fmt"

	"paddle/core/parallel"
	"paddle/core/tensor"
)

// quantize_linear and dequantize_linear are ONNX QuantizeLinear and
// DequantizeLinear with constant scales and zero points (attributes
// "scale" and "zero": one value, or one per index of axis "axis"):
//
//	q = clamp(roundEven(x / scale) + zero)   (uint8 or int8: attribute "dtype")
//	x = (q - zero) · scale                   (float32, from uint8, int8 or int32)
//
// A QDQ model runs them as written; core/graph/pass may fold pairs around
// a Conv or MatMul into qconv2d/qgemm.
var (
	quantizeLinearDef = define(&Def{
		Name: "quantize_linear", ONNX: "QuantizeLinear", Arity: 1, Overwrites: true,
		Export: exportQDQ("QuantizeLinear"),
		Infer: func(in []Meta, a Attrs) ([]Meta, error) {
			if in[0].DType != tensor.Float32 {
				return nil, fmt.Errorf("input is %v: want float32", in[0].DType)
			}
			d, err := tensor.ParseDType(a.Str("dtype", "uint8"))
			if err != nil || (d != tensor.Uint8 && d != tensor.Int8) {
				return nil, fmt.Errorf("dtype %q: want uint8 or int8", a.Str("dtype", ""))
			}
			if err := checkQDQAxis(in[0].Shape, a); err != nil {
				return nil, err
			}
			return []Meta{{d, in[0].Shape}}, nil
		},
		Ref: func(out, in []*T, a Attrs) {
			x := in[0].F32()
			scale, zero, axis := qdqParams(in[0].Shape(), a)
			lo, hi := float32(0), float32(255)
			signed := out[0].DType() == tensor.Int8
			if signed {
				lo, hi = -128, 127
			}
			var u []uint8
			if signed {
				u = int8Bytes(out[0].I8())
			} else {
				u = out[0].U8()
			}
			if axis < 0 { // one scale: split across the threads
				parallel.For(len(x), 1<<14, func(i0, i1 int) {
					quantizeRow(u[i0:i1], x[i0:i1], scale[0], float32(zero[0]), lo, hi, signed)
				})
				return
			}
			qdqRuns(in[0].Shape(), axis, len(x), func(c, i0, i1 int) {
				quantizeRow(u[i0:i1], x[i0:i1], scale[c], float32(zero[c]), lo, hi, signed)
			})
		},
	})
	dequantizeLinearDef = define(&Def{
		Name: "dequantize_linear", ONNX: "DequantizeLinear", Arity: 1, Overwrites: true,
		Export: exportQDQ("DequantizeLinear"),
		Infer: func(in []Meta, a Attrs) ([]Meta, error) {
			if d := in[0].DType; d != tensor.Uint8 && d != tensor.Int8 && d != tensor.Int32 {
				return nil, fmt.Errorf("input is %v: want uint8, int8 or int32", d)
			}
			if err := checkQDQAxis(in[0].Shape, a); err != nil {
				return nil, err
			}
			return []Meta{{tensor.Float32, in[0].Shape}}, nil
		},
		Ref: func(out, in []*T, a Attrs) {
			scale, zero, axis := qdqParams(in[0].Shape(), a)
			o := out[0].F32()
			n := len(o)
			qdqRuns(in[0].Shape(), axis, n, func(c, i0, i1 int) {
				sc, z := scale[c], int32(zero[c])
				switch in[0].DType() {
				case tensor.Uint8:
					for i, v := range in[0].U8()[i0:i1] {
						o[i0+i] = float32(int32(v)-z) * sc
					}
				case tensor.Int8:
					for i, v := range in[0].I8()[i0:i1] {
						o[i0+i] = float32(int32(v)-z) * sc
					}
				default:
					for i, v := range in[0].I32()[i0:i1] {
						o[i0+i] = float32(v-z) * sc
					}
				}
			})
		},
	})
)

// QDQAttrs are quantize_linear's/dequantize_linear's attributes: scales
// and zero points (one, or one per index of axis), and the quantized dtype.
func QDQAttrs(scale []float64, zero []int, axis int, d tensor.DType) Attrs {
	return Attrs{"scale": append([]float64(nil), scale...), "zero": append([]int(nil), zero...), "axis": axis, "dtype": d.String()}
}

func checkQDQAxis(s tensor.Shape, a Attrs) error {
	sc, z := a.Floats("scale", nil), a.Ints("zero", []int{0})
	if len(sc) == 0 {
		return fmt.Errorf("attribute scale is missing")
	}
	for _, v := range sc {
		if !(v > 0) {
			return fmt.Errorf("scale %v: scales must be positive", sc)
		}
	}
	if len(sc) == 1 && len(z) == 1 {
		return nil
	}
	axis := a.Int("axis", 1)
	if axis < 0 {
		axis += len(s)
	}
	if axis < 0 || axis >= len(s) {
		return fmt.Errorf("axis %d out of range for shape %v", a.Int("axis", 1), s)
	}
	if len(sc) != s[axis] || (len(z) != 1 && len(z) != s[axis]) {
		return fmt.Errorf("%d scales and %d zero points for axis %d of shape %v", len(sc), len(z), axis, s)
	}
	return nil
}

// qdqParams returns per-channel float32 scales and zero points (one entry
// when per-tensor) and the resolved axis (-1 when per-tensor).
func qdqParams(s tensor.Shape, a Attrs) ([]float32, []int, int) {
	sc, z := a.Floats("scale", nil), a.Ints("zero", []int{0})
	n := max(len(sc), len(z))
	scale, zero := make([]float32, n), make([]int, n)
	for i := range n {
		scale[i], zero[i] = float32(sc[min(i, len(sc)-1)]), z[min(i, len(z)-1)]
	}
	if n == 1 {
		return scale, zero, -1
	}
	axis := a.Int("axis", 1)
	if axis < 0 {
		axis += len(s)
	}
	return scale, zero, axis
}

// qdqRuns calls f(channel, i0, i1) for each run [i0, i1) of the n flat
// elements of shape s that share one channel of axis (one run, channel 0,
// when axis < 0).
func qdqRuns(s tensor.Shape, axis, n int, f func(c, i0, i1 int)) {
	if axis < 0 {
		f(0, 0, n)
		return
	}
	inner := 1
	for _, d := range s[axis+1:] {
		inner *= d
	}
	for i0 := 0; i0 < n; i0 += inner {
		f(i0/inner%s[axis], i0, min(i0+inner, n))
	}
}

// quantizeRow sets u[i] = clamp(roundEven(x[i]/scale) + zero, lo, hi), as
// uint8 or (signed) the bits of an int8, the backend's Quantize8 taking
// the prefix it can.
func quantizeRow(u []byte, x []float32, scale, zero, lo, hi float32, signed bool) {
	i0 := 0
	if k := Active().Quantize8; k != nil {
		i0 = k(u, x, scale, zero, signed)
	}
	for i := i0; i < len(x); i++ {
		q := min(max(roundEven32(x[i]/scale)+zero, lo), hi)
		if signed {
			u[i] = byte(int8(q))
		} else {
			u[i] = uint8(q)
		}
	}
}

// requantizeRow is quantizeRow multiplying by inv = 1/scale: u[i] =
// clamp(roundEven(x[i]·inv) + zero). The int8 ops' epilogues requantize
// with it (a multiply, not a division per element: ONNX Runtime's
// requantization multiplies too); the result is quantize_linear's within
// one step.
func requantizeRow(u []byte, x []float32, inv, zero, lo, hi float32, signed bool) {
	i0 := 0
	if k := Active().Requantize8; k != nil {
		i0 = k(u, x, inv, zero, signed)
	}
	for i := i0; i < len(x); i++ {
		q := min(max(roundEven32(x[i]*inv)+zero, lo), hi)
		if signed {
			u[i] = byte(int8(q))
		} else {
			u[i] = uint8(q)
		}
	}
}

// roundEven32 rounds to the nearest integer, ties to even, as
// math.RoundToEven does, on float32 values.
func roundEven32(v float32) float32 {
	const big = 1 << 23 // beyond it every float32 is an integer
	if v >= big || v <= -big || v != v {
		return v
	}
	if v >= 0 {
		return (v + big) - big
	}
	return (v - big) + big
}

// exportQDQ writes the node with its scales and zero points as initializers.
func exportQDQ(opType string) ExportRule {
	return func(w ONNXWriter, in, out []string) error {
		a := w.Attrs()
		sc, z := a.Floats("scale", nil), a.Ints("zero", []int{0})
		st := tensor.New(tensor.Float32, len(sc))
		for i, v := range sc {
			st.F32()[i] = float32(v)
		}
		zd := w.In(0).DType
		if opType == "QuantizeLinear" {
			zd = w.Out(0).DType
		}
		zt := tensor.New(zd, len(z))
		for i, v := range z {
			zt.SetAt(float64(v), i)
		}
		if len(sc) == 1 {
			st, zt = st.Reshape(), zt.Reshape()
		}
		w.Node(opType, []string{in[0], w.Const("scale", st), w.Const("zero_point", zt)}, out, ONNXInt("axis", a.Int("axis", 1)))
		return nil
	}
}
