package dettrain

import (
	"fmt"
	"math/rand/v2"
	"reflect"

	"paddle/core/ag"
	"paddle/core/graph"
	"paddle/core/graph/trace"
	"paddle/core/tensor"
)

// Dynamic height and width. core/graph/trace checks a dynamic dimension by
// propagating shapes once more with it one pixel larger, which a stride-32
// feature pyramid cannot carry (an odd side halves to a size the ×2
// upsampling does not return to). A DB network is size-agnostic only for
// sides that are multiples of 32, so traceDynamic traces it twice, at two
// such sizes (batch dynamic as usual), checks that both traces are the same
// graph — same ops in the same order, same attributes, same constants — and
// marks every dimension that differs between them as dynamic (-1). A
// forward pass that baked a size into an attribute or a constant fails the
// check instead of exporting a graph that only runs at one size.

// traceSizes are the two example sizes (height, width) of traceDynamic:
// height and width differ from each other and between the traces, so a
// dimension that follows either is told apart from the static ones.
var traceSizes = [2][2]int{{64, 96}, {96, 160}}

// dynamicNames names the input's dimensions.
var dynamicNames = []string{"batch", "", "height", "width"}

// traceDynamic traces m's eval forward pass with input "x" (batch, 3,
// height, width), all dynamic, and output "output".
func traceDynamic(m *DBNet) (*graph.Graph, error) {
	var gs [2]*graph.Graph
	for i, hw := range traceSizes {
		spec := trace.InputSpec{Name: "x", Shape: []int{-1, 3, hw[0], hw[1]}, DimNames: dynamicNames}
		x := tensor.Rand(rand.New(rand.NewPCG(1, uint64(i))), tensor.Float32, -1, 1, 2, 3, hw[0], hw[1])
		g, err := trace.Func(m, []trace.InputSpec{spec}, []*tensor.Tensor{x}, []string{"output"},
			func(xs []*ag.Var) []*ag.Var { return []*ag.Var{m.Forward(xs[0], false)} })
		if err != nil {
			return nil, err
		}
		gs[i] = g
	}
	if err := mergeSizes(gs[0], gs[1]); err != nil {
		return nil, fmt.Errorf("the height and width cannot be dynamic: %w", err)
	}
	return gs[0], nil
}

// mergeSizes checks that a and b are one graph traced at two input sizes and
// sets -1 in a's value shapes wherever the two differ; the input's and the
// output's dimensions are named as dynamicNames.
func mergeSizes(a, b *graph.Graph) error {
	if len(a.Nodes) != len(b.Nodes) || len(a.Inputs) != 1 || len(b.Inputs) != 1 || len(a.Outputs) != len(b.Outputs) {
		return fmt.Errorf("the two traces have %d and %d nodes", len(a.Nodes), len(b.Nodes))
	}
	seen := map[*graph.Value]bool{}
	merge := func(va, vb *graph.Value, where string) error {
		if seen[va] {
			return nil
		}
		seen[va] = true
		if (va.Const == nil) != (vb.Const == nil) || va.Param != vb.Param {
			return fmt.Errorf("%s: value %q is a constant in one trace only", where, va.Name)
		}
		sa, sb := va.Meta.Shape, vb.Meta.Shape
		if len(sa) != len(sb) || va.Meta.DType != vb.Meta.DType {
			return fmt.Errorf("%s: value %q is %v %v in one trace and %v %v in the other", where, va.Name, va.Meta.DType, sa, vb.Meta.DType, sb)
		}
		if va.Const != nil {
			if va.Const.DType() != vb.Const.DType() || !tensor.AllClose(va.Const, vb.Const, 0, 0) {
				return fmt.Errorf("%s: constant %q depends on the input size", where, va.Name)
			}
			return nil
		}
		for i := range sa {
			if sa[i] != sb[i] {
				sa[i] = -1
			}
		}
		return nil
	}
	if err := merge(a.Inputs[0], b.Inputs[0], "input"); err != nil {
		return err
	}
	for i, na := range a.Nodes {
		nb := b.Nodes[i]
		where := fmt.Sprintf("node %d %s", i, na.Label())
		if na.Op != nb.Op || len(na.In) != len(nb.In) || len(na.Out) != len(nb.Out) || len(na.AttrIn) != len(nb.AttrIn) ||
			(na.ShapeAttrs == nil) != (nb.ShapeAttrs == nil) || len(na.Branches) > 0 {
			return fmt.Errorf("%s: the two traces differ (%s)", where, nb.Label())
		}
		if !reflect.DeepEqual(na.Attrs, nb.Attrs) {
			return fmt.Errorf("%s: attributes %v in one trace, %v in the other", where, na.Attrs, nb.Attrs)
		}
		for j := range na.In {
			if err := merge(na.In[j], nb.In[j], where); err != nil {
				return err
			}
		}
		for j := range na.AttrIn {
			if na.AttrIn[j].Attr != nb.AttrIn[j].Attr || na.AttrIn[j].Kind != nb.AttrIn[j].Kind {
				return fmt.Errorf("%s: shape inputs differ", where)
			}
			if err := merge(na.AttrIn[j].V, nb.AttrIn[j].V, where); err != nil {
				return err
			}
		}
		for j := range na.Out {
			if err := merge(na.Out[j], nb.Out[j], where); err != nil {
				return err
			}
		}
	}
	a.Inputs[0].DimNames = append([]string(nil), dynamicNames...)
	for _, o := range a.Outputs {
		if len(o.Meta.Shape) != len(dynamicNames) {
			return fmt.Errorf("output %q has shape %v, want (batch, 1, height, width)", o.Name, o.Meta.Shape)
		}
		o.DimNames = append([]string(nil), dynamicNames...)
	}
	return nil
}
