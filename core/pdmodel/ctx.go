package pdmodel

import (
	"fmt"
	"strings"

	"paddle/core/graph"
	"paddle/core/op"
	"paddle/core/pdmodel/pdpb"
	"paddle/core/tensor"
)

// ctx is what a builder sees: the Paddle op and ways to emit IR nodes.
type ctx struct {
	im   *importer
	op   *pdpb.Op
	name string // node name: "<type>_<index in block 0>"
}

// errorf formats an error naming the format, the op and its place.
func (c *ctx) errorf(format string, args ...any) error {
	return fmt.Errorf("pdmodel: operator %s (%q): %s", c.op.Type, c.name, fmt.Sprintf(format, args...))
}

// in returns the first variable of input slot s, or nil when the slot is empty.
func (c *ctx) in(s string) *graph.Value {
	a := c.op.Input(s)
	if len(a) == 0 {
		return nil
	}
	return c.im.vals[a[0]]
}

// must returns input slot s, or an error when it is missing.
func (c *ctx) must(s string) (*graph.Value, error) {
	if v := c.in(s); v != nil {
		return v, nil
	}
	return nil, fmt.Errorf("input %s is missing", s)
}

// rank is the rank of variable v as its VarDesc gives it, or -1 when unknown.
func (c *ctx) rank(v *graph.Value) int {
	if v.Const != nil {
		return len(v.Const.Shape())
	}
	if vd := c.im.vars[v.Name]; vd != nil {
		return len(vd.Dims)
	}
	if v.Meta.Shape != nil {
		return len(v.Meta.Shape)
	}
	return -1
}

// dims are variable v's dims from its VarDesc (-1 unknown), or nil.
func (c *ctx) dims(v *graph.Value) []int {
	if v.Const != nil {
		return v.Const.Shape()
	}
	vd := c.im.vars[v.Name]
	if vd == nil {
		return nil
	}
	out := make([]int, len(vd.Dims))
	for i, d := range vd.Dims {
		out[i] = int(d)
	}
	return out
}

// out makes the value bound to output slot s with dtype d (a temporary when
// the slot is empty).
func (c *ctx) out(s string, d tensor.DType) *graph.Value {
	a := c.op.Output(s)
	if len(a) == 0 {
		return c.tmp(d)
	}
	return c.outNamed(a[0], d)
}

func (c *ctx) outNamed(name string, d tensor.DType) *graph.Value {
	v := &graph.Value{Name: name, Meta: op.Meta{DType: d}}
	c.im.vals[name] = v
	return v
}

// alias makes output slot s another name of v (dropout, assign).
func (c *ctx) alias(s string, v *graph.Value) error {
	a := c.op.Output(s)
	if len(a) == 0 {
		return fmt.Errorf("output %s is missing", s)
	}
	if v.Const == nil && strings.HasPrefix(v.Name, c.name+"/t") {
		v.Name = a[0] // a result of this op takes its variable's name, so rank sees its VarDesc
	}
	c.im.vals[a[0]] = v
	return nil
}

func (c *ctx) tmp(d tensor.DType) *graph.Value {
	c.im.tmp++
	return &graph.Value{Name: fmt.Sprintf("%s/t%d", c.name, c.im.tmp), Meta: op.Meta{DType: d}}
}

func (c *ctx) konst(t *tensor.Tensor) *graph.Value {
	c.im.tmp++
	return &graph.Value{Name: fmt.Sprintf("%s/c%d", c.name, c.im.tmp), Meta: graph.ConstMeta(t), Const: t}
}

func (c *ctx) scalar(d tensor.DType, v float64) *graph.Value { return c.konst(tensor.Full(d, v)) }

// emit adds a node of the named registry op.
func (c *ctx) emit(name string, a op.Attrs, in []*graph.Value, out ...*graph.Value) *graph.Node {
	def := op.Lookup(name)
	if def == nil {
		panic("pdmodel: no registry op " + name)
	}
	if a == nil {
		a = op.Attrs{}
	}
	nd := &graph.Node{Op: def, Attrs: a, In: in, Out: out, Name: c.name}
	c.im.g.Nodes = append(c.im.g.Nodes, nd)
	return nd
}

// emit1 adds a node with one new intermediate output of dtype d.
func (c *ctx) emit1(name string, a op.Attrs, d tensor.DType, in ...*graph.Value) *graph.Value {
	v := c.tmp(d)
	c.emit(name, a, in, v)
	return v
}

// Attribute readers: the value when present (any numeric attribute type
// converts), else def.

func (c *ctx) int(name string, def int) int {
	a := c.op.Attr(name)
	if a == nil {
		return def
	}
	switch a.Type {
	case pdpb.AttrInt:
		return int(a.I)
	case pdpb.AttrLong:
		return int(a.L)
	case pdpb.AttrBool:
		if a.B {
			return 1
		}
		return 0
	}
	return def
}

func (c *ctx) float(name string, def float64) float64 {
	a := c.op.Attr(name)
	if a == nil {
		return def
	}
	switch a.Type {
	case pdpb.AttrFloat:
		return float64(a.F)
	case pdpb.AttrFloat64:
		return a.Float64
	case pdpb.AttrInt:
		return float64(a.I)
	case pdpb.AttrLong:
		return float64(a.L)
	}
	return def
}

func (c *ctx) bool(name string, def bool) bool {
	a := c.op.Attr(name)
	if a == nil {
		return def
	}
	switch a.Type {
	case pdpb.AttrBool:
		return a.B
	case pdpb.AttrInt:
		return a.I != 0
	}
	return def
}

func (c *ctx) str(name, def string) string {
	if a := c.op.Attr(name); a != nil && a.Type == pdpb.AttrString {
		return a.S
	}
	return def
}

func (c *ctx) ints(name string) []int {
	a := c.op.Attr(name)
	if a == nil {
		return nil
	}
	var out []int
	switch a.Type {
	case pdpb.AttrInts:
		for _, x := range a.Ints {
			out = append(out, int(x))
		}
	case pdpb.AttrLongs:
		for _, x := range a.Longs {
			out = append(out, int(x))
		}
	case pdpb.AttrInt:
		out = []int{int(a.I)}
	}
	return out
}

func (c *ctx) floats(name string) []float64 {
	a := c.op.Attr(name)
	if a == nil {
		return nil
	}
	var out []float64
	switch a.Type {
	case pdpb.AttrFloats:
		for _, x := range a.Floats {
			out = append(out, float64(x))
		}
	case pdpb.AttrFloat64s:
		out = append(out, a.Float64s...)
	}
	return out
}

func (c *ctx) strs(name string) []string {
	if a := c.op.Attr(name); a != nil && a.Type == pdpb.AttrStrings {
		return a.Strings
	}
	return nil
}
