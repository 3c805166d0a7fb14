package pass

import "paddle/core/graph"

// FoldShapes resolves what the graph's declared input shapes determine:
// when they are static (no dynamic dimension), graph.Infer evaluates the
// Shape → Gather → Concat → Reshape arithmetic; its results become
// constants and the shape-valued inputs they feed become attributes. With
// dynamic inputs the pass changes nothing (the runtime folds per shape).
func FoldShapes(g *graph.Graph) error {
	for _, v := range g.Inputs {
		if !graph.KnownShape(v.Meta.Shape) {
			return nil
		}
	}
	s, err := graph.Infer(g, nil)
	if err != nil {
		return err
	}
	drop := map[*graph.Node]bool{}
	for _, n := range g.Nodes {
		for _, v := range n.Out {
			if m, ok := s.Meta[v]; ok && graph.KnownShape(m.Shape) {
				v.Meta = m
			}
		}
		if s.Folded[n] {
			for _, v := range n.Out {
				v.Const = s.Known[v]
				v.Meta = graph.ConstMeta(v.Const)
			}
			drop[n] = true
			continue
		}
		if a, ok := s.Attrs[n]; ok && n.ShapeAttrs == nil {
			n.Attrs, n.AttrIn = a, nil
		}
	}
	removeNodes(g, drop)
	return DCE(g)
}
