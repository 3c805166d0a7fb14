package pass

import "paddle/core/graph"

// DCE removes the nodes none of whose outputs the graph outputs need.
func DCE(g *graph.Graph) error {
	prod := g.Producers()
	live := map[*graph.Node]bool{}
	stack := append([]*graph.Value(nil), g.Outputs...)
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n := prod[v]
		if n == nil || live[n] {
			continue
		}
		live[n] = true
		stack = append(stack, n.Inputs()...)
	}
	drop := map[*graph.Node]bool{}
	for _, n := range g.Nodes {
		if !live[n] {
			drop[n] = true
		}
	}
	removeNodes(g, drop)
	return nil
}
