package runtime

import (
	"math"
	"math/rand/v2"
	"testing"

	"paddle/core/graph"
	"paddle/core/op"
	"paddle/core/tensor"
)

// Recycled outputs serve later calls' outputs, scribbled-over contents do
// not leak into them, and an output that is the caller's own input is never
// taken.
func TestRecycle(t *testing.T) {
	x := &graph.Value{Name: "x", Meta: op.Meta{DType: tensor.Float32, Shape: tensor.Shape{3, 1000}}}
	a, y := f32Value("a"), f32Value("y")
	g := &graph.Graph{Inputs: []*graph.Value{x}, Outputs: []*graph.Value{y, x}, Nodes: []*graph.Node{
		{Op: op.Lookup("relu"), In: []*graph.Value{x}, Out: []*graph.Value{a}, Name: "relu"},
		{Op: op.Lookup("exp"), In: []*graph.Value{a}, Out: []*graph.Value{y}, Name: "exp"},
	}}
	p, err := New(g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	in := tensor.Rand(rand.New(rand.NewPCG(1, 2)), tensor.Float32, -2, 2, 3, 1000)
	orig := in.Clone()
	var last *float32
	for run := range 4 {
		out, err := p.Run(map[string]*tensor.Tensor{"x": in})
		if err != nil {
			t.Fatal(err)
		}
		for i, xv := range orig.F32() {
			if want := float32(math.Exp(float64(max(xv, 0)))); math.Abs(float64(out["y"].F32()[i]-want)) > 1e-6*float64(want) {
				t.Fatalf("run %d: y[%d] = %v, want %v", run, i, out["y"].F32()[i], want)
			}
		}
		if out["x"] != in {
			t.Fatalf("run %d: output x is not the input", run)
		}
		yp := &out["y"].F32()[0]
		if run > 0 && yp != last {
			t.Errorf("run %d: the output did not take the recycled buffer", run)
		}
		if yp == &in.F32()[0] {
			t.Fatalf("run %d: the output took the input's buffer", run)
		}
		last = yp
		for i := range out["y"].F32() {
			out["y"].F32()[i] = float32(math.NaN()) // the caller may scribble before giving it back
		}
		p.Recycle(out)
	}
	for i, v := range in.F32() {
		if v != orig.F32()[i] {
			t.Fatalf("input[%d] changed: %v, was %v", i, v, orig.F32()[i])
		}
	}
	if n := p.spares.bytes(); n != 3000*4 {
		t.Errorf("spares keep %d bytes, want %d (y's buffer only)", n, 3000*4)
	}
	p.Release()
	if n := p.spares.bytes(); n != 0 {
		t.Errorf("after Release spares keep %d bytes", n)
	}
}

// The spares keep the largest maxSpareBuffers per output, then at most
// MaxSpareBytes, dropping the largest, and serve a request from n..2n only.
func TestSparesBounds(t *testing.T) {
	defer func(n int64) { MaxSpareBytes = n }(MaxSpareBytes)
	MaxSpareBytes = 10000 * 4
	var s spares
	s.give([][]float32{make([]float32, 2000), make([]float32, 4000), make([]float32, 5000)}, 2)
	if got := s.bytes(); got != 9000*4 {
		t.Fatalf("kept %d bytes, want %d (the two largest)", got, 9000*4)
	}
	s.give([][]float32{make([]float32, 3000)}, 4)
	if got := s.bytes(); got != 7000*4 {
		t.Fatalf("kept %d bytes, want %d (the 5000 dropped for the byte bound)", got, 7000*4)
	}
	s.give([][]float32{make([]float32, 1500)}, 4)
	if got := s.bytes(); got != 8500*4 {
		t.Fatalf("kept %d bytes, want %d", got, 8500*4)
	}
	if b := s.take(700); b != nil {
		t.Errorf("take(700) served a buffer of %d (over 2n)", cap(b))
	}
	if b := s.take(1400); b == nil || cap(b) != 1500 || len(b) != 1400 {
		t.Errorf("take(1400) = len %d cap %d, want 1400 of 1500", len(b), cap(b))
	}
	if b := s.take(2500); b == nil || cap(b) != 3000 {
		t.Errorf("take(2500) = cap %d, want 3000", cap(b))
	}
	if b := s.take(2500); b == nil || cap(b) != 4000 {
		t.Errorf("take(2500) again = cap %d, want 4000", cap(b))
	}
	if b := s.take(2500); b != nil {
		t.Errorf("take(2500) a third time served cap %d, want nothing", cap(b))
	}
}

// An output computed in place (softmax over its input's arena buffer)
// comes back, when recycled, as its input's buffer: the arena finds no
// free buffer for exp and takes it from the spares. From the second call
// on the intermediates and the output take turns on the first call's two
// buffers (none allocated afresh), and the results stay right.
func TestRecycleInPlaceOutput(t *testing.T) {
	x := &graph.Value{Name: "x", Meta: op.Meta{DType: tensor.Float32, Shape: tensor.Shape{4, 1000}}}
	a, b, y := f32Value("a"), f32Value("b"), f32Value("y")
	g := &graph.Graph{Inputs: []*graph.Value{x}, Outputs: []*graph.Value{y}, Nodes: []*graph.Node{
		{Op: op.Lookup("relu"), In: []*graph.Value{x}, Out: []*graph.Value{a}, Name: "relu"},
		{Op: op.Lookup("exp"), In: []*graph.Value{a}, Out: []*graph.Value{b}, Name: "exp"},
		{Op: op.Lookup("softmax"), In: []*graph.Value{b}, Out: []*graph.Value{y}, Name: "softmax", Attrs: op.Attrs{"axis": -1}},
	}}
	p, data := bufferTrace(t, g)
	if !p.recyclable[0] {
		t.Fatal("the softmax output is not recyclable")
	}
	in := tensor.Rand(rand.New(rand.NewPCG(3, 4)), tensor.Float32, -2, 2, 4, 1000)
	ref, err := p.Run(map[string]*tensor.Tensor{"x": in})
	if err != nil {
		t.Fatal(err)
	}
	want := ref["y"].Clone()
	if &ref["y"].F32()[0] != data["exp"] {
		t.Fatal("the softmax did not run in place")
	}
	bufs := map[*float32]bool{data["relu"]: true, data["exp"]: true}
	p.Recycle(ref)
	for run := range 3 {
		out, err := p.Run(map[string]*tensor.Tensor{"x": in})
		if err != nil {
			t.Fatal(err)
		}
		yp := &out["y"].F32()[0]
		if !bufs[data["relu"]] || !bufs[yp] || data["relu"] == yp {
			t.Errorf("run %d: relu and the output on %p and %p, want the first call's two buffers %v", run, data["relu"], yp, bufs)
		}
		for i, v := range out["y"].F32() {
			if math.Abs(float64(v-want.F32()[i])) > 1e-7 {
				t.Fatalf("run %d: y[%d] = %v, want %v", run, i, v, want.F32()[i])
			}
		}
		for i := range out["y"].F32() {
			out["y"].F32()[i] = float32(math.NaN())
		}
		p.Recycle(out)
	}
	if n := p.spares.bytes(); n != 4000*4 {
		t.Errorf("spares keep %d bytes, want the last output's %d", n, 4000*4)
	}
}
