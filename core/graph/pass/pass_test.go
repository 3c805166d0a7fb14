package pass_test

import (
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/graph"
	"paddle/core/graph/pass"
	"paddle/core/onnx"
	"paddle/core/op"
	"paddle/core/runtime"
	"paddle/core/tensor"
)

// b builds small graphs for the tests.
type b struct {
	g *graph.Graph
	n int
}

func newB(inputShape ...int) (*b, *graph.Value) {
	x := &graph.Value{Name: "x", Meta: op.Meta{DType: tensor.Float32, Shape: inputShape}}
	return &b{g: &graph.Graph{Name: "t", Inputs: []*graph.Value{x}}}, x
}

func (b *b) konst(name string, t *tensor.Tensor, param bool) *graph.Value {
	return &graph.Value{Name: name, Meta: graph.ConstMeta(t), Const: t, Param: param}
}

func (b *b) node(opName string, a op.Attrs, in ...*graph.Value) *graph.Value {
	b.n++
	out := &graph.Value{Name: opName + string(rune('0'+b.n)), Meta: op.Meta{DType: in[0].Meta.DType}}
	if opName == "shape" {
		out.Meta.DType = tensor.Int64
	}
	b.g.Nodes = append(b.g.Nodes, &graph.Node{Op: op.Lookup(opName), Attrs: a, In: in, Out: []*graph.Value{out}, Name: opName})
	return out
}

func run(t *testing.T, g *graph.Graph, x *tensor.Tensor) *tensor.Tensor {
	t.Helper()
	p, err := runtime.New(g, runtime.Options{Passes: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Run(map[string]*tensor.Tensor{"x": x})
	if err != nil {
		t.Fatal(err)
	}
	return out[p.OutputNames()[0]]
}

// exportedBack writes g as an ONNX file and reads it back.
func exportedBack(t *testing.T, g *graph.Graph) *graph.Graph {
	t.Helper()
	file := filepath.Join(t.TempDir(), "m.onnx")
	if err := onnx.WriteFile(file, g); err != nil {
		t.Fatal(err)
	}
	g2, err := onnx.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return g2
}

// check applies the pass, compares outputs before/after and the dumps.
func check(t *testing.T, g *graph.Graph, name string, x *tensor.Tensor, tol float64, before, after []string) {
	t.Helper()
	want := run(t, g, x)
	dumpBefore := g.String()
	if err := pass.Apply(g, []string{name}); err != nil {
		t.Fatal(err)
	}
	dumpAfter := g.String()
	got := run(t, g, x)
	if d, _ := tensor.MaxDiff(got, want, 0, 0); d > tol || !got.Shape().Equal(want.Shape()) {
		t.Errorf("%s changed the output by %g (shape %v, want %v)", name, d, got.Shape(), want.Shape())
	}
	for _, s := range before {
		if !strings.Contains(dumpBefore, s) {
			t.Errorf("before %s: dump lacks %q:\n%s", name, s, dumpBefore)
		}
	}
	for _, s := range after {
		neg := strings.HasPrefix(s, "!")
		if strings.Contains(dumpAfter, strings.TrimPrefix(s, "!")) == neg {
			t.Errorf("after %s: dump %s %q:\n%s", name, map[bool]string{true: "has", false: "lacks"}[neg], strings.TrimPrefix(s, "!"), dumpAfter)
		}
	}
	t.Logf("before:\n%safter:\n%s", dumpBefore, dumpAfter)
}

func rnd(shape ...int) *tensor.Tensor {
	return tensor.Rand(rand.New(rand.NewPCG(1, 2)), tensor.Float32, -1, 1, shape...)
}

func TestFold(t *testing.T) {
	bd, x := newB(2, 3)
	c1 := bd.konst("c1", tensor.FromSlice([]float32{1, 2, 3}, 3), false)
	c2 := bd.konst("c2", tensor.FromSlice([]float32{2, 2, 2}, 3), false)
	w := bd.konst("w", tensor.FromSlice([]float32{1, 1, 1}, 3), true)
	m := bd.node("mul", nil, c1, c2) // folds
	wm := bd.node("mul", nil, w, c2) // a parameter: stays
	y := bd.node("add", nil, bd.node("add", nil, x, m), wm)
	bd.g.Outputs = []*graph.Value{y}
	check(t, bd.g, "fold", rnd(2, 3), 0, []string{"= mul($c1, $c2)"}, []string{"!= mul($c1, $c2)", "const $mul1 float32[3]", "= mul($w, $c2)"})
}

func TestDCE(t *testing.T) {
	bd, x := newB(2, 3)
	y := bd.node("relu", nil, x)
	bd.node("exp", nil, y) // nobody reads it
	bd.g.Outputs = []*graph.Value{y}
	check(t, bd.g, "dce", rnd(2, 3), 0, []string{"= exp(%relu1)"}, []string{"!exp"})
}

func TestIdentity(t *testing.T) {
	bd, x := newB(2, 3)
	c := bd.node("cast", op.Attrs{"dtype": "float32"}, x)
	m := bd.node("mul", nil, c, bd.konst("one", tensor.Scalar[float32](1), false))
	// a [3]-shaped zero is not a scalar: it could broadcast, so it stays
	y := bd.node("add", nil, m, bd.konst("zeros", tensor.New(tensor.Float32, 3), false))
	bd.g.Outputs = []*graph.Value{y}
	check(t, bd.g, "identity", rnd(2, 3), 0, []string{"cast(%x)", "mul(%cast1, $one)"},
		[]string{"!cast", "!mul", "= add(%x, $zeros)"})
}

func TestConvBN(t *testing.T) {
	bd, x := newB(1, 2, 5, 5)
	r := rand.New(rand.NewPCG(3, 4))
	w := bd.konst("w", tensor.Rand(r, tensor.Float32, -1, 1, 3, 2, 3, 3), true)
	cb := bd.konst("cb", tensor.Rand(r, tensor.Float32, -1, 1, 3), true)
	conv := bd.node("conv2d", op.Attrs{"pads": []int{1, 1, 1, 1}}, x, w, cb)
	bn := bd.node("batch_norm", op.Attrs{"epsilon": 1e-5}, conv,
		bd.konst("s", tensor.Rand(r, tensor.Float32, 0.5, 2, 3), true), bd.konst("b", tensor.Rand(r, tensor.Float32, -1, 1, 3), true),
		bd.konst("m", tensor.Rand(r, tensor.Float32, -1, 1, 3), false), bd.konst("v", tensor.Rand(r, tensor.Float32, 0.1, 2, 3), false))
	bd.g.Outputs = []*graph.Value{bd.node("relu", nil, bn)}
	check(t, bd.g, "conv_bn", rnd(1, 2, 5, 5), 1e-5, []string{"batch_norm(%conv2d1"},
		[]string{"!batch_norm", "= conv2d(%x, $w/bn, $conv2d1/bn_bias)", "param $w/bn"})
}

func TestFoldShapes(t *testing.T) {
	bd, x := newB(2, 3, 4)
	f := bd.node("flatten", op.Attrs{"axis": 1}, x)
	s := bd.node("shape", nil, x)
	y := bd.node("reshape", op.Attrs{}, f)
	bd.g.Nodes[len(bd.g.Nodes)-1].AttrIn = []graph.AttrIn{{Attr: "shape", Kind: graph.AttrInts, V: s}}
	bd.g.Outputs = []*graph.Value{y}
	check(t, bd.g, "fold_shapes", rnd(2, 3, 4), 0, []string{"shape<-ints(%shape2)"},
		[]string{"!= shape(", "reshape(%flatten1) {shape=[2 3 4]}"})
}

func TestInlineIf(t *testing.T) {
	bd, x := newB(2, 3)
	// then: relu(x); else: exp(x); the condition is a constant true
	branch := func(name string) *graph.Graph {
		in := &graph.Value{Name: "x", Meta: x.Meta}
		out := &graph.Value{Name: name + "_out", Meta: op.Meta{DType: tensor.Float32}}
		return &graph.Graph{Inputs: []*graph.Value{in}, Outputs: []*graph.Value{out},
			Nodes: []*graph.Node{{Op: op.Lookup(name), In: []*graph.Value{in}, Out: []*graph.Value{out}, Name: name}}}
	}
	cond := bd.konst("cond", tensor.Scalar(true), false)
	y := &graph.Value{Name: "y", Meta: op.Meta{DType: tensor.Float32}}
	bd.g.Nodes = append(bd.g.Nodes, &graph.Node{Op: graph.IfOp, In: []*graph.Value{cond, x}, Out: []*graph.Value{y},
		Branches: []*graph.Graph{branch("relu"), branch("exp")}, Name: "if0"})
	bd.g.Outputs = []*graph.Value{bd.node("neg", nil, y)}
	check(t, bd.g, "inline_if", rnd(2, 3), 0, []string{"= if($cond, %x) {then: 1 nodes else: 1 nodes}"},
		[]string{"!if(", "%relu_out float32[*] = relu(%x)", "neg(%relu_out)"})
}

func TestFuse(t *testing.T) {
	bd, x := newB(1, 2, 5, 5)
	r := rand.New(rand.NewPCG(13, 14))
	w := bd.konst("w", tensor.Rand(r, tensor.Float32, -1, 1, 3, 2, 3, 3), true)
	conv := bd.node("conv2d", op.Attrs{"pads": []int{1, 1, 1, 1}}, x, w)
	biased := bd.node("add", nil, conv, bd.konst("cb", tensor.Rand(r, tensor.Float32, -1, 1, 1, 3, 1, 1), true))
	act := bd.node("clip", op.Attrs{"min": 0.0, "max": 6.0}, biased)
	flat := bd.node("flatten", op.Attrs{"axis": 1}, act)
	mm := bd.node("matmul", nil, flat, bd.konst("B", tensor.Rand(r, tensor.Float32, -1, 1, 75, 4), true))
	y := bd.node("add", nil, mm, bd.konst("c", tensor.Rand(r, tensor.Float32, -1, 1, 4), true))
	bd.g.Outputs = []*graph.Value{y}
	// the fused kernels run the same arithmetic: bitwise equal outputs
	check(t, bd.g, "fuse", rnd(1, 2, 5, 5), 0, []string{"conv2d(%x, $w)", "clip(%add2)", "matmul(%flatten4, $B)"},
		[]string{"= conv2d_act(%x, $w, $cb/bias) {act=clip act_attrs=map[max:6 min:0]", "= gemm(%flatten4, $B, $c)", "!= add(", "!= clip("})
}
