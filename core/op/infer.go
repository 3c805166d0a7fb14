package op

import (
	"fmt"

	"paddle/core/tensor"
)

// Shape-rule helpers shared by the op families.

func sameAsInput(in []Meta, _ Attrs) ([]Meta, error) {
	return []Meta{in[0]}, nil
}

// broadcastInfer: all inputs share a dtype; the output takes their broadcast shape.
func broadcastInfer(in []Meta, _ Attrs) ([]Meta, error) {
	s, err := broadcastAll(in)
	if err != nil {
		return nil, err
	}
	return []Meta{{in[0].DType, s}}, nil
}

// compareInfer is broadcastInfer with a bool output.
func compareInfer(in []Meta, a Attrs) ([]Meta, error) {
	m, err := broadcastInfer(in, a)
	if err != nil {
		return nil, err
	}
	m[0].DType = tensor.Bool
	return m, nil
}

func broadcastAll(in []Meta) (tensor.Shape, error) {
	s := in[0].Shape
	for i, m := range in[1:] {
		if m.DType != in[0].DType {
			return nil, fmt.Errorf("input %d is %v, input 0 is %v (use cast)", i+1, m.DType, in[0].DType)
		}
		var err error
		if s, err = tensor.BroadcastShapes(s, m.Shape); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// normAxes resolves attribute "axes" (nil = all) against rank r, sorted and unique.
func normAxes(a Attrs, r int) ([]int, error) {
	axes := a.Ints("axes", nil)
	if axes == nil {
		all := make([]int, r)
		for i := range r {
			all[i] = i
		}
		return all, nil
	}
	seen := make([]bool, r)
	for _, ax := range axes {
		n, err := tensor.NormAxis(ax, r)
		if err != nil {
			return nil, err
		}
		seen[n] = true
	}
	var out []int
	for i, s := range seen {
		if s {
			out = append(out, i)
		}
	}
	return out, nil
}
