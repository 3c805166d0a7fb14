package data

import (
	"context"
	"iter"
)

// IterableLoader batches an IterableDataset in stream order. It has no
// sampler (order and shuffling are the stream's business) and no workers:
// a stream that needs parallelism produces samples concurrently itself.
type IterableLoader[S, B any] struct {
	ds        IterableDataset[S]
	batchSize int
	dropLast  bool
	collate   func([]S) (B, error)
}

// NewIterableLoader returns a loader over ds; only BatchSize and DropLast of opts apply.
func NewIterableLoader[S, B any](ds IterableDataset[S], opts LoaderOptions, collate func([]S) (B, error)) *IterableLoader[S, B] {
	return &IterableLoader[S, B]{ds: ds, batchSize: max(opts.BatchSize, 1), dropLast: opts.DropLast, collate: collate}
}

// Epoch returns the batches of one epoch; iteration stops at the first error.
func (l *IterableLoader[S, B]) Epoch(ctx context.Context, epoch int) iter.Seq2[B, error] {
	return func(yield func(B, error) bool) {
		var zero B
		buf := make([]S, 0, l.batchSize)
		emit := func() bool {
			b, err := l.collate(buf)
			buf = make([]S, 0, l.batchSize) // collate may keep the slice
			if err != nil {
				yield(zero, err)
				return false
			}
			return yield(b, nil)
		}
		for s, err := range l.ds.Samples(ctx, epoch) {
			if err != nil {
				yield(zero, err)
				return
			}
			buf = append(buf, s)
			if len(buf) == l.batchSize && !emit() {
				return
			}
		}
		if err := ctx.Err(); err != nil {
			yield(zero, err)
			return
		}
		if len(buf) > 0 && !l.dropLast {
			emit()
		}
	}
}
