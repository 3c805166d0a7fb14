package nn

import (
	"fmt"
	"math/rand/v2"

	"paddle/core/ag"
	"paddle/core/tensor"
)

// DropoutOptions configure Dropout.
type DropoutOptions struct {
	P float64 `yaml:"p"` // probability of zeroing an element
}

// Dropout zeroes each element with probability P in training and scales the
// rest by 1/(1-P) (inverted dropout, Paddle's "upscale_in_train"); in
// evaluation it is the identity. Its randomness comes from the *rand.Rand
// given at construction, so runs are reproducible.
type Dropout struct {
	P float64
	r *rand.Rand
}

var _ Layer = (*Dropout)(nil)

// NewDropout builds a Dropout layer drawing from r.
func NewDropout(o DropoutOptions, r *rand.Rand) (*Dropout, error) {
	if o.P < 0 || o.P >= 1 {
		return nil, fmt.Errorf("dropout: p %g must be in [0, 1)", o.P)
	}
	return &Dropout{P: o.P, r: r}, nil
}

// Params returns nothing: dropout has no parameters.
func (d *Dropout) Params() []Param { return nil }

// Forward applies dropout to x in training.
func (d *Dropout) Forward(x *ag.Var, training bool) *ag.Var {
	if !training || d.P == 0 {
		return x
	}
	return dropout(x, d.P, d.r)
}

// dropout is ag.Dropout in training.
func dropout(x *ag.Var, p float64, r *rand.Rand) *ag.Var { return ag.Dropout(x, p, true, r) }

// zerosLike returns a zero tensor with x's dtype and the given shape.
func zerosLike(x *ag.Var, shape ...int) *tensor.Tensor { return tensor.New(x.DType(), shape...) }
