package nn

import (
	"fmt"

	"paddle/core/ag"
	"paddle/core/tensor"
)

// CrossEntropyOptions configure CrossEntropy; the zero value is PyTorch's
// default (no smoothing, ignore_index -100, no weights, mean).
type CrossEntropyOptions struct {
	LabelSmoothing float64   `yaml:"label_smoothing"`
	IgnoreIndex    *int      `yaml:"ignore_index"` // nil means -100
	Weight         []float64 `yaml:"weight"`       // per-class weights (C), nil = 1
	Reduction      Reduction `yaml:"reduction"`
}

// DefaultIgnoreIndex is the label CrossEntropy skips unless told otherwise.
const DefaultIgnoreIndex = -100

// DefaultCrossEntropyOptions returns PyTorch's defaults: ignore_index -100, mean.
func DefaultCrossEntropyOptions() CrossEntropyOptions {
	return CrossEntropyOptions{Reduction: ReduceMean}
}

// Ignore returns a pointer to v, for CrossEntropyOptions.IgnoreIndex.
func Ignore(v int) *int { return &v }

// CrossEntropy is softmax cross-entropy of logits (N, C) or (N, C, d...)
// against int64 class labels (N) or (N, d...), with torch.nn.CrossEntropyLoss
// semantics: with class weights w and smoothing ε over C classes,
//
//	l_i = (1-ε)·w[y_i]·(-logp[i, y_i]) + (ε/C)·Σ_c w[c]·(-logp[i, c])
//
// labels equal to IgnoreIndex contribute 0, and "mean" divides Σ l_i by
// Σ w[y_i] over the labels not ignored (the weighted mean). It returns an
// error for a label outside [0, C) that is not ignored.
func CrossEntropy(logits *ag.Var, labels *tensor.Tensor, o CrossEntropyOptions) (*ag.Var, error) {
	s := logits.Shape()
	if len(s) < 2 {
		return nil, fmt.Errorf("cross entropy: logits %v, want (N, C) or (N, C, d...)", s)
	}
	c := s[1]
	want := append(tensor.Shape{s[0]}, s[2:]...)
	if !labels.Shape().Equal(want) || labels.DType().IsFloat() {
		return nil, fmt.Errorf("cross entropy: labels %v %v, want integer %v for logits %v", labels.DType(), labels.Shape(), want, s)
	}
	if o.Weight != nil && len(o.Weight) != c {
		return nil, fmt.Errorf("cross entropy: %d class weights for %d classes", len(o.Weight), c)
	}
	ignore := DefaultIgnoreIndex
	if o.IgnoreIndex != nil {
		ignore = *o.IgnoreIndex
	}
	w := func(k int) float64 {
		if o.Weight == nil {
			return 1
		}
		return o.Weight[k]
	}
	// coef (N, C, d...) holds the weight of each -logp term; it folds the
	// label's weight, the smoothing and the ignored positions into one constant.
	n, inner := s[0], want.NumElements()/s[0]
	lab := labels.Float64s()
	coef := make([]float64, s.NumElements())
	denom := 0.0
	eps := o.LabelSmoothing
	for i := range n {
		for j := range inner {
			y := int(lab[i*inner+j])
			if y == ignore {
				continue
			}
			if y < 0 || y >= c {
				return nil, fmt.Errorf("cross entropy: label %d out of range [0, %d)", y, c)
			}
			denom += w(y)
			base := i*c*inner + j
			coef[base+y*inner] += (1 - eps) * w(y)
			if eps != 0 {
				for k := range c {
					coef[base+k*inner] += eps / float64(c) * w(k)
				}
			}
		}
	}
	logp := ag.LogSoftmax(logits, 1)
	k := ag.Const(tensor.FromSlice(coef, s...).Cast(logits.DType()))
	terms := ag.Neg(ag.Mul(k, logp))
	switch o.Reduction {
	case ReduceNone:
		return ag.Sum(terms, []int{1}, false), nil
	case ReduceSum:
		return ag.Sum(terms, nil, false), nil
	}
	return ag.Div(ag.Sum(terms, nil, false), ag.Scalar(logits, denom)), nil
}

// SoftCrossEntropy is -Σ_c target·log_softmax(logits) over axis 1 with soft
// (probability) targets of logits' shape, averaged over the other positions
// (Paddle's soft_label=True).
func SoftCrossEntropy(logits, target *ag.Var) *ag.Var {
	return ag.Mean(ag.Neg(ag.Sum(ag.Mul(target, ag.LogSoftmax(logits, 1)), []int{1}, false)), nil, false)
}
