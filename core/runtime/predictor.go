// Package runtime runs static graphs: a Predictor loads a model (ONNX),
// applies graph passes and executes the nodes in topological order on the
// registry kernels. It imports no autograd, optimizer or workflow code.
//
// One Predictor serves concurrent Run calls: weights are shared read-only,
// every call has its own intermediates, and nothing global is mutated after
// Load. Intermediates are dropped after their last use. Input shapes may
// change from call to call; the plan for each input-shape signature (shapes,
// resolved shape-valued attributes, folded shape arithmetic) is cached in a
// bounded LRU.
package runtime

import (
	"container/list"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"paddle/core/graph"
	"paddle/core/onnx"
	"paddle/core/op"
	"paddle/core/parallel"
	"paddle/core/pdmodel"
	"paddle/core/tensor"
)

// PlanCacheSize bounds the number of input-shape plans a Predictor keeps.
const PlanCacheSize = 16

// PlanCacheBytes bounds the bytes of values folded for input shapes (a
// mask or a grid the size of the image) that a Predictor's cached plans
// keep, all together; the least recently used plans go first, the newest
// stays. (A variable for tests.)
var PlanCacheBytes int64 = 64 << 20

// Options configure Load.
type Options struct {
	// Threads sets how many goroutines kernels use (process-wide, see
	// parallel.SetThreads); 0 leaves the current setting.
	Threads int
	// Passes lists the graph passes to apply, in order (see PassNames); nil
	// means DefaultPasses, an empty non-nil slice means none.
	Passes []string
	// Fixed gives inputs a value once and for all: they become constants
	// before the passes run (so, e.g., an If on a sample-rate input is
	// inlined) and are no longer inputs of Run.
	Fixed map[string]*tensor.Tensor
	// Trace, when set, is called after each executed node with the node and
	// the wall time its kernel took (for per-op profiles; folded nodes and
	// If branches' inner nodes are not reported). Concurrent Run calls call
	// it concurrently.
	Trace func(n *graph.Node, outs []*tensor.Tensor, d time.Duration)
	// Params is the weights file of a PaddlePaddle inference.pdmodel given
	// to Load; empty means the .pdiparams beside it.
	Params string
}

// Predictor is a loaded model, ready for concurrent Run calls.
type Predictor struct {
	g        *graph.Graph
	steps    []step
	nvals    int
	id       map[*graph.Value]int
	consts   []*tensor.Tensor // by value id; nil for non-constants
	inputs   []*graph.Value
	inIDs    []int
	outIDs   []int
	outNames []string
	producer map[int]int // value id -> index of the step that makes it
	trace    func(n *graph.Node, outs []*tensor.Tensor, d time.Duration)

	arenas     arenaPool // idle call arenas, see arena.go
	spares     spares    // outputs' buffers given back (Recycle)
	recyclable []bool    // by output: Recycle may take its buffer
	mu         sync.Mutex
	plans      map[string]*list.Element
	lru        *list.List
	planBytes  int64 // folded values of the cached plans
}

// step is one node with its inputs and outputs as value ids, and the ids
// whose last use it is.
type step struct {
	n        *graph.Node
	in, out  []int
	attrIn   []int
	free     []int
	branches []*Predictor // then, else of an If node
	// handOver: the node is a reshape (reshapeOps) and this is its input's
	// last use, so an arena buffer of the input becomes the output's
	// without a copy (arena.handOver)
	handOver bool
	// inPlace: the node's op runs in place (op.Def.InPlace) and this is its
	// first input's last use, so the output takes that input's arena
	// buffer and the kernel writes over it
	inPlace bool
	// output[j]: out[j] is a graph output, handed to the caller
	output []bool
}

// reshapeOps are the ops whose output holds their first input's elements
// in the same order (only the shape differs).
var reshapeOps = map[string]bool{"reshape": true, "flatten": true, "squeeze": true, "unsqueeze": true}

// Load reads a model (ONNX, or a PaddlePaddle 2.x inference.pdmodel with
// its weights, see ReadGraph) and prepares it for Run.
func Load(path string, opts Options) (*Predictor, error) {
	g, err := ReadGraph(path, opts.Params)
	if err != nil {
		return nil, err
	}
	return New(g, opts)
}

// ReadGraph imports a model file into the IR: a PaddlePaddle 2.x
// inference.pdmodel or Paddle 3 PIR inference.json with its weights
// (params, or the .pdiparams beside it when empty) through core/pdmodel,
// anything else as ONNX. Other
// PaddlePaddle files fail naming their format (PaddleFileError).
func ReadGraph(path, params string) (*graph.Graph, error) {
	if pdmodel.IsModel(path) {
		return pdmodel.ReadFile(path, params)
	}
	if pdmodel.IsPIR(path) {
		return pdmodel.ReadPIRFile(path, params)
	}
	if err := PaddleFileError(path); err != nil {
		return nil, err
	}
	return onnx.ReadFile(path)
}

// New prepares g (which it may rewrite with passes) for Run.
func New(g *graph.Graph, opts Options) (*Predictor, error) {
	if opts.Threads > 0 {
		parallel.SetThreads(opts.Threads)
	}
	if err := fixInputs(g, opts.Fixed); err != nil {
		return nil, err
	}
	opts.Fixed = nil // branches see the constants directly
	if err := applyPasses(g, opts.Passes); err != nil {
		return nil, err
	}
	if err := g.Sort(); err != nil {
		return nil, err
	}
	p := &Predictor{g: g, id: map[*graph.Value]int{}, plans: map[string]*list.Element{}, lru: list.New(), trace: opts.Trace}
	idOf := func(v *graph.Value) int {
		if i, ok := p.id[v]; ok {
			return i
		}
		i := len(p.consts)
		p.id[v] = i
		p.consts = append(p.consts, v.Const)
		return i
	}
	for _, v := range g.Inputs {
		p.inputs = append(p.inputs, v)
		p.inIDs = append(p.inIDs, idOf(v))
	}
	last := map[int]int{}
	p.producer = map[int]int{}
	for si, n := range g.Nodes {
		s := step{n: n}
		for _, b := range n.Branches {
			bp, err := New(b, opts)
			if err != nil {
				return nil, fmt.Errorf("runtime: node %s: %w", n.Label(), err)
			}
			s.branches = append(s.branches, bp)
		}
		for _, v := range n.In {
			s.in = append(s.in, idOf(v))
		}
		for _, a := range n.AttrIn {
			s.attrIn = append(s.attrIn, idOf(a.V))
		}
		for _, v := range n.Out {
			s.out = append(s.out, idOf(v))
			p.producer[s.out[len(s.out)-1]] = si
		}
		for _, id := range append(append([]int(nil), s.in...), s.attrIn...) {
			last[id] = si
		}
		p.steps = append(p.steps, s)
	}
	keep := map[int]bool{}
	for i, v := range g.Outputs {
		id := idOf(v)
		p.outIDs = append(p.outIDs, id)
		p.outNames = append(p.outNames, g.OutputName(i))
		keep[id] = true
	}
	for si := range p.steps {
		st := &p.steps[si]
		for j, id := range st.out {
			if keep[id] {
				if st.output == nil {
					st.output = make([]bool, len(st.out))
				}
				st.output[j] = true
			}
		}
	}
	for _, id := range p.inIDs {
		keep[id] = true
	}
	for id, si := range last {
		if !keep[id] && p.consts[id] == nil {
			p.steps[si].free = append(p.steps[si].free, id)
		}
	}
	for si := range p.steps {
		st := &p.steps[si]
		if len(st.in) == 0 || len(st.out) != 1 || !slices.Contains(st.free, st.in[0]) {
			continue
		}
		uses := 0
		for _, id := range append(slices.Clone(st.in), st.attrIn...) {
			if id == st.in[0] {
				uses++
			}
		}
		st.handOver = uses == 1 && reshapeOps[st.n.Op.Name]
		st.inPlace = uses == 1 && st.n.Op.InPlace
	}
	for _, id := range p.outIDs {
		// not a Run input, nor an If branch's output (which may be its input)
		si, made := p.producer[id]
		p.recyclable = append(p.recyclable, made && p.steps[si].branches == nil)
	}
	p.nvals = len(p.consts)
	return p, nil
}

// fixInputs turns the named inputs into constants.
func fixInputs(g *graph.Graph, fixed map[string]*tensor.Tensor) error {
	if len(fixed) == 0 {
		return nil
	}
	var keep []*graph.Value
	for _, v := range g.Inputs {
		t, ok := fixed[v.Name]
		if !ok {
			keep = append(keep, v)
			continue
		}
		if t.DType() != v.Meta.DType {
			return fmt.Errorf("runtime: fixed input %q is %v, want %v", v.Name, t.DType(), v.Meta.DType)
		}
		v.Const, v.Meta = t.Contiguous(), graph.ConstMeta(t)
	}
	if len(keep) != len(g.Inputs)-len(fixed) {
		return fmt.Errorf("runtime: Fixed names inputs the model does not have (inputs: %v)", fixed)
	}
	g.Inputs = keep
	return nil
}

// Graph returns the (optimised) graph the predictor runs. Callers must not modify it.
func (p *Predictor) Graph() *graph.Graph { return p.g }

// InputNames returns the graph inputs' names in order.
func (p *Predictor) InputNames() []string {
	out := make([]string, len(p.inputs))
	for i, v := range p.inputs {
		out[i] = v.Name
	}
	return out
}

// OutputNames returns the graph outputs' names in order.
func (p *Predictor) OutputNames() []string { return append([]string(nil), p.outNames...) }

// InputMeta returns the declared dtype and shape (-1 for dynamic dims) of the named input.
func (p *Predictor) InputMeta(name string) (op.Meta, bool) {
	for _, v := range p.inputs {
		if v.Name == name {
			return op.Meta{DType: v.Meta.DType, Shape: v.Meta.Shape.Clone()}, true
		}
	}
	return op.Meta{}, false
}

// plan is what Infer resolved for one input-shape signature, by step.
type plan struct {
	attrs  []op.Attrs  // nil: resolve at run time
	metas  [][]op.Meta // nil: infer at run time
	folded [][]*tensor.Tensor
	bytes  int64 // of folded
}

func (p *Predictor) planFor(in []*tensor.Tensor) (*plan, error) {
	var kb strings.Builder
	metas := map[string]op.Meta{}
	for i, t := range in {
		fmt.Fprintf(&kb, "%d%v;", t.DType(), t.Shape())
		metas[p.inputs[i].Name] = op.MetaOf(t)
	}
	key := kb.String()
	p.mu.Lock()
	if e, ok := p.plans[key]; ok {
		p.lru.MoveToFront(e)
		pl := e.Value.(*planEntry).plan
		p.mu.Unlock()
		return pl, nil
	}
	p.mu.Unlock()
	s, err := graph.Infer(p.g, metas)
	if err != nil {
		return nil, fmt.Errorf("runtime: %w", err)
	}
	pl := &plan{attrs: make([]op.Attrs, len(p.steps)), metas: make([][]op.Meta, len(p.steps)),
		folded: make([][]*tensor.Tensor, len(p.steps))}
	for i, st := range p.steps {
		n := st.n
		if n.Op == graph.IfOp {
			continue // execIf
		}
		if !n.Dynamic() {
			pl.attrs[i] = n.Attrs
		} else {
			pl.attrs[i] = s.Attrs[n]
		}
		if s.Folded[n] {
			f := make([]*tensor.Tensor, len(n.Out))
			for j, v := range n.Out {
				f[j] = s.Known[v]
			}
			pl.folded[i] = f
			for _, t := range f {
				if t != nil {
					pl.bytes += int64(t.Len() * t.DType().Size())
				}
			}
			continue
		}
		if pl.attrs[i] == nil {
			continue
		}
		ms := make([]op.Meta, len(n.In))
		ok := true
		for j, v := range n.In {
			if v.Const != nil {
				ms[j] = graph.ConstMeta(v.Const)
			} else {
				ms[j] = s.Meta[v]
			}
			ok = ok && graph.KnownShape(ms[j].Shape)
		}
		if ok {
			if out, err := n.Op.InferMeta(ms, pl.attrs[i]); err == nil {
				pl.metas[i] = out
			}
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if e, ok := p.plans[key]; ok { // another call made it meanwhile
		return e.Value.(*planEntry).plan, nil
	}
	p.plans[key] = p.lru.PushFront(&planEntry{key, pl})
	p.planBytes += pl.bytes
	for p.lru.Len() > PlanCacheSize || (p.planBytes > PlanCacheBytes && p.lru.Len() > 1) {
		e := p.lru.Back()
		p.lru.Remove(e)
		delete(p.plans, e.Value.(*planEntry).key)
		p.planBytes -= e.Value.(*planEntry).plan.bytes
	}
	return pl, nil
}

type planEntry struct {
	key  string
	plan *plan
}

// PlanCount returns how many input-shape plans are cached (at most PlanCacheSize).
func (p *Predictor) PlanCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lru.Len()
}

// CachedBytes returns the bytes a Predictor keeps between Run calls beyond
// its weights: the idle arenas' buffers (at most MaxRetainedArenaBytes
// while its call was the last, MaxIdleArenaBytes once another started)
// with the recycled outputs' (at most MaxSpareBytes), and
// the cached plans' folded values (at most PlanCacheBytes, or the newest
// plan's when that alone is larger).
func (p *Predictor) CachedBytes() (arenas, plans int64) {
	p.mu.Lock()
	plans = p.planBytes
	p.mu.Unlock()
	return p.arenas.bytes() + p.spares.bytes(), plans
}

// Release drops what a Predictor keeps between calls (idle arenas,
// recycled outputs, cached plans), for the garbage collector to return;
// the next Run rebuilds them. A long-lived process calls it when it goes
// idle or after an unusually large input. Safe while Run calls are in flight.
func (p *Predictor) Release() {
	p.arenas.drain()
	p.spares.drop()
	p.mu.Lock()
	defer p.mu.Unlock()
	clear(p.plans)
	p.lru.Init()
	p.planBytes = 0
	for _, st := range p.steps {
		for _, b := range st.branches {
			b.Release()
		}
	}
}

// Run executes the model on the named inputs and returns the outputs by name.
// It is safe for concurrent use. Inputs are not modified.
func (p *Predictor) Run(inputs map[string]*tensor.Tensor) (map[string]*tensor.Tensor, error) {
	in := make([]*tensor.Tensor, len(p.inputs))
	for i, v := range p.inputs {
		t, ok := inputs[v.Name]
		if !ok {
			return nil, fmt.Errorf("runtime: missing input %q (inputs: %s)", v.Name, strings.Join(p.InputNames(), ", "))
		}
		if t.DType() != v.Meta.DType {
			return nil, fmt.Errorf("runtime: input %q is %v, want %v", v.Name, t.DType(), v.Meta.DType)
		}
		in[i] = t.Contiguous()
	}
	if len(inputs) != len(p.inputs) {
		var extra []string
		for k := range inputs {
			if _, ok := p.InputMeta(k); !ok {
				extra = append(extra, k)
			}
		}
		sort.Strings(extra)
		return nil, fmt.Errorf("runtime: unknown inputs %s (inputs: %s)", strings.Join(extra, ", "), strings.Join(p.InputNames(), ", "))
	}
	pl, err := p.planFor(in)
	if err != nil {
		return nil, err
	}
	vals := make([]*tensor.Tensor, p.nvals)
	copy(vals, p.consts)
	for i, id := range p.inIDs {
		vals[id] = in[i]
	}
	inElems := int64(0)
	for _, t := range in {
		inElems += int64(t.Len())
	}
	ar := p.arenas.get(inElems)
	ar.spares = &p.spares
	for i := range p.steps {
		if err := p.exec(&p.steps[i], pl, i, vals, ar); err != nil {
			return nil, err
		}
	}
	out := make(map[string]*tensor.Tensor, len(p.outIDs))
	for i, id := range p.outIDs {
		t := vals[id]
		si, made := p.producer[id]
		if p.consts[id] != nil || (made && pl.folded[si] != nil) {
			t = t.Clone() // never hand out shared weights or cached plan values
		}
		out[p.outNames[i]] = t
	}
	ar.reset(out)
	p.arenas.put(ar)
	return out, nil
}

// exec runs one step, turning kernel panics into errors naming the node.
func (p *Predictor) exec(st *step, pl *plan, i int, vals []*tensor.Tensor, ar *arena) (err error) {
	n := st.n
	if f := pl.folded[i]; f != nil {
		for j, id := range st.out {
			vals[id] = f[j]
		}
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("runtime: node %s: %v", n.Label(), r)
		}
	}()
	if st.branches != nil {
		return p.execIf(st, vals)
	}
	args := make([]*tensor.Tensor, len(st.in))
	for j, id := range st.in {
		args[j] = vals[id]
		if args[j] == nil {
			return fmt.Errorf("runtime: node %s: input %q has no value", n.Label(), n.In[j].Name)
		}
	}
	attrs := pl.attrs[i]
	metas := pl.metas[i]
	if attrs == nil || metas == nil {
		ms := make([]op.Meta, len(args))
		for j, t := range args {
			ms[j] = op.MetaOf(t)
		}
		if attrs == nil {
			av := make([]*tensor.Tensor, len(st.attrIn))
			for j, id := range st.attrIn {
				av[j] = vals[id]
			}
			if attrs, err = graph.ResolveAttrs(n, av, ms); err != nil {
				return fmt.Errorf("runtime: %w", err)
			}
		}
		if metas, err = n.Op.InferMeta(ms, attrs); err != nil {
			return fmt.Errorf("runtime: node %s: %w", n.Label(), err)
		}
	}
	if st.handOver {
		if t := ar.handOver(args[0], metas[0]); t != nil {
			if p.trace != nil {
				p.trace(n, []*tensor.Tensor{t}, 0)
			}
			vals[st.out[0]] = t
			for _, id := range st.free {
				vals[id] = nil // args[0]'s buffer is t's now
			}
			return nil
		}
	}
	outs := make([]*tensor.Tensor, len(metas))
	if st.inPlace && metas[0].Shape.Equal(args[0].Shape()) {
		// the input's buffer becomes the output's (nil: not the arena's);
		// releasing the input below is then a no-op
		outs[0] = ar.handOver(args[0], metas[0])
	}
	for j, m := range metas {
		switch {
		case outs[j] != nil:
		case st.output != nil && st.output[j]:
			// A graph output leaves with the caller: a buffer of its own
			// (one the caller gave back, see Recycle), not one from the
			// free list. Taken from there (any buffer of up to twice its
			// size fits) it would leave the arena short of the
			// intermediate that buffer served, which then allocates one
			// afresh on the next call, and so on: int8 det at 960
			// allocated 7.4 MB, then 9.2 MB, in alternate calls, with
			// page faults. (An output computed in place does take its
			// input's buffer, which saves a buffer its size; given back,
			// the input takes it again from the spares: arena.alloc.)
			outs[j] = p.newOutput(m.DType, m.Shape, !n.Op.Overwrites)
		default:
			outs[j] = ar.alloc(m.DType, m.Shape, !n.Op.Overwrites)
		}
	}
	if p.trace != nil {
		t0 := time.Now()
		op.Run(n.Op, outs, args, attrs)
		p.trace(n, outs, time.Since(t0))
	} else {
		op.Run(n.Op, outs, args, attrs)
	}
	for j, id := range st.out {
		vals[id] = outs[j]
	}
	for _, id := range st.free {
		if vals[id] != nil {
			ar.release(vals[id])
		}
		vals[id] = nil
	}
	return nil
}

// execIf runs the branch an If node's condition selects.
func (p *Predictor) execIf(st *step, vals []*tensor.Tensor) error {
	n := st.n
	cond := vals[st.in[0]]
	if cond == nil || cond.Len() != 1 {
		return fmt.Errorf("runtime: node %s: the condition must hold one element", n.Label())
	}
	bp := st.branches[1]
	if cond.Contiguous().Float64s()[0] != 0 {
		bp = st.branches[0]
	}
	in := make(map[string]*tensor.Tensor, len(bp.inputs))
	for i, v := range bp.inputs {
		in[v.Name] = vals[st.in[1+i]]
	}
	out, err := bp.Run(in)
	if err != nil {
		return fmt.Errorf("runtime: node %s: %w", n.Label(), err)
	}
	for i, id := range st.out {
		vals[id] = out[bp.outNames[i]]
	}
	for _, id := range st.free {
		vals[id] = nil
	}
	return nil
}
