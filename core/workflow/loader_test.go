package workflow

import (
	"strings"
	"testing"

	"paddle/core/data"
)

// TrainOn: 5 samples in batches of 2 without the last partial batch give
// 2 steps; batches of 8 give none, which is an error naming the file and key.
func TestTrainOn(t *testing.T) {
	ds := data.SliceDataset[int]{1, 2, 3, 4, 5}
	sum := func(s []int) (int, error) {
		n := 0
		for _, x := range s {
			n += x
		}
		return n, nil
	}
	var task Task[int]
	if err := TrainOn(&task, data.NewLoader(ds, data.LoaderOptions{BatchSize: 2, DropLast: true}, sum), 2, "c.yaml", "batch_size"); err != nil {
		t.Fatal(err)
	}
	if task.StepsPerEpoch != 2 || task.BatchSize != 2 || task.TrainBatches == nil {
		t.Errorf("steps %d, batch %d", task.StepsPerEpoch, task.BatchSize)
	}
	err := TrainOn(&task, data.NewLoader(ds, data.LoaderOptions{BatchSize: 8, DropLast: true}, sum), 8, "c.yaml", "batch_size_per_card")
	if err == nil || !strings.Contains(err.Error(), "c.yaml") || !strings.Contains(err.Error(), "batch_size_per_card 8") {
		t.Errorf("err = %v", err)
	}
}
