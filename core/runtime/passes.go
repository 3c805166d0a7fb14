package runtime

import (
	"fmt"
	"sort"
	"strings"

	"paddle/core/graph"
)

// passes are the graph rewrites Load may apply, by name.
var passes = map[string]func(*graph.Graph) error{}

// DefaultPasses are applied when Options.Passes is nil.
var DefaultPasses = []string{}

// PassNames returns the names of the available passes, sorted.
func PassNames() []string {
	out := make([]string, 0, len(passes))
	for k := range passes {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func applyPasses(g *graph.Graph, names []string) error {
	if names == nil {
		names = DefaultPasses
	}
	for _, name := range names {
		f, ok := passes[name]
		if !ok {
			return fmt.Errorf("runtime: unknown pass %q (known: %s)", name, strings.Join(PassNames(), ", "))
		}
		if err := f(g); err != nil {
			return fmt.Errorf("runtime: pass %s: %w", name, err)
		}
	}
	return nil
}
