package ag

import (
	"slices"
	"testing"

	"paddle/core/tensor"
)

// Outside a Trace only gradient-carrying applications are recorded; inside,
// every one is (constant inputs, ops without a VJP, NoGrad), Producer reads
// them back, and Backward still computes the same gradients.
func TestTraceRecordsEverything(t *testing.T) {
	c := Const(tensor.FromSlice([]float64{1, -2, 3}, 3))
	if _, _, _, _, _, ok := Relu(c).Producer(); ok {
		t.Fatal("relu of a constant recorded outside a trace")
	}
	x := Param(tensor.FromSlice([]float64{0.5, 2, -1}, 3))
	var y, am, ng *Var
	Trace(func() {
		if !Tracing() {
			t.Fatal("Tracing() is false inside Trace")
		}
		y = Sum(Mul(x, Relu(c)), nil, false)
		am = ArgMax(c, 0, false) // no VJP
		NoGrad(func() { ng = Exp(c) })
	})
	if Tracing() {
		t.Fatal("Tracing() is true after Trace")
	}
	for _, v := range []*Var{am, ng} {
		d, _, in, out, idx, ok := v.Producer()
		if !ok || len(in) != 1 || in[0] != c || out[idx] != v {
			t.Fatalf("Producer of %s: ok %v in %v", d.Name, ok, in)
		}
		if v.RequiresGrad() {
			t.Fatalf("%s of a constant requires grad", d.Name)
		}
	}
	d, attrs, in, _, _, ok := y.Producer()
	if !ok || d.Name != "sum" || attrs["keepdims"] != false || len(in) != 1 {
		t.Fatalf("Producer of y: %v %v %v", d, attrs, ok)
	}
	m, _, min, _, _, _ := in[0].Producer()
	r, _, rin, _, _, _ := min[1].Producer()
	if m.Name != "mul" || min[0] != x || r.Name != "relu" || rin[0] != c {
		t.Fatalf("tape: %s(%v, %s(%v))", m.Name, min[0], r.Name, rin[0])
	}
	y.Backward()
	if got := x.Grad.F64(); !slices.Equal(got, []float64{1, 0, 3}) {
		t.Fatalf("grad %v, want [1 0 3]", got)
	}
	// a multi-output op: both outputs share one application
	var parts []*Var
	Trace(func() { parts = Split(c, 0, 1, 2) })
	_, _, _, o0, i0, _ := parts[0].Producer()
	_, _, _, o1, i1, _ := parts[1].Producer()
	if &o0[0] != &o1[0] || i0 != 0 || i1 != 1 {
		t.Fatal("the outputs of one split do not share their application")
	}
}
