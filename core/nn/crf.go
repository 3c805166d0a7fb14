package nn

import (
	"fmt"
	"math/rand/v2"

	"paddle/core/ag"
	"paddle/core/op"
	"paddle/core/tensor"
)

// crf_nll is a core/op primitive (crf.go there, with the chain's exact
// recursions); CRF is the layer over it.
var crfDef = op.Lookup("crf_nll")

// CRFChain is a CRF's parameters as plain numbers, for decoding (op.CRFChain).
type CRFChain = op.CRFChain

// CRF is a linear-chain CRF output layer over NumTags tags, with
// transitions (K, K) (row: previous tag, column: next tag) and start and
// end scores (K), initialised from U(−0.1, 0.1) as pytorch-crf does.
type CRF struct {
	Transitions, Start, End *ag.Var
	NumTags                 int
}

// NewCRF builds a CRF over numTags tags.
func NewCRF(numTags int, r *rand.Rand) (*CRF, error) {
	if numTags <= 0 {
		return nil, fmt.Errorf("crf: num_tags %d must be positive", numTags)
	}
	c := &CRF{NumTags: numTags, Transitions: newParam(numTags, numTags), Start: newParam(numTags), End: newParam(numTags)}
	for _, p := range []*ag.Var{c.Transitions, c.Start, c.End} {
		Uniform(r, p.T, -0.1, 0.1)
	}
	return c, nil
}

// Params returns transitions, start_transitions and end_transitions (pytorch-crf's names).
func (c *CRF) Params() []Param {
	return Collect("transitions", c.Transitions, "start_transitions", c.Start, "end_transitions", c.End)
}

// NLL returns the negative log-likelihood (N) of tags (N, T) int64 under
// emissions (N, T, K), counting the first lengths[i] steps of sequence i.
// Tags must lie in [0, K) within the lengths (a programmer error otherwise).
func (c *CRF) NLL(emissions *ag.Var, tags *tensor.Tensor, lengths []int) *ag.Var {
	ln := make([]int64, len(lengths))
	for i, v := range lengths {
		ln[i] = int64(v)
	}
	dt := emissions.DType()
	return ag.Apply(crfDef, nil, emissions, ag.Cast(c.Transitions, dt), ag.Cast(c.Start, dt), ag.Cast(c.End, dt),
		ag.Const(tags), ag.Const(tensor.FromSlice(ln, len(ln))))[0]
}

// Chain returns the current parameters as a CRFChain (for Viterbi decoding).
func (c *CRF) Chain() CRFChain {
	return CRFChain{Trans: c.Transitions.T.Float64s(), Start: c.Start.T.Float64s(), End: c.End.T.Float64s(), K: c.NumTags}
}

// Decode returns the Viterbi path of each sequence of emissions (N, T, K),
// the first lengths[i] steps of sequence i.
func (c *CRF) Decode(emissions *tensor.Tensor, lengths []int) [][]int {
	return c.Chain().DecodeBatch(emissions, lengths)
}
