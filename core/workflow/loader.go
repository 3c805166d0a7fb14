package workflow

import (
	"fmt"

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
