package nn

import (
	"paddle/core/ag"
	"paddle/core/op"
	"paddle/core/tensor"
)

// ctc_loss is a core/op primitive (ctc.go there); CTCLoss wraps it.
var ctcDef = op.Lookup("ctc_loss")

// CTCOptions configure CTCLoss.
type CTCOptions struct {
	Blank        int       `yaml:"blank"`
	Reduction    Reduction `yaml:"reduction"` // mean (default), sum or none
	ZeroInfinity bool      `yaml:"zero_infinity"`
}

// CTCLoss is the connectionist temporal classification loss of log-probabilities
// logProbs (T, N, C) (apply LogSoftmax over C first; Paddle's warpctc takes
// raw logits instead), blank-first by default. targets is (N, S) padded or
// (ΣL) concatenated int64; inputLengths and targetLengths are (N) int64.
// Reduction "mean" divides each loss by its target length (at least 1) and
// averages over the batch, as torch.nn.CTCLoss does; "none" returns (N).
// ZeroInfinity replaces infinite losses (inputs too short for their targets)
// and their gradients by zero.
func CTCLoss(logProbs *ag.Var, targets, inputLengths, targetLengths *tensor.Tensor, o CTCOptions) *ag.Var {
	nll := ag.Apply(ctcDef, op.Attrs{"blank": o.Blank, "zero_infinity": o.ZeroInfinity},
		logProbs, ag.Const(targets), ag.Const(inputLengths), ag.Const(targetLengths))[0]
	switch o.Reduction {
	case ReduceSum:
		return ag.Sum(nll, nil, false)
	case ReduceNone:
		return nll
	}
	tl := targetLengths.Float64s()
	for i, v := range tl {
		tl[i] = max(v, 1)
	}
	div := ag.Const(tensor.FromSlice(tl, len(tl)).Cast(nll.DType()))
	return ag.Mean(ag.Div(nll, div), nil, false)
}
