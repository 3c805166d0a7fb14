package runtime

import (
	"paddle/core/graph"
	"paddle/core/graph/pass"
)

// DefaultPasses are applied when Options.Passes is nil.
var DefaultPasses = pass.Default

// PassNames returns the names of the available passes, sorted.
func PassNames() []string { return pass.Names() }

func applyPasses(g *graph.Graph, names []string) error {
	if names == nil {
		names = DefaultPasses
	}
	return pass.Apply(g, names)
}
