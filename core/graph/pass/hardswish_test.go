package pass_test

import (
	"math/rand/v2"
	"testing"

	"paddle/core/graph"
	"paddle/core/op"
	"paddle/core/tensor"
)

func TestHardswish(t *testing.T) {
	bd, x := newB(2, 3, 4)
	three := bd.konst("three", tensor.Scalar[float32](3), false)
	six := bd.konst("six", tensor.Scalar[float32](6), false)
	a := bd.node("add", nil, three, x)
	c := bd.node("clip", op.Attrs{"min": 0.0, "max": 6.0}, a)
	m := bd.node("mul", nil, c, x)
	hs := bd.node("div", nil, m, six)
	// the same pattern with clip(0, 5): not a hardswish
	a2 := bd.node("add", nil, x, three)
	c2 := bd.node("clip", op.Attrs{"min": 0.0, "max": 5.0}, a2)
	other := bd.node("div", nil, bd.node("mul", nil, x, c2), six)
	bd.g.Outputs = []*graph.Value{bd.node("add", nil, hs, other)}
	x0 := tensor.Rand(rand.New(rand.NewPCG(1, 2)), tensor.Float32, -5, 5, 2, 3, 4)
	check(t, bd.g, "hardswish", x0, 0, []string{"clip(%add1) {max=6 min=0}"},
		[]string{"= hardswish(%x)", "!clip(%add1)", "clip(%add5) {max=5 min=0}"})
}
