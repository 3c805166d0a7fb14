// Package pass holds the graph rewrites applied before running a graph, one
// per file. Each is a func(*graph.Graph) error that keeps the graph's
// outputs unchanged (each file's test runs a graph before and after).
//
//	qdq.go        QDQ: dequantize_linear → conv2d/matmul (→ act) (→ quantize_linear) → qconv2d/qgemm
//	qpush.go      QPush: a per-tensor quantize_linear moved above concat / nearest resize (bytes move)
//	fold.go       Fold: evaluate nodes whose inputs are all (non-parameter) constants
//	shapes.go     FoldShapes: resolve shape arithmetic when the input shapes are static
//	dce.go        DCE: drop nodes whose outputs nothing reads
//	identity.go   Identity: drop no-ops (same-dtype casts, identity transposes, x+0, x·1, ...)
//	conv_bn.go    ConvBN: fold an inference batch_norm into the conv2d / conv_transpose2d before it
//	conv_affine.go ConvAffine: fold a scalar scale/shift of a conv2d's output into it
//	hardswish.go  Hardswish: x·clip(x+3, 0, 6)/6 spelled in four nodes → hardswish
//	fuse.go       Fuse: conv2d+bias, conv2d+activation(+scale/shift) (conv2d_act),
//	              conv_transpose2d+activation (conv_transpose2d_act), matmul+bias (gemm)
//	inline_if.go  InlineIf: replace an If whose condition is constant by its branch
package pass

import (
	"fmt"
	"sort"

	"paddle/core/graph"
)

// Func is a graph pass.
type Func func(*graph.Graph) error

// registry maps pass names to passes.
var registry = map[string]Func{
	"fold":        Fold,
	"fold_shapes": FoldShapes,
	"dce":         DCE,
	"identity":    Identity,
	"conv_bn":     ConvBN,
	"conv_affine": ConvAffine,
	"hardswish":   Hardswish,
	"inline_if":   InlineIf,
	"fuse":        Fuse,
	"qdq":         QDQ,
	"qpush":       QPush,
}

// Default is the order passes run in when none are chosen.
// QDQ runs first: FoldShapes and Fold would turn its weights'
// dequantize_linear into float constants.
var Default = []string{"qdq", "fold_shapes", "fold", "qpush", "inline_if", "identity", "conv_bn", "conv_affine", "hardswish", "fuse", "dce"}

// Lookup returns the named pass, or nil.
func Lookup(name string) Func { return registry[name] }

// Names returns every pass name, sorted.
func Names() []string {
	out := make([]string, 0, len(registry))
	for k := range registry {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Apply runs the named passes in order, then re-sorts and validates g.
func Apply(g *graph.Graph, names []string) error {
	for _, name := range names {
		f := registry[name]
		if f == nil {
			return fmt.Errorf("pass: unknown pass %q (known: %v)", name, Names())
		}
		if err := f(g); err != nil {
			return fmt.Errorf("pass %s: %w", name, err)
		}
	}
	return g.Sort()
}

// replaceUses makes every reader of old (nodes and graph outputs) read nu.
func replaceUses(g *graph.Graph, old, nu *graph.Value) {
	for _, n := range g.Nodes {
		for i, v := range n.In {
			if v == old {
				n.In[i] = nu
			}
		}
		for i, a := range n.AttrIn {
			if a.V == old {
				n.AttrIn[i].V = nu
			}
		}
	}
	for i, v := range g.Outputs {
		if v == old {
			if g.OutputNames == nil {
				g.OutputNames = make([]string, len(g.Outputs))
			}
			if g.OutputNames[i] == "" {
				g.OutputNames[i] = old.Name
			}
			g.Outputs[i] = nu
		}
	}
}

// removeNodes drops the marked nodes, keeping the order of the rest.
func removeNodes(g *graph.Graph, drop map[*graph.Node]bool) {
	if len(drop) == 0 {
		return
	}
	kept := g.Nodes[:0]
	for _, n := range g.Nodes {
		if !drop[n] {
			kept = append(kept, n)
		}
	}
	g.Nodes = kept
}
