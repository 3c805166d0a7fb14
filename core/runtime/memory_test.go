package runtime

import (
	"runtime"
	"testing"

	"paddle/core/graph"
	"paddle/core/op"
	"paddle/core/tensor"
)

// maskGraph is y = x + ones(shape(x)), x (?, 256): the ones are folded per
// input shape, so each plan keeps a value the size of its input.
func maskGraph() *graph.Graph {
	x := &graph.Value{Name: "x", Meta: op.Meta{DType: tensor.Float32, Shape: tensor.Shape{-1, 256}}}
	s := &graph.Value{Name: "s", Meta: op.Meta{DType: tensor.Int64}}
	c := &graph.Value{Name: "c", Meta: op.Meta{DType: tensor.Float32}}
	y := &graph.Value{Name: "y", Meta: op.Meta{DType: tensor.Float32}}
	return &graph.Graph{Inputs: []*graph.Value{x}, Outputs: []*graph.Value{y}, Nodes: []*graph.Node{
		{Op: op.Lookup("shape"), In: []*graph.Value{x}, Out: []*graph.Value{s}, Name: "shape"},
		{Op: op.Lookup("constant_of_shape"), Attrs: op.Attrs{"value": 1.0, "dtype": "float32"}, Out: []*graph.Value{c}, Name: "ones",
			AttrIn: []graph.AttrIn{{Attr: "shape", Kind: graph.AttrInts, V: s}}},
		{Op: op.Lookup("add"), In: []*graph.Value{x, c}, Out: []*graph.Value{y}, Name: "add"},
	}}
}

// run feeds p an (n, 256) input and checks y = x + 1.
func runMask(t *testing.T, p *Predictor, n int) {
	t.Helper()
	x := tensor.Full(tensor.Float32, 2, n, 256)
	out, err := p.Run(map[string]*tensor.Tensor{"x": x})
	if err != nil {
		t.Fatal(err)
	}
	if y := out["y"]; !y.Shape().Equal(tensor.Shape{n, 256}) || y.F32()[0] != 3 || y.F32()[n*256-1] != 3 {
		t.Fatalf("n=%d: y %v", n, y.Shape())
	}
}

// TestCachedBytesBounded: over many input sizes, what a Predictor keeps
// between calls stays within MaxRetainedArenaBytes and PlanCacheBytes, and
// Release frees it all.
func TestCachedBytesBounded(t *testing.T) {
	oldA, oldR, oldP := MaxIdleArenaBytes, MaxRetainedArenaBytes, PlanCacheBytes
	// Below what 16 plans of up to 250 rows (256 KB of folded ones each) and
	// one call of 3000 rows (3 MB of ones freed into the arena) would keep.
	MaxIdleArenaBytes, MaxRetainedArenaBytes, PlanCacheBytes = 1<<20, 1<<20, 512<<10
	defer func() { MaxIdleArenaBytes, MaxRetainedArenaBytes, PlanCacheBytes = oldA, oldR, oldP }()
	p, err := New(maskGraph(), Options{Passes: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	runMask(t, p, 8)
	if _, plans := p.CachedBytes(); plans != 8*256*4+2*8 {
		t.Fatalf("one plan keeps %d bytes, want the folded shape's and ones' %d", plans, 8*256*4+2*8)
	}
	sizes := []int{}
	for n := 10; n <= 250; n += 16 { // folded per plan (at most graph.FoldLimit elements)
		sizes = append(sizes, n)
	}
	for n := 300; n <= 3000; n += 300 { // computed per call, freed into the arena
		sizes = append(sizes, n)
	}
	for _, n := range sizes {
		runMask(t, p, n)
		arenas, plans := p.CachedBytes()
		if arenas > MaxIdleArenaBytes {
			t.Fatalf("n=%d: idle arenas keep %d bytes, over the %d budget", n, arenas, MaxIdleArenaBytes)
		}
		if plans > PlanCacheBytes {
			t.Fatalf("n=%d: plans keep %d bytes, over the %d budget", n, plans, PlanCacheBytes)
		}
	}
	p.Release()
	if a, pl := p.CachedBytes(); a != 0 || pl != 0 || p.PlanCount() != 0 {
		t.Fatalf("after Release: arenas %d, plans %d bytes, %d plans", a, pl, p.PlanCount())
	}
	runMask(t, p, 50) // and it still runs
}

// TestRetainedHeapFlatOverSizes runs 400 inputs of 200 different sizes
// through one Predictor: the live heap after a GC, measured after input 40
// and after input 400 (each time after the same last input), stays within
// 10 %: what sizes seen earlier left is bounded (plans, arenas).
func TestRetainedHeapFlatOverSizes(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap over 400 runs")
	}
	p, err := New(maskGraph(), Options{Passes: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	live := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	var at40 uint64
	for i := range 400 {
		runMask(t, p, 10+(i*7919)%200*18) // 200 sizes, 10..3592 rows (10 KB–3.7 MB)
		if i == 39 {
			runMask(t, p, 3600) // the arena then holds the same, whatever came before
			at40 = live()
		}
	}
	runMask(t, p, 3600)
	at400 := live()
	a, pl := p.CachedBytes()
	t.Logf("live heap after 40 inputs %.1f MB, after 400 %.1f MB (arenas %d, plans %d bytes)", float64(at40)/1e6, float64(at400)/1e6, a, pl)
	if float64(at400) > 1.1*float64(at40) {
		t.Errorf("live heap grew from %d to %d bytes over 400 inputs of 200 sizes", at40, at400)
	}
}

// TestIdleArenasShareOneBudget: the idle arenas of all Predictors but the
// one used last stay within MaxIdleArenaBytes together; the one used last
// keeps its call's buffers until another call starts, the least recently
// used loses its buffers first.
func TestIdleArenasShareOneBudget(t *testing.T) {
	old := MaxIdleArenaBytes
	MaxIdleArenaBytes = 3 << 20 // one call of 2000 rows leaves 2 MB, two do not fit
	defer func() { MaxIdleArenaBytes = old }()
	var ps []*Predictor
	for range 3 {
		p, err := New(maskGraph(), Options{Passes: []string{}})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Release()
		ps = append(ps, p)
	}
	const call = 2000 * 256 * 4
	for i, p := range ps {
		runMask(t, p, 2000)
		last, _ := p.CachedBytes()
		if last < call {
			t.Fatalf("predictor %d, used last, keeps %d bytes of arenas, want its call's %d", i, last, call)
		}
		if others := IdleArenaBytes() - last; others > MaxIdleArenaBytes {
			t.Fatalf("after predictor %d: the others' idle arenas keep %d bytes, over the %d budget", i, others, MaxIdleArenaBytes)
		}
	}
	if a, _ := ps[0].CachedBytes(); a >= call {
		t.Errorf("the least recently used predictor still keeps %d bytes of arenas", a)
	}
}

// TestRetainedUntilAnotherCall: a Predictor called again with the same
// input finds its last call's whole working set (above MaxIdleArenaBytes)
// and allocates almost nothing; a call of another Predictor first trims it
// to the budget.
func TestRetainedUntilAnotherCall(t *testing.T) {
	old := MaxIdleArenaBytes
	MaxIdleArenaBytes = 1 << 20 // below one call's 3 MB
	defer func() { MaxIdleArenaBytes = old }()
	p, err := New(maskGraph(), Options{Passes: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	q, err := New(maskGraph(), Options{Passes: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Release()
	alloc := func(p *Predictor) uint64 { // bytes a call allocates
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		runMask(t, p, 3000)
		runtime.ReadMemStats(&m1)
		return m1.TotalAlloc - m0.TotalAlloc
	}
	first := alloc(p)
	kept, _ := p.CachedBytes()
	if kept <= MaxIdleArenaBytes {
		t.Fatalf("after its call the predictor keeps %d bytes, want its working set (over %d)", kept, MaxIdleArenaBytes)
	}
	// the input and the output handed back are new each time; the rest is reused
	if again := alloc(p); again+uint64(kept)*9/10 > first {
		t.Errorf("the same call again allocated %d bytes, the first %d: the %d kept were not reused", again, first, kept)
	}
	runMask(t, q, 10) // another predictor's call trims p's arena
	if a, _ := p.CachedBytes(); a > MaxIdleArenaBytes {
		t.Errorf("after another predictor's call p keeps %d bytes, over the %d budget", a, MaxIdleArenaBytes)
	}
}

// TestArenaEmptiedForOtherSizes: an idle arena whose buffers cannot fit the
// next call (its inputs are larger, or less than half as large) is emptied
// when that call takes it, so its buffers are not kept alive beside the
// call's own; one within [1/2, 1] of its last call's inputs keeps them.
func TestArenaEmptiedForOtherSizes(t *testing.T) {
	p, err := New(maskGraph(), Options{Passes: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	for _, tt := range []struct {
		rows int
		keep bool
	}{{1000, true}, {400, false}, {2000, false}, {600, true}, {999, true}} {
		p.Release()
		runMask(t, p, 1000)
		a := p.arenas.get(int64(tt.rows * 256))
		if kept := len(a.free) > 0; kept != tt.keep {
			t.Errorf("after 1000 rows, a call of %d rows finds %d free buffers, want kept=%v", tt.rows, len(a.free), tt.keep)
		}
	}
}
