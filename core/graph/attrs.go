package graph

import (
	"fmt"

	"paddle/core/op"
	"paddle/core/tensor"
)

// ResolveAttrs returns n's attributes with each AttrIn read from vals (the
// AttrIn values, in order), then ShapeAttrs applied; in are the metas of
// n.In (needed by AttrReshape and ShapeAttrs). n.Attrs is not modified; a
// node that is not Dynamic gets it back as is.
func ResolveAttrs(n *Node, vals []*tensor.Tensor, in []op.Meta) (op.Attrs, error) {
	if !n.Dynamic() {
		return n.Attrs, nil
	}
	a := make(op.Attrs, len(n.Attrs)+len(n.AttrIn))
	for k, v := range n.Attrs {
		a[k] = v
	}
	for i, ai := range n.AttrIn {
		v, set, err := readAttr(ai.Kind, vals[i], in)
		if err != nil {
			return nil, fmt.Errorf("node %s: input %q as attribute %s: %w", n.Label(), ai.V.Name, ai.Attr, err)
		}
		if set {
			a[ai.Attr] = v
		}
	}
	if n.ShapeAttrs != nil {
		var err error
		if a, err = n.ShapeAttrs(in, a); err != nil {
			return nil, fmt.Errorf("node %s: %w", n.Label(), err)
		}
	}
	return a, nil
}

// ints returns t's elements as ints (any integer or float dtype).
func ints(t *tensor.Tensor) []int {
	if t.Len() == 0 {
		return []int{}
	}
	if t.DType() == tensor.Int64 {
		v := t.Contiguous().I64()
		out := make([]int, len(v))
		for i, x := range v {
			out[i] = int(x)
		}
		return out
	}
	f := t.Contiguous().Float64s()
	out := make([]int, len(f))
	for i, x := range f {
		out[i] = int(x)
	}
	return out
}

func readAttr(k AttrKind, t *tensor.Tensor, in []op.Meta) (any, bool, error) {
	if t == nil {
		return nil, false, fmt.Errorf("value unknown")
	}
	switch k {
	case AttrInts:
		if t.Len() == 0 {
			return nil, false, nil
		}
		return ints(t), true, nil
	case AttrIntsKeepEmpty:
		return ints(t), true, nil
	case AttrInt, AttrFloat:
		if t.Len() != 1 {
			return nil, false, fmt.Errorf("want one element, got shape %v", t.Shape())
		}
		if k == AttrInt {
			return ints(t)[0], true, nil
		}
		return t.Contiguous().Float64s()[0], true, nil
	case AttrFloats:
		if t.Len() == 0 {
			return nil, false, nil
		}
		return t.Contiguous().Float64s(), true, nil
	case AttrReshape:
		s := ints(t)
		for i, d := range s {
			if d == 0 {
				if len(in) == 0 || in[0].Shape == nil || i >= len(in[0].Shape) {
					return nil, false, fmt.Errorf("shape %v copies dimension %d of an input of unknown rank", s, i)
				}
				s[i] = in[0].Shape[i]
			}
		}
		return s, true, nil
	case AttrResizeScales:
		if t.Len() == 0 {
			return nil, false, nil
		}
		f := t.Contiguous().Float64s()
		if len(f) != 4 || f[0] != 1 || f[1] != 1 {
			return nil, false, fmt.Errorf("scales %v: only the two spatial axes of an (N, C, H, W) input can be resized", f)
		}
		return []float64{f[2], f[3]}, true, nil
	case AttrResizeSizes:
		if t.Len() == 0 {
			return nil, false, nil
		}
		s := ints(t)
		if len(s) != 4 {
			return nil, false, fmt.Errorf("sizes %v: want 4 values for an (N, C, H, W) input", s)
		}
		if len(in) > 0 && len(in[0].Shape) == 4 && (s[0] != in[0].Shape[0] || s[1] != in[0].Shape[1]) {
			return nil, false, fmt.Errorf("sizes %v: only the two spatial axes of %v can be resized", s, in[0].Shape)
		}
		return []int{s[2], s[3]}, true, nil
	}
	return nil, false, fmt.Errorf("unknown attribute kind %v", k)
}
