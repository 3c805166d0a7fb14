package workflow

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"paddle/core/ag"
	"paddle/core/dist"
	"paddle/core/nn"
	"paddle/core/tensor"
)

// BucketBytes is the size of the gradient buckets all-reduced together.
const BucketBytes = 25 << 20

// ranks is the training loop's link to the other ranks of a distributed
// run (Env.Comm). Every method is a no-op, or the plain single-process
// answer, when the run is alone, so Train reads the same either way.
//
// Gradients are averaged as PyTorch's DistributedDataParallel does: the
// float32 parameters are split into buckets of about BucketBytes in reverse
// registration order (roughly the order the backward pass finishes them),
// and in the backward pass of an optimizer step's last micro-batch each
// parameter's gradient hook (ag.Var.SetGradHook) marks it final; once every
// parameter of a bucket is, and the buckets before it have been started, the
// bucket is packed and its all-reduce started (MPI_Iallreduce). Buckets are
// started strictly in order, so every rank calls the collectives in the same
// order whatever its own timing; a bucket with a parameter the step did not
// use on this rank is started after the backward pass (averageGrads), as are
// all buckets when the model has collectives of its own in the backward pass
// (synchronised batch norm: its all-reduces and the buckets' would otherwise
// interleave differently on ranks whose graphs differ).
type ranks struct {
	c       dist.Comm
	params  []nn.Param
	buckets []bucket // in the order they are started
	in      []int    // parameter → its bucket (-1: float64, reduced alone)
	final   []bool   // parameter: its gradient is final in this backward pass
	next    int      // the next bucket to start
	armed   bool     // this backward pass ends an optimizer step: start buckets
	hooked  bool     // the parameters' hooks are set
	err     error    // a bucket that failed to start
}

// A bucket is parameters whose gradients are all-reduced together: buf
// holds their gradients, then one count per parameter of the ranks that
// have a gradient for it (0 everywhere: it keeps none).
type bucket struct {
	params []int // indices into ranks.params, all float32
	floats int   // gradient values in buf
	ready  int   // parameters final in this backward pass
	buf    []float32
	req    dist.Request // the all-reduce in flight (nil: not started)
}

// newRanks sets up a run over c (nil: alone) for model m: it broadcasts
// m's parameters and buffers from rank 0, and splits the parameters into
// buckets of about bucketBytes.
func newRanks(c dist.Comm, m nn.Module, bucketBytes int) (*ranks, error) {
	if c == nil {
		c = dist.Local{}
	}
	r := &ranks{c: c}
	if c.Size() == 1 {
		return r, nil
	}
	r.params = m.Params()
	for _, p := range append(m.Params(), nn.Buffers(m)...) {
		if err := bcast(c, p.V.T); err != nil {
			return nil, fmt.Errorf("broadcast %s from rank 0: %w", p.Name, err)
		}
	}
	r.in = make([]int, len(r.params))
	r.final = make([]bool, len(r.params))
	var cur bucket
	flush := func() {
		if len(cur.params) > 0 {
			cur.buf = c.NewF32(cur.floats + len(cur.params))
			r.buckets = append(r.buckets, cur)
		}
		cur = bucket{}
	}
	for i := len(r.params) - 1; i >= 0; i-- {
		r.in[i] = -1
		p := r.params[i]
		if p.V.T.DType() != tensor.Float32 {
			continue // reduced one by one (float64 models: gradient checks)
		}
		if cur.floats > 0 && 4*(cur.floats+p.V.T.Len()) > bucketBytes {
			flush()
		}
		r.in[i] = len(r.buckets)
		cur.params = append(cur.params, i)
		cur.floats += p.V.T.Len()
	}
	flush()
	return r, nil
}

// overlap sets the parameters' gradient hooks, so that buckets start
// during the backward pass; close removes them.
func (r *ranks) overlap() {
	for i, p := range r.params {
		if r.in[i] >= 0 {
			p.V.SetGradHook(func(*ag.Var) { r.ready(i) })
		}
	}
	r.hooked = true
}

// close removes the gradient hooks (the model outlives the run).
func (r *ranks) close() {
	if r == nil || !r.hooked {
		return
	}
	for _, p := range r.params {
		p.V.SetGradHook(nil)
	}
	r.hooked = false
}

// arm makes the next backward pass start buckets as their gradients become
// final: call it before the backward pass of an optimizer step's last
// micro-batch (the earlier ones only accumulate).
func (r *ranks) arm() {
	if !r.many() {
		return
	}
	r.armed, r.next, r.err = true, 0, nil
	clear(r.final)
	for i := range r.buckets {
		r.buckets[i].ready = 0
	}
}

// ready is parameter i's gradient hook: it is final in this backward pass.
func (r *ranks) ready(i int) {
	if !r.armed || r.final[i] {
		return
	}
	r.final[i] = true
	r.buckets[r.in[i]].ready++
	for r.err == nil && r.next < len(r.buckets) && r.buckets[r.next].ready == len(r.buckets[r.next].params) {
		r.err = r.start(r.next)
		r.next++
	}
}

// start packs bucket bi's gradients and counts and starts its all-reduce.
func (r *ranks) start(bi int) error {
	b := &r.buckets[bi]
	off := 0
	for k, i := range b.params {
		n := r.params[i].V.T.Len()
		b.buf[b.floats+k] = 0
		if g := r.params[i].V.Grad; g != nil {
			copy(b.buf[off:off+n], g.Contiguous().F32())
			b.buf[b.floats+k] = 1
		} else {
			clear(b.buf[off : off+n])
		}
		off += n
	}
	req, err := r.c.IallreduceF32(b.buf)
	if err != nil {
		return fmt.Errorf("all-reduce gradients: %w", err)
	}
	b.req = req
	return nil
}

func bcast(c dist.Comm, t *tensor.Tensor) error {
	switch t.DType() {
	case tensor.Float32:
		return c.BcastF32(t.F32(), 0)
	case tensor.Float64:
		return c.BcastF64(t.F64(), 0)
	case tensor.Int64: // counters (batch norm's num_batches_tracked): exact below 2⁵³
		v := t.I64()
		f := make([]float64, len(v))
		for i, x := range v {
			f[i] = float64(x)
		}
		if err := c.BcastF64(f, 0); err != nil {
			return err
		}
		for i, x := range f {
			v[i] = int64(x)
		}
		return nil
	}
	return fmt.Errorf("dtype %v cannot be broadcast", t.DType())
}

func (r *ranks) root() bool { return r.c.Rank() == 0 }
func (r *ranks) many() bool { return r.c.Size() > 1 }

// batches is the context the data loader gets: alone, ctx itself; in a
// distributed run one that Ctrl-C does not cancel, so every rank reads the
// same batches until they agree to stop (stop).
func (r *ranks) batches(ctx context.Context) context.Context {
	if r.many() {
		return context.WithoutCancel(ctx)
	}
	return ctx
}

// stop reports whether to stop before the next batch: ctx is done here or,
// in a distributed run, on any rank (one small all-reduce, so that all ranks
// stop at the same batch and none waits for the others forever).
func (r *ranks) stop(ctx context.Context) (bool, error) {
	if !r.many() {
		return ctx.Err() != nil, nil
	}
	f := []float32{0}
	if ctx.Err() != nil {
		f[0] = 1
	}
	if err := r.c.AllreduceF32(f); err != nil {
		return false, fmt.Errorf("agree on stopping: %w", err)
	}
	return f[0] > 0, nil
}

// averageGrads replaces every parameter's gradient by its mean over the
// ranks: it starts the buckets the backward pass did not (all of them when
// it was not armed), waits for each and unpacks it. A parameter without a
// gradient on some rank counts as zero there; one without a gradient on
// every rank keeps none.
func (r *ranks) averageGrads() error {
	if !r.many() {
		return nil
	}
	r.armed = false
	if r.err != nil {
		return r.err
	}
	for ; r.next < len(r.buckets); r.next++ {
		if err := r.start(r.next); err != nil {
			return err
		}
	}
	scale := 1 / float32(r.c.Size())
	for bi := range r.buckets {
		b := &r.buckets[bi]
		err := b.req.Wait()
		b.req = nil
		if err != nil {
			return fmt.Errorf("all-reduce gradients: %w", err)
		}
		off := 0
		for k, i := range b.params {
			p := r.params[i].V
			n := p.T.Len()
			if b.buf[b.floats+k] > 0 {
				if p.Grad == nil {
					p.Grad = tensor.New(tensor.Float32, p.T.Shape()...)
				} else {
					p.Grad = p.Grad.Contiguous() // written in place
				}
				dst := p.Grad.F32()
				for j, v := range b.buf[off : off+n] {
					dst[j] = v * scale
				}
			}
			off += n
		}
	}
	for i, p := range r.params { // float64 parameters, one by one, with their count last
		if r.in[i] >= 0 || p.V.T.DType() != tensor.Float64 {
			continue
		}
		g := make([]float64, p.V.T.Len()+1)
		if p.V.Grad != nil {
			copy(g, p.V.Grad.Contiguous().F64())
			g[len(g)-1] = 1
		}
		if err := r.c.AllreduceF64(g); err != nil {
			return fmt.Errorf("all-reduce gradient %s: %w", p.Name, err)
		}
		if g[len(g)-1] == 0 {
			continue
		}
		t := tensor.New(tensor.Float64, p.V.T.Shape()...)
		for k, v := range g[:len(g)-1] {
			t.F64()[k] = v / float64(r.c.Size())
		}
		p.V.Grad = t
	}
	return nil
}

// fail ends the whole job when a rank of a distributed run fails (an
// interruption all ranks agreed on is no failure): the error is logged (it would otherwise die with this rank) and every rank
// is aborted, since the others would wait for this one forever. Alone it
// returns err.
func (r *ranks) fail(err error) error {
	if err == nil || !r.many() || errors.Is(err, context.Canceled) { // every rank agreed to stop (stop)
		return err
	}
	slog.Error("rank failed; aborting every rank", "rank", r.c.Rank(), "of", r.c.Size(), "err", err)
	r.c.Abort(1)
	return err // a Group (tests) returns here; MPI does not
}
