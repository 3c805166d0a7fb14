package pdmodel

import (
	"fmt"
	"math"

	"paddle/core/graph"
	"paddle/core/op"
	"paddle/core/tensor"
)

// Paddle's quantize_linear / dequantize_linear (Paddle ≥ 2.4, as PaddleSlim's
// quantized inference models write them) become the IR's QDQ ops, so that
// core/graph/pass's QDQ pass folds a conv2d/matmul between them into the int8
// kernels. Paddle's Scale input is the abs-max s of the range, its ZeroPoint
// zero; with bit_length 8 (b = 127):
//
//	quantize_linear:   q = clip(round(x·b/s), -b, b)
//	dequantize_linear: x = q·s/b
//
// so the IR's scale is s/b, the dtype int8 and the zero point 0; quant_axis
// -1 is per tensor, else Scale holds one s per index of that axis (per-axis
// QDQ). The clip to ±b is a clip(-s, s) before the IR's quantize_linear
// (which clamps to [-128, 127]). round_type 0 rounds half to even, as the IR
// does; round_type 1 (half away from zero) is computed exactly on constants
// and rounds half to even on variables: the two differ only at exact ties, by
// one step. PaddleSlim stores quantized weights as float tensors holding the
// integers q; a dequantize_linear of such a persistable weight casts it to an
// int8 constant, after checking every value is an integer in [-b, b].
func init() {
	builders["quantize_linear"] = buildQuantize
	builders["dequantize_linear"] = buildDequantize
}

// paddleQuant is the part quantize_linear and dequantize_linear share: the
// IR's scales (s/127, one or one per index of axis), axis (-1 per tensor),
// Paddle's abs-max scales, and the round type.
type paddleQuant struct {
	steps, absMax []float64
	axis          int
	roundType     int
}

// quantParams reads and checks the attributes and the Scale and ZeroPoint
// inputs of the op, whose X has dims dims (nil when unknown, -1 entries).
func (c *ctx) quantParams(dims []int) (*paddleQuant, error) {
	if b := c.int("bit_length", 8); b != 8 {
		return nil, fmt.Errorf("attribute bit_length %d is not supported (only 8)", b)
	}
	if c.bool("only_observer", false) {
		return nil, fmt.Errorf("attribute only_observer true is not supported")
	}
	q := &paddleQuant{roundType: c.int("round_type", 0), axis: c.int("quant_axis", -1)}
	if q.roundType != 0 && q.roundType != 1 {
		return nil, fmt.Errorf("attribute round_type %d is not supported (0: half to even, 1: half away from zero)", q.roundType)
	}
	s, err := c.must("Scale")
	if err != nil {
		return nil, err
	}
	if s.Const == nil {
		return nil, fmt.Errorf("input Scale must be a persistable variable")
	}
	q.absMax = s.Const.Contiguous().Float64s()
	for _, v := range q.absMax {
		if !(v > 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("input Scale %v: scales must be positive and finite", q.absMax)
		}
	}
	if z := c.in("ZeroPoint"); z != nil {
		if z.Const == nil {
			return nil, fmt.Errorf("input ZeroPoint must be a persistable variable")
		}
		for _, v := range z.Const.Float64s() {
			if v != 0 {
				return nil, fmt.Errorf("input ZeroPoint %v: only zero points of 0 are supported", z.Const.Float64s())
			}
		}
	}
	if q.axis < 0 {
		if q.axis != -1 || len(q.absMax) != 1 {
			return nil, fmt.Errorf("attribute quant_axis %d with %d scales: want -1 and one scale, or a channel axis", q.axis, len(q.absMax))
		}
	} else if dims != nil && (q.axis >= len(dims) || dims[q.axis] >= 0 && dims[q.axis] != len(q.absMax)) {
		return nil, fmt.Errorf("attribute quant_axis %d with %d scales does not fit X's dims %v", q.axis, len(q.absMax), dims)
	}
	for _, v := range q.absMax {
		q.steps = append(q.steps, v/127)
	}
	return q, nil
}

// attrs are the IR's QDQ attributes.
func (q *paddleQuant) attrs() op.Attrs {
	axis := q.axis
	if axis < 0 {
		axis = 1 // unused with one scale
	}
	return op.QDQAttrs(q.steps, make([]int, len(q.steps)), axis, tensor.Int8)
}

// channelOf returns, for a tensor of shape s, the scale index of flat element i.
func (q *paddleQuant) channelOf(s tensor.Shape) func(i int) int {
	if q.axis < 0 {
		return func(int) int { return 0 }
	}
	inner := 1
	for _, d := range s[q.axis+1:] {
		inner *= d
	}
	return func(i int) int { return i / inner % s[q.axis] }
}

func buildQuantize(c *ctx) error {
	x, err := c.must("X")
	if err != nil {
		return err
	}
	q, err := c.quantParams(c.dims(x))
	if err != nil {
		return err
	}
	if len(c.op.Output("Y")) == 0 {
		return fmt.Errorf("output Y is missing")
	}
	if x.Const != nil { // a weight quantized in the program: Paddle's formula, exactly
		xs := x.Const.Contiguous()
		ch := q.channelOf(xs.Shape())
		t := tensor.New(tensor.Int8, xs.Shape()...)
		for i, v := range xs.Float64s() {
			s := q.absMax[ch(i)]
			r := min(max(v, -s), s) * 127 / s
			if q.roundType == 0 {
				r = math.RoundToEven(r)
			} else {
				r = math.Round(r)
			}
			t.I8()[i] = int8(r)
		}
		c.im.vals[c.op.Output("Y")[0]] = c.konst(t)
		return nil
	}
	if !c.bool("is_test", true) {
		return fmt.Errorf("attribute is_test false is not supported (the op would recompute its scale from the data)")
	}
	if q.axis >= 0 {
		return fmt.Errorf("attribute quant_axis %d: per-channel quantization of a non-persistable X is not supported", q.axis)
	}
	s := q.absMax[0]
	cl := c.emit1("clip", op.Attrs{"min": -s, "max": s}, tensor.Float32, x)
	c.emit("quantize_linear", q.attrs(), []*graph.Value{cl}, c.out("Y", tensor.Int8))
	return nil
}

func buildDequantize(c *ctx) error {
	x, err := c.must("X")
	if err != nil {
		return err
	}
	q, err := c.quantParams(c.dims(x))
	if err != nil {
		return err
	}
	if x.Const != nil && x.Const.DType() != tensor.Int8 {
		if x, err = int8Weight(x, c); err != nil {
			return err
		}
	}
	if x.Meta.DType != tensor.Int8 {
		return fmt.Errorf("input X must be a quantize_linear's output or a persistable weight holding integers")
	}
	c.emit("dequantize_linear", q.attrs(), []*graph.Value{x}, c.out("Y", tensor.Float32))
	return nil
}

// int8Weight casts a float weight holding integers (PaddleSlim's quantized
// weights) to an int8 constant, checking each value is an integer in
// [-127, 127].
func int8Weight(x *graph.Value, c *ctx) (*graph.Value, error) {
	xs := x.Const.Contiguous()
	t := tensor.New(tensor.Int8, xs.Shape()...)
	for i, v := range xs.Float64s() {
		if v != math.Trunc(v) || v < -127 || v > 127 {
			return nil, fmt.Errorf("weight %q: element %d is %v: want integers in [-127, 127] (a quantized weight)", x.Name, i, v)
		}
		t.I8()[i] = int8(v)
	}
	return c.konst(t), nil
}
