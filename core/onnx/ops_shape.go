package onnx

import (
	"fmt"

	"paddle/core/graph"
	"paddle/core/op"
	"paddle/core/tensor"
)

// Builders for movement and shape ops whose ONNX forms take shape-like
// inputs (or take them as attributes in older opsets).

func registerShape() {
	builders["Reshape"] = buildReshape
	builders["Squeeze"] = axesOp("squeeze", 13)
	builders["Unsqueeze"] = axesOp("unsqueeze", 13)
	builders["Slice"] = buildSlice
	builders["Split"] = buildSplit
	builders["Pad"] = buildPad
	builders["Expand"] = shapeInput("broadcast_to", "shape")
	builders["Tile"] = shapeInput("tile", "repeats")
	builders["ConstantOfShape"] = buildConstantOfShape
	builders["Range"] = buildRange
	builders["TopK"] = buildTopK
	builders["CumSum"] = buildCumSum
	builders["ArgMax"] = buildArg("argmax")
	builders["ArgMin"] = buildArg("argmin")
}

// unary emits registry op name on input 0 with attributes a and output 0 of x's dtype.
func (c *ctx) unary(name string, a op.Attrs) *graph.Node {
	x := c.in(0)
	return c.emit(name, a, []*graph.Value{x}, c.out(0, x.Meta.DType))
}

func buildReshape(c *ctx) error {
	a, err := c.attrs()
	if err != nil {
		return err
	}
	if c.opset < 5 {
		c.unary("reshape", op.Attrs{"shape": a.Ints("shape", nil)})
		return nil
	}
	nd := c.unary("reshape", op.Attrs{})
	kind := graph.AttrReshape
	if a.Bool("allowzero", false) {
		kind = graph.AttrInts
	}
	return c.attrIn(nd, 1, "shape", kind)
}

// axesOp: Squeeze/Unsqueeze take axes as an attribute before opset since, as an input after.
func axesOp(name string, since int) func(c *ctx) error {
	return func(c *ctx) error {
		a, err := c.attrs()
		if err != nil {
			return err
		}
		at := op.Attrs{}
		if ax, ok := a["axes"]; ok {
			at["axes"] = ax
		}
		nd := c.unary(name, at)
		if c.opset >= since {
			return c.attrIn(nd, 1, "axes", graph.AttrInts)
		}
		return nil
	}
}

func buildSlice(c *ctx) error {
	a, err := c.attrs()
	if err != nil {
		return err
	}
	if c.opset < 10 {
		at := op.Attrs{"starts": a.Ints("starts", nil), "ends": a.Ints("ends", nil)}
		if ax := a.Ints("axes", nil); ax != nil {
			at["axes"] = ax
		}
		c.unary("slice", at)
		return nil
	}
	nd := c.unary("slice", op.Attrs{})
	for i, k := range []string{"starts", "ends", "axes", "steps"} {
		if err := c.attrIn(nd, i+1, k, graph.AttrInts); err != nil {
			return err
		}
	}
	return nil
}

func buildSplit(c *ctx) error {
	a, err := c.attrs()
	if err != nil {
		return err
	}
	x := c.in(0)
	at := op.Attrs{"axis": a.Int("axis", 0)}
	if s := a.Ints("split", nil); s != nil {
		at["sizes"] = s
	} else if c.in(1) == nil {
		at["num_outputs"] = a.Int("num_outputs", len(c.n.Output))
	}
	out := make([]*graph.Value, len(c.n.Output))
	for i := range out {
		out[i] = c.out(i, x.Meta.DType)
	}
	nd := c.emit("split", at, []*graph.Value{x}, out...)
	if c.opset >= 13 {
		return c.attrIn(nd, 1, "sizes", graph.AttrInts)
	}
	return nil
}

func buildPad(c *ctx) error {
	a, err := c.attrs()
	if err != nil {
		return err
	}
	mode := a.Str("mode", "constant")
	switch mode {
	case "constant", "reflect", "edge", "wrap":
	default:
		return fmt.Errorf("pad mode %q is not supported", mode)
	}
	at := op.Attrs{"mode": mode}
	if c.opset < 11 {
		at["pads"] = a.Ints("pads", nil)
		at["value"] = a.Float("value", 0)
		c.unary("pad", at)
		return nil
	}
	nd := c.unary("pad", at)
	if err := c.attrIn(nd, 1, "pads", graph.AttrInts); err != nil {
		return err
	}
	if err := c.attrIn(nd, 2, "value", graph.AttrFloat); err != nil {
		return err
	}
	return c.attrIn(nd, 3, "axes", graph.AttrInts)
}

// shapeInput: ops whose second input is a shape-like list (Expand, Tile).
func shapeInput(name, attr string) func(c *ctx) error {
	return func(c *ctx) error {
		nd := c.unary(name, op.Attrs{})
		return c.attrIn(nd, 1, attr, graph.AttrInts)
	}
}

func buildConstantOfShape(c *ctx) error {
	a, err := c.attrs()
	if err != nil {
		return err
	}
	d, v := tensor.Float32, 0.0
	if t, ok := a["value"].(*tensor.Tensor); ok {
		d, v = t.DType(), t.Float64s()[0]
	}
	nd := c.emit("constant_of_shape", op.Attrs{"value": v, "dtype": d.String()}, nil, c.out(0, d))
	if s := c.in(0); s != nil && s.Const != nil {
		nd.Attrs["shape"] = intsOf(s.Const) // an empty shape is a scalar
		return nil
	}
	return c.attrIn(nd, 0, "shape", graph.AttrInts)
}

func buildRange(c *ctx) error {
	d := c.in(0).Meta.DType
	nd := c.emit("range", op.Attrs{"dtype": d.String()}, nil, c.out(0, d))
	for i, k := range []string{"start", "limit", "delta"} {
		if err := c.attrIn(nd, i, k, graph.AttrFloat); err != nil {
			return err
		}
	}
	return nil
}

func buildTopK(c *ctx) error {
	a, err := c.attrs()
	if err != nil {
		return err
	}
	x := c.in(0)
	at := op.Attrs{"axis": a.Int("axis", -1), "largest": a.Bool("largest", true), "sorted": a.Bool("sorted", true)}
	if c.opset < 10 {
		at["k"] = a.Int("k", 0)
	}
	nd := c.emit("topk", at, []*graph.Value{x}, c.out(0, x.Meta.DType), c.out(1, tensor.Int64))
	if c.opset >= 10 {
		return c.attrIn(nd, 1, "k", graph.AttrInt)
	}
	return nil
}

func buildCumSum(c *ctx) error {
	a, err := c.attrs()
	if err != nil {
		return err
	}
	nd := c.unary("cumsum", op.Attrs{"exclusive": a.Bool("exclusive", false), "reverse": a.Bool("reverse", false)})
	return c.attrIn(nd, 1, "axis", graph.AttrInt)
}

func buildArg(name string) func(c *ctx) error {
	return func(c *ctx) error {
		a, err := c.attrs()
		if err != nil {
			return err
		}
		at := op.Attrs{"axis": a.Int("axis", 0), "keepdims": a.Bool("keepdims", true),
			"select_last_index": a.Bool("select_last_index", false)}
		c.emit(name, at, []*graph.Value{c.in(0)}, c.out(0, tensor.Int64))
		return nil
	}
}
