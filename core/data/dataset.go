package data

import (
	"context"
	"fmt"
	"iter"
	"math/rand/v2"
)

// A Dataset is a random-access collection of samples of type S.
type Dataset[S any] interface {
	Len() int
	Get(i int) (S, error)
}

// A RandDataset is a Dataset whose samples are randomised (augmented). The
// Loader calls GetRand instead of Get, with an RNG derived from (seed,
// epoch, position) by SampleRand, so results do not depend on worker count
// or scheduling. keep=false drops the sample (the transform rejected it).
type RandDataset[S any] interface {
	Dataset[S]
	GetRand(i int, r *rand.Rand) (s S, keep bool, err error)
}

// An IterableDataset streams samples; it has no length or random access.
// Samples is called once per epoch; the sequence ends early if ctx is done.
type IterableDataset[S any] interface {
	Samples(ctx context.Context, epoch int) iter.Seq2[S, error]
}

// SliceDataset is a Dataset over samples held in memory.
type SliceDataset[S any] []S

// Len returns the number of samples.
func (d SliceDataset[S]) Len() int { return len(d) }

// Get returns sample i.
func (d SliceDataset[S]) Get(i int) (S, error) {
	if i < 0 || i >= len(d) {
		var z S
		return z, fmt.Errorf("index %d out of range [0, %d)", i, len(d))
	}
	return d[i], nil
}

// FuncDataset is a Dataset of n samples produced by a function.
type FuncDataset[S any] struct {
	N int
	F func(i int) (S, error)
}

// Len returns N.
func (d FuncDataset[S]) Len() int { return d.N }

// Get returns F(i).
func (d FuncDataset[S]) Get(i int) (S, error) { return d.F(i) }

// WithTransform returns ds with t applied to every sample. The result is a
// RandDataset; its plain Get applies t with the RNG of epoch 0, position i,
// seed 0 and fails if t drops the sample.
func WithTransform[S any](ds Dataset[S], t Transform[S]) RandDataset[S] {
	return &transformed[S]{ds: ds, t: t}
}

type transformed[S any] struct {
	ds Dataset[S]
	t  Transform[S]
}

func (d *transformed[S]) Len() int { return d.ds.Len() }

func (d *transformed[S]) Get(i int) (S, error) {
	s, keep, err := d.GetRand(i, SampleRand(0, 0, i))
	if err == nil && !keep {
		err = fmt.Errorf("sample %d dropped by its transforms", i)
	}
	return s, err
}

func (d *transformed[S]) GetRand(i int, r *rand.Rand) (S, bool, error) {
	s, err := d.ds.Get(i)
	if err != nil {
		return s, false, err
	}
	keep, err := d.t.Apply(&s, r)
	return s, keep, err
}
