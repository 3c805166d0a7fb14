package workflow

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

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
// Gradients are all-reduced after the backward pass, in buckets of about
// BucketBytes started one after the other with MPI_Iallreduce (the next
// bucket is packed while the previous one is in flight): core/ag has no
// per-parameter hook to start a bucket during the backward pass.
type ranks struct {
	c       dist.Comm
	params  []nn.Param
	buckets []bucket
	flags   []float32 // per parameter: ranks that have a gradient; last: ranks that stop
}

type bucket struct {
	params []int // indices into ranks.params (all float32)
	buf    []float32
}

// newRanks sets up a run over c (nil: alone) for model m: it broadcasts
// m's parameters and buffers from rank 0, and splits the parameters into
// buckets.
func newRanks(c dist.Comm, m nn.Module) (*ranks, error) {
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
	var cur bucket
	size := 0
	flush := func() {
		if len(cur.params) > 0 {
			cur.buf = c.NewF32(size)
			r.buckets = append(r.buckets, cur)
		}
		cur, size = bucket{}, 0
	}
	for i, p := range r.params {
		if p.V.T.DType() != tensor.Float32 {
			continue // reduced one by one (float64 models: gradient checks)
		}
		if size > 0 && 4*(size+p.V.T.Len()) > BucketBytes {
			flush()
		}
		cur.params = append(cur.params, i)
		size += p.V.T.Len()
	}
	flush()
	r.flags = make([]float32, len(r.params)+1)
	return r, nil
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
// ranks. A parameter without a gradient on some rank counts as zero
// there; one without a gradient on every rank keeps none.
func (r *ranks) averageGrads() error {
	if !r.many() {
		return nil
	}
	for i, p := range r.params {
		r.flags[i] = 0
		if p.V.Grad != nil {
			r.flags[i] = 1
			p.V.Grad = p.V.Grad.Contiguous() // unpacked in place below
		}
	}
	if err := r.c.AllreduceF32(r.flags); err != nil {
		return fmt.Errorf("all-reduce gradients: %w", err)
	}
	for i, p := range r.params {
		if r.flags[i] > 0 && p.V.Grad == nil {
			p.V.Grad = tensor.New(p.V.T.DType(), p.V.T.Shape()...)
		}
	}
	scale := 1 / float32(r.c.Size())
	var inflight dist.Request
	var prev *bucket
	unpack := func() error {
		if prev == nil {
			return nil
		}
		if err := inflight.Wait(); err != nil {
			return fmt.Errorf("all-reduce gradients: %w", err)
		}
		off := 0
		for _, i := range prev.params {
			g := r.params[i].V.Grad
			n := r.params[i].V.T.Len()
			if g != nil {
				dst := g.F32()
				for k, v := range prev.buf[off : off+n] {
					dst[k] = v * scale
				}
			}
			off += n
		}
		return nil
	}
	for bi := range r.buckets {
		b := &r.buckets[bi]
		off := 0
		for _, i := range b.params {
			n := r.params[i].V.T.Len()
			if g := r.params[i].V.Grad; g != nil {
				copy(b.buf[off:off+n], g.Contiguous().F32())
			} else {
				clear(b.buf[off : off+n])
			}
			off += n
		}
		req, err := r.c.IallreduceF32(b.buf)
		if err != nil {
			return fmt.Errorf("all-reduce gradients: %w", err)
		}
		if err := unpack(); err != nil { // the previous bucket, while this one is in flight
			return err
		}
		inflight, prev = req, b
	}
	if err := unpack(); err != nil {
		return err
	}
	for i, p := range r.params { // float64 parameters, one by one
		if p.V.T.DType() == tensor.Float64 && p.V.Grad != nil {
			g := p.V.Grad.F64()
			if err := r.c.AllreduceF64(g); err != nil {
				return fmt.Errorf("all-reduce gradient %d: %w", i, err)
			}
			for k := range g {
				g[k] /= float64(r.c.Size())
			}
		}
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
