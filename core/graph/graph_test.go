package graph

import (
	"fmt"
	"strings"
	"testing"

	"paddle/core/op"
	"paddle/core/tensor"
)

// chain builds x → relu → flatten(axis 1) → reshape(shape_of(x)): the
// reshape's target shape is computed from x at run time.
func chain() (*Graph, []*Node) {
	x := &Value{Name: "x", Meta: op.Meta{DType: tensor.Float32, Shape: tensor.Shape{-1, 3, 4}}}
	r := &Value{Name: "r", Meta: op.Meta{DType: tensor.Float32}}
	f := &Value{Name: "f", Meta: op.Meta{DType: tensor.Float32}}
	s := &Value{Name: "s", Meta: op.Meta{DType: tensor.Int64}}
	y := &Value{Name: "y", Meta: op.Meta{DType: tensor.Float32}}
	nodes := []*Node{
		{Op: op.Lookup("relu"), In: []*Value{x}, Out: []*Value{r}, Name: "relu0"},
		{Op: op.Lookup("flatten"), Attrs: op.Attrs{"axis": 1}, In: []*Value{r}, Out: []*Value{f}, Name: "flat0"},
		{Op: op.Lookup("shape"), In: []*Value{x}, Out: []*Value{s}, Name: "shape0"},
		{Op: op.Lookup("reshape"), In: []*Value{f}, Out: []*Value{y}, Name: "reshape0",
			AttrIn: []AttrIn{{Attr: "shape", Kind: AttrReshape, V: s}}},
	}
	return &Graph{Name: "t", Inputs: []*Value{x}, Outputs: []*Value{y}, Nodes: nodes}, nodes
}

func TestSortValidate(t *testing.T) {
	g, n := chain()
	g.Nodes = []*Node{n[3], n[1], n[2], n[0]}
	if err := g.Sort(); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, nd := range g.Nodes {
		names = append(names, nd.Name)
	}
	// shape0 can run first, but the lowest ready index wins: flat0 waits for relu0
	if got := strings.Join(names, " "); got != "shape0 relu0 flat0 reshape0" {
		t.Fatalf("order %s", got)
	}
	// a cycle: relu reads the reshape's output
	g2, n2 := chain()
	n2[0].In = []*Value{n2[3].Out[0]}
	if err := g2.Validate(); err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Fatalf("want a cycle error, got %v", err)
	}
	// two producers of one value
	g3, n3 := chain()
	n3[1].Out = n3[0].Out
	if err := g3.Validate(); err == nil || !strings.Contains(err.Error(), "produced by both") {
		t.Fatalf("want a duplicate-producer error, got %v", err)
	}
	// a value nobody produces
	g4, n4 := chain()
	n4[1].In = []*Value{{Name: "ghost"}}
	if err := g4.Validate(); err == nil || !strings.Contains(err.Error(), `"ghost"`) {
		t.Fatalf("want a missing-value error, got %v", err)
	}
}

func TestInferFoldsShapeChain(t *testing.T) {
	g, n := chain()
	s, err := Infer(g, map[string]op.Meta{"x": {DType: tensor.Float32, Shape: tensor.Shape{2, 3, 4}}})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Complete || !s.Folded[n[2]] {
		t.Fatalf("complete %v, shape folded %v", s.Complete, s.Folded[n[2]])
	}
	if got := s.Meta[g.Outputs[0]].Shape; !got.Equal(tensor.Shape{2, 3, 4}) {
		t.Fatalf("output shape %v", got)
	}
	if got := s.Attrs[n[3]].Ints("shape", nil); len(got) != 3 || got[0] != 2 {
		t.Fatalf("resolved shape %v", got)
	}
	// without input shapes nothing past the input resolves
	s2, err := Infer(g, nil)
	if err != nil || s2.Complete {
		t.Fatalf("complete %v err %v", s2.Complete, err)
	}
	// a wrong input shape is an error naming the input
	if _, err := Infer(g, map[string]op.Meta{"x": {DType: tensor.Float32, Shape: tensor.Shape{2, 5, 4}}}); err == nil || !strings.Contains(err.Error(), `"x"`) {
		t.Fatalf("want an input error, got %v", err)
	}
}

func TestString(t *testing.T) {
	g, _ := chain()
	got := g.String()
	for _, want := range []string{"input %x float32[?,3,4]", "%f float32[*] = flatten(%r) {axis=1}  # flat0",
		"reshape(%f) {shape<-reshape(%s)}", "return %y"} {
		if !strings.Contains(got, want) {
			t.Errorf("dump lacks %q:\n%s", want, got)
		}
	}
}

func TestResolveAttrKinds(t *testing.T) {
	v := &Value{Name: "v"}
	cases := []struct {
		kind AttrKind
		t    *tensor.Tensor
		in   []op.Meta
		want string
	}{
		{AttrInts, tensor.FromSlice([]int64{1, -2}, 2), nil, "[1 -2]"},
		{AttrInt, tensor.FromSlice([]int64{5}, 1), nil, "5"},
		{AttrFloat, tensor.Scalar[float32](0.5), nil, "0.5"},
		{AttrReshape, tensor.FromSlice([]int64{0, -1}, 2), []op.Meta{{Shape: tensor.Shape{7, 2, 3}}}, "[7 -1]"},
		{AttrResizeScales, tensor.FromSlice([]float32{1, 1, 2, 3}, 4), nil, "[2 3]"},
		{AttrResizeSizes, tensor.FromSlice([]int64{1, 3, 8, 9}, 4), []op.Meta{{Shape: tensor.Shape{1, 3, 4, 4}}}, "[8 9]"},
	}
	for _, c := range cases {
		n := &Node{Op: op.Lookup("relu"), Name: "n", AttrIn: []AttrIn{{Attr: "a", Kind: c.kind, V: v}}}
		a, err := ResolveAttrs(n, []*tensor.Tensor{c.t}, c.in)
		if err != nil {
			t.Fatalf("%v: %v", c.kind, err)
		}
		if got := strings.TrimSpace(strings.ReplaceAll(fmt.Sprint(a["a"]), "\n", "")); got != c.want {
			t.Errorf("%v: got %s, want %s", c.kind, got, c.want)
		}
	}
	n := &Node{Op: op.Lookup("relu"), Name: "n", AttrIn: []AttrIn{{Attr: "a", Kind: AttrResizeScales, V: v}}}
	if _, err := ResolveAttrs(n, []*tensor.Tensor{tensor.FromSlice([]float32{2, 1, 2, 2}, 4)}, nil); err == nil {
		t.Fatal("a batch scale must be rejected")
	}
}
