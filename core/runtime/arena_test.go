package runtime

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
	"unsafe"

	"paddle/core/graph"
	"paddle/core/op"
	"paddle/core/tensor"
)

func TestArenaReuse(t *testing.T) {
	a := newArena()
	x := a.alloc(tensor.Float32, []int{4, 1000}, true)
	x.F32()[7] = 5
	a.release(x)
	// fits (4000 ≤ 2·3000): reused, and zeroed when asked
	y := a.alloc(tensor.Float32, []int{3, 1000}, true)
	if &y.F32()[0] != &x.F32()[0] || y.F32()[7] != 0 || !y.Shape().Equal(tensor.Shape{3, 1000}) {
		t.Fatalf("want x's buffer, zeroed, shape (3, 1000); got shape %v, y[7] = %v", y.Shape(), y.F32()[7])
	}
	y.F32()[7] = 5
	a.release(y)
	// too big a buffer for 1500 elements (4000 > 2·1500): fresh
	z := a.alloc(tensor.Float32, []int{1500}, true)
	if &z.F32()[0] == &x.F32()[0] {
		t.Fatal("1500 elements took a 4000-element buffer")
	}
	// without zeroing the old values stay (the op overwrites them)
	w := a.alloc(tensor.Float32, []int{4000}, false)
	if &w.F32()[0] != &x.F32()[0] || w.F32()[7] != 5 {
		t.Fatal("want x's buffer as it was")
	}
	// tensors the arena did not make are never taken
	ext := tensor.New(tensor.Float32, 4000)
	a.release(ext)
	if len(a.free) != 0 {
		t.Fatalf("free list holds %d buffers, want 0", len(a.free))
	}
	// small and non-float32 tensors are plain allocations
	if s := a.alloc(tensor.Int64, []int{5000}, true); s.DType() != tensor.Int64 || len(a.owned) != 2 {
		t.Fatalf("int64: %v, owned %d", s.DType(), len(a.owned))
	}
}

// Uint8 and int8 tensors live on float32 buffers of a quarter the
// elements (rounded up), which float32 tensors reuse and the other way round.
func TestArenaBytes(t *testing.T) {
	a := newArena()
	u := a.alloc(tensor.Uint8, []int{3, 4001}, true) // 12003 bytes: 3001 floats
	if u.DType() != tensor.Uint8 || !u.Shape().Equal(tensor.Shape{3, 4001}) || len(u.U8()) != 12003 || len(a.owned[u]) != 3001 {
		t.Fatalf("uint8 tensor %v %v on %d floats", u.DType(), u.Shape(), len(a.owned[u]))
	}
	u.U8()[12002] = 9
	a.release(u)
	f := a.alloc(tensor.Float32, []int{3001}, true)
	if unsafe.Pointer(&f.F32()[0]) != unsafe.Pointer(&u.U8()[0]) || f.F32()[3000] != 0 {
		t.Fatal("float32 tensor did not take the uint8 tensor's buffer, zeroed")
	}
	f.F32()[0] = 1
	a.release(f)
	s := a.alloc(tensor.Int8, []int{2, 2, 3000}, false)
	if unsafe.Pointer(&s.I8()[0]) != unsafe.Pointer(&f.F32()[0]) || len(s.I8()) != 12000 || s.I8()[3] != 0x3f {
		t.Fatal("int8 tensor did not take the float32 tensor's buffer as it was")
	}
	a.reset(map[string]*tensor.Tensor{"s": s})
	if len(a.free) != 0 {
		t.Fatalf("the returned int8 tensor's buffer is free (%d free)", len(a.free))
	}
}

func TestArenaReset(t *testing.T) {
	a := newArena()
	old := a.alloc(tensor.Float32, []int{3000}, true)
	a.release(old)
	a.reset(nil) // old was not used by this "call": kept, as it was used by the first
	if len(a.free) != 1 {
		t.Fatalf("%d free buffers after the first call, want 1", len(a.free))
	}
	// second call: takes old's buffer for x, makes y fresh, returns y to the caller
	x := a.alloc(tensor.Float32, []int{2000}, true)
	y := a.alloc(tensor.Float32, []int{5000}, true)
	dead := a.alloc(tensor.Float32, []int{8000}, true) // never released: an unread output
	_ = dead
	a.reset(map[string]*tensor.Tensor{"y": y})
	if len(a.free) != 2 || cap(a.free[0]) != 3000 || cap(a.free[1]) != 8000 {
		t.Fatalf("free caps after the second call: %d buffers, want x's (3000) and dead's (8000)", len(a.free))
	}
	if &x.F32()[0] != &a.free[0][0] {
		t.Fatal("x's buffer is not free")
	}
	// third call uses nothing: everything is dropped
	a.reset(nil)
	if len(a.free) != 0 || len(a.owned) != 0 || len(a.used) != 0 {
		t.Fatalf("after an idle call: %d free, %d owned, %d used", len(a.free), len(a.owned), len(a.used))
	}
}

// f32Value is a float32 graph value of unknown shape.
func f32Value(name string) *graph.Value {
	return &graph.Value{Name: name, Meta: op.Meta{DType: tensor.Float32}}
}

// bufferTrace returns a Predictor of g whose runs record in data each
// node's first output buffer (its first element), by node name.
func bufferTrace(t *testing.T, g *graph.Graph) (p *Predictor, data map[string]*float32) {
	t.Helper()
	data = map[string]*float32{}
	p, err := New(g, Options{Trace: func(n *graph.Node, outs []*tensor.Tensor, _ time.Duration) {
		data[n.Name] = &outs[0].F32()[0]
	}})
	if err != nil {
		t.Fatal(err)
	}
	return p, data
}

// A reshape at its input's last use takes the input's buffer (no copy); one
// whose input is read again later copies, and both give the right values.
func TestReshapeHandOver(t *testing.T) {
	x := &graph.Value{Name: "x", Meta: op.Meta{DType: tensor.Float32, Shape: tensor.Shape{-1, 1024}}}
	r, f, q, y := f32Value("r"), f32Value("f"), f32Value("q"), f32Value("y")
	// f = flatten(r) is r's last use; q = unsqueeze(f) is not f's (the add reads it)
	g := &graph.Graph{Inputs: []*graph.Value{x}, Outputs: []*graph.Value{y}, Nodes: []*graph.Node{
		{Op: op.Lookup("relu"), In: []*graph.Value{x}, Out: []*graph.Value{r}, Name: "relu"},
		{Op: op.Lookup("flatten"), Attrs: op.Attrs{"axis": 0}, In: []*graph.Value{r}, Out: []*graph.Value{f}, Name: "flat"},
		{Op: op.Lookup("unsqueeze"), Attrs: op.Attrs{"axes": []int{0}}, In: []*graph.Value{f}, Out: []*graph.Value{q}, Name: "unsq"},
		{Op: op.Lookup("add"), In: []*graph.Value{q, f}, Out: []*graph.Value{y}, Name: "add"},
	}}
	p, data := bufferTrace(t, g)
	in := tensor.Rand(rand.New(rand.NewPCG(1, 2)), tensor.Float32, -1, 1, 2, 1024)
	for run := range 2 {
		out, err := p.Run(map[string]*tensor.Tensor{"x": in})
		if err != nil {
			t.Fatal(err)
		}
		if data["flat"] != data["relu"] {
			t.Errorf("run %d: flatten at relu's last use copied", run)
		}
		if data["unsq"] == data["flat"] {
			t.Errorf("run %d: unsqueeze took the buffer of a value read later", run)
		}
		yv := out["y"]
		if !yv.Shape().Equal(tensor.Shape{1, 1, 2048}) {
			t.Fatalf("shape %v", yv.Shape())
		}
		for i, xv := range in.F32() {
			if want := 2 * max(xv, 0); yv.F32()[i] != want {
				t.Fatalf("run %d: y[%d] = %v, want %v", run, i, yv.F32()[i], want)
			}
		}
	}
}

// An op marked op.Def.InPlace (softmax) at its input's last use writes over
// the input's buffer; one whose input is read again later gets its own, and
// both give the reference's values.
func TestSoftmaxInPlace(t *testing.T) {
	x := &graph.Value{Name: "x", Meta: op.Meta{DType: tensor.Float32, Shape: tensor.Shape{-1, 1500}}}
	r, a, b, y := f32Value("r"), f32Value("a"), f32Value("b"), f32Value("y")
	// a = softmax(r) is r's last use; b = softmax(a) is not a's (the add reads it)
	g := &graph.Graph{Inputs: []*graph.Value{x}, Outputs: []*graph.Value{y}, Nodes: []*graph.Node{
		{Op: op.Lookup("relu"), In: []*graph.Value{x}, Out: []*graph.Value{r}, Name: "relu"},
		{Op: op.Lookup("softmax"), Attrs: op.Attrs{"axis": -1}, In: []*graph.Value{r}, Out: []*graph.Value{a}, Name: "sm1"},
		{Op: op.Lookup("softmax"), Attrs: op.Attrs{"axis": -1}, In: []*graph.Value{a}, Out: []*graph.Value{b}, Name: "sm2"},
		{Op: op.Lookup("add"), In: []*graph.Value{b, a}, Out: []*graph.Value{y}, Name: "add"},
	}}
	p, data := bufferTrace(t, g)
	softmax := func(row []float64) []float64 {
		mx, sum := math.Inf(-1), 0.0
		for _, v := range row {
			mx = math.Max(mx, v)
		}
		out := make([]float64, len(row))
		for i, v := range row {
			out[i] = math.Exp(v - mx)
			sum += out[i]
		}
		for i := range out {
			out[i] /= sum
		}
		return out
	}
	in := tensor.Rand(rand.New(rand.NewPCG(3, 4)), tensor.Float32, -8, 8, 3, 1500)
	for run := range 2 {
		out, err := p.Run(map[string]*tensor.Tensor{"x": in})
		if err != nil {
			t.Fatal(err)
		}
		if data["sm1"] != data["relu"] {
			t.Errorf("run %d: softmax at relu's last use did not run in place", run)
		}
		if data["sm2"] == data["sm1"] {
			t.Errorf("run %d: softmax wrote over a value read later", run)
		}
		for o := range 3 {
			row := make([]float64, 1500)
			for i, xv := range in.F32()[o*1500 : (o+1)*1500] {
				row[i] = math.Max(float64(xv), 0)
			}
			s1 := softmax(row)
			s2 := softmax(s1)
			for i := range row {
				want, got := s2[i]+s1[i], float64(out["y"].F32()[o*1500+i])
				if math.Abs(got-want) > 1e-6*want {
					t.Fatalf("run %d: y[%d][%d] = %g, want %g", run, o, i, got, want)
				}
			}
		}
	}
}

// A graph output gets a buffer of its own, never one from the free list:
// taking the freed buffer of an intermediate (here a's, for y) would send
// it to the caller, and every later call would allocate the intermediate
// that buffer served afresh. With outputs apart, the intermediates keep
// the same two buffers from the second call on (in either order).
func TestOutputOwnBuffer(t *testing.T) {
	x := &graph.Value{Name: "x", Meta: op.Meta{DType: tensor.Float32, Shape: tensor.Shape{3, 1000}}}
	a, b, y := f32Value("a"), f32Value("b"), f32Value("y")
	g := &graph.Graph{Inputs: []*graph.Value{x}, Outputs: []*graph.Value{y}, Nodes: []*graph.Node{
		{Op: op.Lookup("relu"), In: []*graph.Value{x}, Out: []*graph.Value{a}, Name: "relu"},
		{Op: op.Lookup("exp"), In: []*graph.Value{a}, Out: []*graph.Value{b}, Name: "exp"},
		{Op: op.Lookup("add"), In: []*graph.Value{b, b}, Out: []*graph.Value{y}, Name: "add"},
	}}
	p, data := bufferTrace(t, g)
	in := tensor.Rand(rand.New(rand.NewPCG(5, 6)), tensor.Float32, -2, 2, 3, 1000)
	var relu, exp *float32
	var outs []*float32
	for run := range 4 {
		out, err := p.Run(map[string]*tensor.Tensor{"x": in})
		if err != nil {
			t.Fatal(err)
		}
		for i, xv := range in.F32() {
			if want := 2 * float32(math.Exp(float64(max(xv, 0)))); math.Abs(float64(out["y"].F32()[i]-want)) > 1e-6*float64(want) {
				t.Fatalf("run %d: y[%d] = %v, want %v", run, i, out["y"].F32()[i], want)
			}
		}
		yp := &out["y"].F32()[0]
		if yp == data["relu"] || yp == data["exp"] {
			t.Errorf("run %d: the output shares an intermediate's buffer", run)
		}
		for _, o := range outs {
			if o == yp {
				t.Errorf("run %d: the output reuses an earlier call's output buffer", run)
			}
		}
		outs = append(outs, yp)
		same := data["relu"] == relu && data["exp"] == exp || data["relu"] == exp && data["exp"] == relu
		if run >= 2 && !same {
			t.Errorf("run %d: the intermediates moved to other buffers (relu %v → %v, exp %v → %v)", run, relu, data["relu"], exp, data["exp"])
		}
		relu, exp = data["relu"], data["exp"]
	}
}
