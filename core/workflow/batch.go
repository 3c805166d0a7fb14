package workflow

import (
	"context"
	"sync"
)

// Result is the outcome of one input of a batch command.
type Result[R any] struct {
	Input Input
	Value R
	Err   error
}

// RunOrdered processes inputs with up to workers goroutines and calls emit
// for each result in input order, as soon as it and all before it are done
// (streaming). An input's error is its own: the rest go on. It returns the
// number of failed inputs.
func RunOrdered[R any](ctx context.Context, inputs []Input, workers int, work func(ctx context.Context, in Input) (R, error), emit func(Result[R]) error) (failed int, err error) {
	workers = max(workers, 1)
	results := make([]chan Result[R], len(inputs))
	for i := range results {
		results[i] = make(chan Result[R], 1)
	}
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				in := inputs[i]
				r := Result[R]{Input: in, Err: in.Err}
				if r.Err == nil {
					if ctx.Err() != nil {
						r.Err = ctx.Err()
					} else {
						r.Value, r.Err = work(ctx, in)
					}
				}
				results[i] <- r
			}
		}()
	}
	go func() {
		defer close(jobs)
		for i := range inputs {
			select {
			case jobs <- i:
			case <-ctx.Done():
				for j := i; j < len(inputs); j++ {
					results[j] <- Result[R]{Input: inputs[j], Err: ctx.Err()}
				}
				return
			}
		}
	}()
	defer wg.Wait()
	for i := range inputs {
		r := <-results[i]
		if r.Err != nil {
			failed++
		}
		if e := emit(r); e != nil && err == nil {
			err = e
		}
	}
	return failed, err
}
