package data

import (
	"fmt"
	"math/rand/v2"
)

// A Transform changes a sample in place. keep=false drops the sample (the
// explicit form of PaddleOCR's "return None"); r is the sample's own RNG, so
// a transform must draw all its randomness from it.
type Transform[S any] interface {
	Apply(s *S, r *rand.Rand) (keep bool, err error)
}

// TransformFunc adapts a function to a Transform.
type TransformFunc[S any] func(s *S, r *rand.Rand) (bool, error)

// Apply calls f.
func (f TransformFunc[S]) Apply(s *S, r *rand.Rand) (bool, error) { return f(s, r) }

// Compose applies ts in order, stopping at the first that drops the sample
// or fails; an error names the failing transform's position and type.
func Compose[S any](ts ...Transform[S]) Transform[S] { return composed[S](ts) }

type composed[S any] []Transform[S]

func (c composed[S]) Apply(s *S, r *rand.Rand) (bool, error) {
	for i, t := range c {
		keep, err := t.Apply(s, r)
		if err != nil {
			return false, fmt.Errorf("transform %d (%T): %w", i, t, err)
		}
		if !keep {
			return false, nil
		}
	}
	return true, nil
}

// OnImage lifts an image transform to a sample type S that holds an Image:
// get returns a pointer to the sample's image, which t changes in place.
func OnImage[S any](get func(*S) *Image, t Transform[Image]) Transform[S] {
	return TransformFunc[S](func(s *S, r *rand.Rand) (bool, error) { return t.Apply(get(s), r) })
}
