package nn

import (
	"fmt"
	"math/rand/v2"

	"paddle/core/ag"
)

// LinearOptions configure a Linear layer.
type LinearOptions struct {
	In     int  `yaml:"in_features"`
	Out    int  `yaml:"out_features"`
	NoBias bool `yaml:"no_bias"` // leave out the bias (the zero value keeps it, as PyTorch)
}

// Linear is y = x·Wᵀ + b with weight (Out, In) and bias (Out), PyTorch's layout.
type Linear struct {
	Weight *ag.Var // (Out, In)
	Bias   *ag.Var // (Out) or nil
}

var _ Layer = (*Linear)(nil)

// NewLinear builds a Linear layer with PyTorch's default initialisation.
func NewLinear(o LinearOptions, r *rand.Rand) (*Linear, error) {
	if o.In <= 0 || o.Out <= 0 {
		return nil, fmt.Errorf("linear: in_features %d and out_features %d must be positive", o.In, o.Out)
	}
	l := &Linear{Weight: newParam(o.Out, o.In)}
	if !o.NoBias {
		l.Bias = newParam(o.Out)
		DefaultInit(r, l.Weight.T, l.Bias.T, 0)
	} else {
		DefaultInit(r, l.Weight.T, nil, 0)
	}
	return l, nil
}

// Params returns weight and bias.
func (l *Linear) Params() []Param { return Collect("weight", l.Weight, "bias", l.Bias) }

// Forward maps x (..., In) to (..., Out).
func (l *Linear) Forward(x *ag.Var, _ bool) *ag.Var {
	y := ag.MatMul(x, l.Weight, false, true)
	if l.Bias != nil {
		y = ag.Add(y, l.Bias)
	}
	return y
}

// EmbeddingOptions configure Embedding.
type EmbeddingOptions struct {
	NumEmbeddings int  `yaml:"num_embeddings"`
	EmbeddingDim  int  `yaml:"embedding_dim"`
	PaddingIdx    *int `yaml:"padding_idx"` // a row kept at zero that gets no gradient; nil = none
}

// Embedding looks up rows of a (NumEmbeddings, EmbeddingDim) table.
type Embedding struct {
	Weight     *ag.Var // (V, D)
	paddingIdx *int
}

var _ Layer = (*Embedding)(nil)

// NewEmbedding builds a table initialised from N(0, 1) (PyTorch's default)
// with the padding row zeroed.
func NewEmbedding(o EmbeddingOptions, r *rand.Rand) (*Embedding, error) {
	v := o.NumEmbeddings
	if v <= 0 || o.EmbeddingDim <= 0 {
		return nil, fmt.Errorf("embedding: num_embeddings %d and embedding_dim %d must be positive", v, o.EmbeddingDim)
	}
	e := &Embedding{Weight: newParam(v, o.EmbeddingDim)}
	Normal(r, e.Weight.T, 0, 1)
	if o.PaddingIdx != nil {
		p := *o.PaddingIdx
		if p < -v || p >= v {
			return nil, fmt.Errorf("embedding: padding_idx %d out of range for %d rows", p, v)
		}
		if p < 0 {
			p += v
		}
		e.paddingIdx = &p
		for j := range o.EmbeddingDim {
			e.Weight.T.SetAt(0, p, j)
		}
	}
	return e, nil
}

// Params returns the table as "weight".
func (e *Embedding) Params() []Param { return Collect("weight", e.Weight) }

// Forward maps int64 ids (I...) to (I..., D).
func (e *Embedding) Forward(ids *ag.Var, _ bool) *ag.Var {
	return ag.Embedding(ids, e.Weight, e.paddingIdx)
}
