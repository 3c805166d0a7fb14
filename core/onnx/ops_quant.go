package onnx

import (
	"fmt"

	"paddle/core/graph"
	"paddle/core/op"
	"paddle/core/tensor"
)

// Builders for quantized models: QuantizeLinear/DequantizeLinear (QDQ
// models), QLinearConv, QLinearMatMul and ConvInteger (MatMulInteger maps
// onto matmul_integer directly). Scales and zero points must be constants
// (initializers or Constant nodes), as the quantizers write them.

func registerQuant() {
	builders["QuantizeLinear"] = buildQDQ("quantize_linear")
	builders["DequantizeLinear"] = buildQDQ("dequantize_linear")
	builders["QLinearConv"] = buildQLinearConv
	builders["QLinearMatMul"] = buildQLinearMatMul
	builders["ConvInteger"] = buildConvInteger
}

// constIn reads input i as a constant; name is the ONNX input's role for
// the error.
func (c *ctx) constIn(i int, name string) (*tensor.Tensor, error) {
	v := c.in(i)
	if v == nil {
		return nil, nil
	}
	if v.Const == nil {
		return nil, fmt.Errorf("input %d (%s) must be a constant", i, name)
	}
	return v.Const, nil
}

// scaleZero reads a scale input and its optional zero point input.
func (c *ctx) scaleZero(si, zi int, what string) ([]float64, []int, tensor.DType, error) {
	s, err := c.constIn(si, what+" scale")
	if err != nil {
		return nil, nil, 0, err
	}
	if s == nil {
		return nil, nil, 0, fmt.Errorf("input %d (%s scale) is missing", si, what)
	}
	z, err := c.constIn(zi, what+" zero point")
	if err != nil {
		return nil, nil, 0, err
	}
	zero, zd := []int{0}, tensor.Uint8
	if z != nil {
		zero, zd = nil, z.DType()
		for _, v := range z.Float64s() {
			zero = append(zero, int(v))
		}
	}
	return s.Float64s(), zero, zd, nil
}

func buildQDQ(name string) func(c *ctx) error {
	return func(c *ctx) error {
		scale, zero, zd, err := c.scaleZero(1, 2, "the")
		if err != nil {
			return err
		}
		a := op.QDQAttrs(scale, zero, 1, zd)
		if ax, ok := c.rawInt("axis"); ok {
			a["axis"] = ax
		}
		out := tensor.Float32
		if name == "quantize_linear" {
			if zd != tensor.Uint8 && zd != tensor.Int8 {
				return fmt.Errorf("zero point is %v: want uint8 or int8", zd)
			}
			out = zd
		}
		c.emit(name, a, []*graph.Value{c.in(0)}, c.out(0, out))
		return nil
	}
}

// rawInt reads an int attribute of the node.
func (c *ctx) rawInt(name string) (int, bool) {
	for _, at := range c.n.Attribute {
		if at.Name == name {
			return int(at.I), true
		}
	}
	return 0, false
}

// quantConvAttrs turns the node's conv attributes into qconv2d's.
func (c *ctx) quantConvAttrs() (op.Attrs, error) {
	a, err := c.attrs()
	if err != nil {
		return nil, err
	}
	delete(a, "kernel_shape")
	if g, ok := a["group"]; ok {
		a["groups"] = g
		delete(a, "group")
	}
	return a, nil
}

func merge(a, b op.Attrs) op.Attrs {
	for k, v := range b {
		a[k] = v
	}
	return a
}

func buildQLinearConv(c *ctx) error {
	a, err := c.quantConvAttrs()
	if err != nil {
		return err
	}
	xs, xz, _, err := c.scaleZero(1, 2, "x")
	if err != nil {
		return err
	}
	ws, wz, _, err := c.scaleZero(4, 5, "w")
	if err != nil {
		return err
	}
	ys, yz, yd, err := c.scaleZero(6, 7, "y")
	if err != nil {
		return err
	}
	if len(xs) != 1 || len(xz) != 1 || len(ys) != 1 || len(yz) != 1 {
		return fmt.Errorf("x and y need one scale and zero point each")
	}
	in := []*graph.Value{c.in(0), c.in(3)}
	if b := c.in(8); b != nil {
		in = append(in, b)
	}
	c.emit("qconv2d", merge(a, op.QuantAttrs(xs[0], xz[0], ws, wz, yd, ys[0], yz[0])), in, c.out(0, yd))
	return nil
}

func buildQLinearMatMul(c *ctx) error {
	xs, xz, _, err := c.scaleZero(1, 2, "a")
	if err != nil {
		return err
	}
	ws, wz, _, err := c.scaleZero(4, 5, "b")
	if err != nil {
		return err
	}
	ys, yz, yd, err := c.scaleZero(6, 7, "y")
	if err != nil {
		return err
	}
	if len(xs) != 1 || len(xz) != 1 || len(ys) != 1 || len(yz) != 1 {
		return fmt.Errorf("a and y need one scale and zero point each")
	}
	c.emit("qgemm", op.QuantAttrs(xs[0], xz[0], ws, wz, yd, ys[0], yz[0]), []*graph.Value{c.in(0), c.in(3)}, c.out(0, yd))
	return nil
}

func buildConvInteger(c *ctx) error {
	a, err := c.quantConvAttrs()
	if err != nil {
		return err
	}
	xz, wz := []int{0}, []int{0}
	for i, dst := range []*[]int{&xz, &wz} {
		z, err := c.constIn(2+i, "zero point")
		if err != nil {
			return err
		}
		if z != nil {
			*dst = nil
			for _, v := range z.Float64s() {
				*dst = append(*dst, int(v))
			}
		}
	}
	if len(xz) != 1 {
		return fmt.Errorf("x needs one zero point")
	}
	c.emit("qconv2d", merge(a, op.QuantAttrs(1, xz[0], []float64{1}, wz, tensor.Int32, 1, 0)), []*graph.Value{c.in(0), c.in(1)}, c.out(0, tensor.Int32))
	return nil
}
