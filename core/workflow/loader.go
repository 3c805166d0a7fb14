package workflow

import (
	"context"
	"fmt"
	"iter"

	"paddle/core/data"
)

// TrainOn gives t its training batches from l, with the steps per epoch
// and the batch size (at least 1); in a distributed run each rank reads its
// part of every epoch (data.DistributedBatch), batchSize samples a batch. A training set too small for one batch
// is an error naming the config file and its batch-size key (batch_size,
// batch_size_per_card...).
func TrainOn[S, B any](t *Task[B], l *data.Loader[S, B], batchSize int, file, batchKey string) error {
	t.TrainBatches = l.EpochFrom
	t.StepsPerEpoch = l.Len()
	t.BatchSize = max(batchSize, 1)
	t.shard = func(rank, ranks int) {
		s := l.Shard(rank, ranks)
		t.TrainBatches, t.StepsPerEpoch = s.EpochFrom, s.Len()
	}
	if t.StepsPerEpoch == 0 {
		return fmt.Errorf("%s: the training set gives no batch (%s %d)", file, batchKey, t.BatchSize)
	}
	return nil
}

// TrainGroups gives t training batches that the kit forms itself as groups
// of sample indices (by length: bucketed sentences or utterances) rather
// than through a data.Loader. groups(epoch, size) returns an epoch's
// batches, at most size indices each, in training order, deterministically
// for the epoch, and as many for every epoch; batch builds the batch of one
// group (epoch: for augmentations keyed by sample and epoch). batchSize is
// per rank. In a distributed run every rank forms the epoch's groups of
// batchSize × ranks and takes its part of each (data.SplitGroup), so the
// k-th batches of all ranks together are the k-th batch of one process at
// the global batch (a last group that the ranks do not divide is padded
// with its own first samples, as PaddlePaddle pads), and every rank makes
// the same number of steps. file and batchKey name the batch size in the
// error for a training set without a batch.
func TrainGroups[B any](t *Task[B], batchSize int, groups func(epoch, size int) [][]int,
	batch func(ctx context.Context, epoch int, idx []int) (B, error), file, batchKey string) error {
	t.BatchSize = max(batchSize, 1)
	from := func(size int, part func(g []int) []int) func(ctx context.Context, epoch, start int) iter.Seq2[B, error] {
		return func(ctx context.Context, epoch, start int) iter.Seq2[B, error] {
			return func(yield func(B, error) bool) {
				gs := groups(epoch, size)
				for _, g := range gs[min(start, len(gs)):] {
					if err := ctx.Err(); err != nil {
						var zero B
						yield(zero, err)
						return
					}
					b, err := batch(ctx, epoch, part(g))
					if !yield(b, err) || err != nil {
						return
					}
				}
			}
		}
	}
	whole := func(g []int) []int { return g }
	t.TrainBatches, t.StepsPerEpoch = from(t.BatchSize, whole), len(groups(0, t.BatchSize))
	t.shard = func(rank, ranks int) {
		size := t.BatchSize * ranks
		t.TrainBatches = from(size, func(g []int) []int { return data.SplitGroup(g, rank, ranks) })
		t.StepsPerEpoch = len(groups(0, size))
	}
	if t.StepsPerEpoch == 0 {
		return fmt.Errorf("%s: the training set gives no batch (%s %d)", file, batchKey, t.BatchSize)
	}
	return nil
}
