package pass

import "paddle/core/graph"

// InlineIf replaces each If node whose condition is a constant by the nodes
// of the branch it selects (repeatedly, so nested Ifs whose conditions are
// constant are inlined too). Run Fold or FoldShapes first to make
// conditions computed from shapes and constants constant.
func InlineIf(g *graph.Graph) error {
	for {
		var target *graph.Node
		for _, n := range g.Nodes {
			if c := n.In; n.Op == graph.IfOp && c[0].Const != nil && c[0].Const.Len() == 1 {
				target = n
				break
			}
		}
		if target == nil {
			return g.Sort()
		}
		b := target.Branches[1]
		if target.In[0].Const.Contiguous().Float64s()[0] != 0 {
			b = target.Branches[0]
		}
		// the branch's inputs stand for the node's outer inputs
		sub := &graph.Graph{Inputs: b.Inputs, Outputs: append([]*graph.Value(nil), b.Outputs...), Nodes: b.Nodes}
		for i, v := range b.Inputs {
			replaceUses(sub, v, target.In[1+i])
		}
		nodes := make([]*graph.Node, 0, len(g.Nodes)+len(sub.Nodes))
		for _, n := range g.Nodes {
			if n == target {
				nodes = append(nodes, sub.Nodes...)
			} else {
				nodes = append(nodes, n)
			}
		}
		g.Nodes = nodes
		for i, v := range target.Out {
			replaceUses(g, v, sub.Outputs[i])
		}
	}
}
