package data

import (
	"context"
	"fmt"
	"iter"
	"sync"
)

// LoaderOptions configure a Loader.
type LoaderOptions struct {
	BatchSize int     // samples per batch; 0 means 1
	DropLast  bool    // drop a final batch smaller than BatchSize
	Shuffle   bool    // use a Random sampler seeded with Seed (ignored if Sampler is set)
	Sampler   Sampler // the order of indices; default Sequential, or Random with Shuffle
	Workers   int     // goroutines reading samples; 0 reads on the caller's goroutine
	Prefetch  int     // batches prepared ahead of the consumer; 0 means 2*Workers (at least Workers)
	Seed      uint64  // seeds the shuffle and every sample's RNG (see SampleRand)
}

// SampleError is a failure to read or transform one sample.
type SampleError struct {
	Index int // dataset index
	Err   error
}

func (e *SampleError) Error() string { return fmt.Sprintf("sample %d: %v", e.Index, e.Err) }

// Unwrap returns the underlying error.
func (e *SampleError) Unwrap() error { return e.Err }

// A Loader reads a Dataset in batches. Batch k of an epoch always holds the
// same samples, transformed with the same random draws, in the same order,
// whatever the number of workers: each sample's RNG is SampleRand(Seed,
// epoch, position) and batches are delivered in order. Samples a transform
// drops shrink their batch; a batch left empty is skipped.
//
// A panic in a worker (a bug in a dataset or transform) is re-raised on the
// consumer's goroutine after the other workers stop.
type Loader[S, B any] struct {
	ds      Dataset[S]
	opts    LoaderOptions
	sampler Sampler
	collate func([]S) (B, error)
}

// NewLoader returns a Loader over ds that turns each batch of samples into a
// B with collate. With Workers > 0, ds (Get/GetRand) and collate are called
// from several goroutines at once and must be safe for that.
func NewLoader[S, B any](ds Dataset[S], opts LoaderOptions, collate func([]S) (B, error)) *Loader[S, B] {
	opts.BatchSize = max(opts.BatchSize, 1)
	opts.Workers = max(opts.Workers, 0)
	if opts.Prefetch <= 0 {
		opts.Prefetch = 2 * opts.Workers
	}
	opts.Prefetch = max(opts.Prefetch, opts.Workers, 1)
	s := opts.Sampler
	switch {
	case s != nil:
	case opts.Shuffle:
		s = Random{N: ds.Len(), Seed: opts.Seed}
	default:
		s = Sequential{N: ds.Len()}
	}
	return &Loader[S, B]{ds: ds, opts: opts, sampler: s, collate: collate}
}

// Len is the number of batches per epoch (for the epoch-0 sampler order;
// it is the same for every epoch with the samplers of this package).
func (l *Loader[S, B]) Len() int { return len(l.batches(0)) }

type span struct {
	pos int
	idx []int
} // a batch: its first position in the epoch and its indices

func (l *Loader[S, B]) batches(epoch int) []span {
	order := l.sampler.Indices(epoch)
	bs := l.opts.BatchSize
	pos := func(p int) int { return p }
	if d, ok := l.sampler.(DistributedBatch); ok { // a sample's RNG is its one-process position's
		pos = d.position(len(d.Inner.Indices(epoch)))
	}
	var out []span
	for p := 0; p < len(order); p += bs {
		end := min(p+bs, len(order))
		if end-p < bs && l.opts.DropLast {
			break
		}
		out = append(out, span{pos(p), order[p:end]})
	}
	return out
}

type result[B any] struct {
	b      B
	err    error
	skip   bool // every sample was dropped
	panicV any
	panics bool
}

// Epoch returns the batches of one epoch. Iteration stops after the first
// error (a *SampleError for a bad sample, the collate error, or ctx.Err()).
// Breaking out of the loop or cancelling ctx stops the workers; Epoch's
// sequence returns only after they have exited.
func (l *Loader[S, B]) Epoch(ctx context.Context, epoch int) iter.Seq2[B, error] {
	return l.EpochFrom(ctx, epoch, 0)
}

// EpochFrom is Epoch starting at batch start, for an exact resume in the
// middle of an epoch: the skipped batches are not read, and the rest are
// identical to Epoch's. start counts the sampler's batches, which equal the
// batches Epoch yields unless transforms dropped every sample of a batch.
func (l *Loader[S, B]) EpochFrom(ctx context.Context, epoch, start int) iter.Seq2[B, error] {
	return func(yield func(B, error) bool) {
		spans := l.batches(epoch)
		spans = spans[min(max(start, 0), len(spans)):]
		if l.opts.Workers == 0 {
			l.serial(ctx, epoch, spans, yield)
			return
		}
		l.parallel(ctx, epoch, spans, yield)
	}
}

func (l *Loader[S, B]) serial(ctx context.Context, epoch int, spans []span, yield func(B, error) bool) {
	var zero B
	for _, sp := range spans {
		r := l.run(ctx, epoch, sp)
		switch {
		case r.err != nil:
			yield(zero, r.err)
			return
		case r.skip:
			continue
		case !yield(r.b, nil):
			return
		}
	}
}

func (l *Loader[S, B]) parallel(ctx context.Context, epoch int, spans []span, yield func(B, error) bool) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()

	type job struct {
		sp  span
		out chan result[B]
	}
	jobs := make(chan job)
	// pending holds each dispatched batch's result channel in batch order;
	// its capacity bounds how far the workers run ahead of the consumer.
	pending := make(chan chan result[B], l.opts.Prefetch)
	wg.Add(1 + l.opts.Workers)
	go func() {
		defer wg.Done()
		defer close(jobs)
		defer close(pending)
		for _, sp := range spans {
			out := make(chan result[B], 1) // buffered: a worker never blocks on delivery
			select {
			case pending <- out:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- job{sp, out}:
			case <-ctx.Done():
				return
			}
		}
	}()
	for range l.opts.Workers {
		go func() {
			defer wg.Done()
			for j := range jobs {
				j.out <- l.runGuarded(ctx, epoch, j.sp)
			}
		}()
	}

	var zero B
	done := 0
	for out := range pending {
		var r result[B]
		select {
		case r = <-out:
		case <-ctx.Done():
			yield(zero, ctx.Err())
			return
		}
		done++
		switch {
		case r.panics:
			cancel()
			wg.Wait()
			panic(r.panicV)
		case r.err != nil:
			yield(zero, r.err)
			return
		case r.skip:
			continue
		case !yield(r.b, nil):
			return
		}
	}
	if done < len(spans) { // the dispatcher stopped early: ctx was cancelled
		yield(zero, ctx.Err())
	}
}

// runGuarded is run, with a panic captured so it can be re-raised on the consumer's goroutine.
func (l *Loader[S, B]) runGuarded(ctx context.Context, epoch int, sp span) (r result[B]) {
	defer func() {
		if v := recover(); v != nil {
			r = result[B]{panics: true, panicV: v}
		}
	}()
	return l.run(ctx, epoch, sp)
}

// run reads, transforms and collates one batch.
func (l *Loader[S, B]) run(ctx context.Context, epoch int, sp span) result[B] {
	rd, randomised := l.ds.(RandDataset[S])
	samples := make([]S, 0, len(sp.idx))
	for j, i := range sp.idx {
		if err := ctx.Err(); err != nil {
			return result[B]{err: err}
		}
		var s S
		keep, err := true, error(nil)
		if randomised {
			s, keep, err = rd.GetRand(i, SampleRand(l.opts.Seed, epoch, sp.pos+j))
		} else {
			s, err = l.ds.Get(i)
		}
		if err != nil {
			return result[B]{err: &SampleError{Index: i, Err: err}}
		}
		if keep {
			samples = append(samples, s)
		}
	}
	if len(samples) == 0 {
		return result[B]{skip: true}
	}
	b, err := l.collate(samples)
	if err != nil {
		return result[B]{err: fmt.Errorf("collate batch of samples %v: %w", sp.idx, err)}
	}
	return result[B]{b: b}
}
