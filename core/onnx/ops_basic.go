package onnx

import (
	"fmt"

	"paddle/core/graph"
	"paddle/core/op"
	"paddle/core/tensor"
)

// Builders for elementwise and bookkeeping ops: Constant, Identity, Dropout,
// Cast, Clip, Pow, the variadic Min/Max/Sum/Mean.

func registerBasic() {
	builders["Constant"] = buildConstant
	builders["Identity"] = func(c *ctx) error { c.alias(0, c.in(0)); return nil }
	builders["Dropout"] = buildDropout
	builders["Cast"] = buildCast
	builders["CastLike"] = func(c *ctx) error {
		d := c.in(1).Meta.DType
		c.emit("cast", op.Attrs{"dtype": d.String()}, []*graph.Value{c.in(0)}, c.out(0, d))
		return nil
	}
	builders["Clip"] = buildClip
	builders["Pow"] = buildPow
	builders["Max"] = variadic("maximum", false)
	builders["Min"] = variadic("minimum", false)
	builders["Sum"] = variadic("add", false)
	builders["Mean"] = variadic("add", true)
	builders["OneHot"] = buildOneHot
}

// buildOneHot: constant depth, values (0, 1) and the last axis only.
func buildOneHot(c *ctx) error {
	a, err := c.attrs()
	if err != nil {
		return err
	}
	depth, vals := c.in(1), c.in(2)
	if depth == nil || depth.Const == nil || vals == nil || vals.Const == nil {
		return fmt.Errorf("depth and values must be constants")
	}
	if v := vals.Const.Float64s(); len(v) != 2 || v[0] != 0 || v[1] != 1 {
		return fmt.Errorf("values %v: only (0, 1) is supported", v)
	}
	if ax := a.Int("axis", -1); ax != -1 {
		return fmt.Errorf("axis %d: only the last axis (-1) is supported", ax)
	}
	d := vals.Const.DType()
	c.emit("one_hot", op.Attrs{"depth": int(depth.Const.Float64s()[0]), "dtype": d.String()}, []*graph.Value{c.in(0)}, c.out(0, d))
	return nil
}

func buildConstant(c *ctx) error {
	a, err := c.attrs()
	if err != nil {
		return err
	}
	var t *tensor.Tensor
	switch {
	case a["value"] != nil:
		t = a["value"].(*tensor.Tensor)
	case a["value_float"] != nil:
		t = tensor.Scalar(float32(a.Float("value_float", 0)))
	case a["value_floats"] != nil:
		f := a.Floats("value_floats", nil)
		v := make([]float32, len(f))
		for i, x := range f {
			v[i] = float32(x)
		}
		t = tensor.FromSlice(v, len(v))
	case a["value_int"] != nil:
		t = tensor.Scalar(int64(a.Int("value_int", 0)))
	case a["value_ints"] != nil:
		iv := a.Ints("value_ints", nil)
		v := make([]int64, len(iv))
		for i, x := range iv {
			v[i] = int64(x)
		}
		t = tensor.FromSlice(v, len(v))
	default:
		return fmt.Errorf("no supported value attribute (value, value_float(s), value_int(s))")
	}
	c.im.vals[c.n.Output[0]] = c.im.constValue(c.n.Output[0], t)
	return nil
}

// buildDropout: inference is the identity; the optional mask is all true.
func buildDropout(c *ctx) error {
	a, err := c.attrs()
	if err != nil {
		return err
	}
	if tm := c.in(2); tm != nil && (tm.Const == nil || tm.Const.Float64s()[0] != 0) {
		return fmt.Errorf("training_mode dropout is not supported (its output is random)")
	}
	if a.Int("is_test", 1) == 0 && c.opset < 7 {
		return fmt.Errorf("training dropout is not supported")
	}
	x := c.in(0)
	c.alias(0, x)
	if c.nout() > 1 {
		s := c.emit1("shape", nil, tensor.Int64, x)
		nd := c.emit("constant_of_shape", op.Attrs{"value": 1.0, "dtype": "bool"}, nil, c.out(1, tensor.Bool))
		nd.AttrIn = []graph.AttrIn{{Attr: "shape", Kind: graph.AttrInts, V: s}}
	}
	return nil
}

func buildCast(c *ctx) error {
	a, err := c.attrs()
	if err != nil {
		return err
	}
	return castTo(c, c.in(0), a.Int("to", 0))
}

func castTo(c *ctx, x *graph.Value, to int) error {
	d, err := DType(onnxDataType(to))
	if err != nil {
		return err
	}
	if x.Const != nil { // fold: weights are often cast constants
		c.im.vals[c.n.Output[0]] = c.im.constValue(c.n.Output[0], x.Const.Cast(d))
		return nil
	}
	c.emit("cast", op.Attrs{"dtype": d.String()}, []*graph.Value{x}, c.out(0, d))
	return nil
}

// buildClip: bounds are attributes before opset 11, optional inputs after.
func buildClip(c *ctx) error {
	a, err := c.attrs()
	if err != nil {
		return err
	}
	x := c.in(0)
	at := op.Attrs{}
	if c.opset < 11 {
		if v, ok := a["min"]; ok {
			at["min"] = v
		}
		if v, ok := a["max"]; ok {
			at["max"] = v
		}
	}
	nd := c.emit("clip", at, []*graph.Value{x}, c.out(0, x.Meta.DType))
	if err := c.attrIn(nd, 1, "min", graph.AttrFloat); err != nil {
		return err
	}
	return c.attrIn(nd, 2, "max", graph.AttrFloat)
}

// buildPow casts an exponent of another dtype to the base's (ONNX allows mixing).
func buildPow(c *ctx) error {
	x, y := c.in(0), c.in(1)
	if y.Meta.DType != x.Meta.DType {
		if y.Const != nil {
			y = c.konst(y.Const.Cast(x.Meta.DType))
		} else {
			y = c.emit1("cast", op.Attrs{"dtype": x.Meta.DType.String()}, x.Meta.DType, y)
		}
	}
	c.emit("pow", nil, []*graph.Value{x, y}, c.out(0, x.Meta.DType))
	return nil
}

// variadic chains a binary op over all inputs (Mean divides by their count).
func variadic(name string, mean bool) func(c *ctx) error {
	return func(c *ctx) error {
		acc := c.in(0)
		n := len(c.n.Input)
		d := acc.Meta.DType
		if n == 1 && !mean {
			c.alias(0, acc)
			return nil
		}
		for i := 1; i < n; i++ {
			if i == n-1 && !mean {
				c.emit(name, nil, []*graph.Value{acc, c.in(i)}, c.out(0, d))
				return nil
			}
			acc = c.emit1(name, nil, d, acc, c.in(i))
		}
		k := c.konst(tensor.Full(d, float64(n)))
		c.emit("div", nil, []*graph.Value{acc, k}, c.out(0, d))
		return nil
	}
}
