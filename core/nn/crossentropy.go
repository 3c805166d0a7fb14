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
	// Across, in a data-parallel run, makes "mean" the weighted mean over
	// the labels of all ranks (its sum and Σ w[y] summed with SumAcross):
	// what one process computes for the global batch, whatever share of
	// ignored labels each rank holds. nil: this batch's mean.
	Across Reducer `yaml:"-"`
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
	// Per position (N, 1, d...): the gathered class index (0 where ignored),
	// a = (1-ε)·w[y] on the -logp[y] term and b = ε/C on the smoothing term,
	// both 0 where the label is ignored. Only (N·d) numbers are built here;
	// the (N, C, d...) work stays in the ops.
	n, inner := s[0], want.NumElements()/s[0]
	lab := labels.Float64s()
	idx := make([]int64, len(lab))
	av := make([]float64, len(lab))
	bv := make([]float64, len(lab))
	denom := 0.0
	eps := o.LabelSmoothing
	for i := range n * inner {
		y := int(lab[i])
		if y == ignore {
			continue
		}
		if y < 0 || y >= c {
			return nil, fmt.Errorf("cross entropy: label %d out of range [0, %d)", y, c)
		}
		idx[i] = int64(y)
		denom += w(y)
		av[i] = (1 - eps) * w(y)
		bv[i] = eps / float64(c)
	}
	ps := append(tensor.Shape{n, 1}, s[2:]...) // (N, 1, d...)
	cnst := func(v []float64) *ag.Var { return ag.Const(tensor.FromSlice(v, ps...).Cast(logits.DType())) }
	logp := ag.LogSoftmax(logits, 1)
	terms := ag.Mul(cnst(av), ag.GatherElements(logp, ag.Const(tensor.FromSlice(idx, ps...)), 1))
	if eps != 0 {
		// Σ_c w[c]·logp[c], weighted by ε/C per position
		wl := logp
		if o.Weight != nil {
			ws := make(tensor.Shape, len(s))
			for k := range ws {
				ws[k] = 1
			}
			ws[1] = c
			wl = ag.Mul(logp, ag.Const(tensor.FromSlice(append([]float64(nil), o.Weight...), ws...).Cast(logits.DType())))
		}
		terms = ag.Add(terms, ag.Mul(cnst(bv), ag.Sum(wl, []int{1}, true)))
	}
	terms = ag.Neg(terms)
	switch o.Reduction {
	case ReduceNone:
		return ag.Reshape(terms, want...), nil
	case ReduceSum:
		return ag.Sum(terms, nil, false), nil
	}
	sum, norm := ag.Sum(terms, nil, false), ag.Scalar(logits, denom)
	if o.Across != nil && o.Across.Size() > 1 {
		g := SumAcross(o.Across, sum, norm)
		if sum, norm = g[0], g[1]; norm.Item() == 0 { // no label scored on any rank
			return ag.MulScalar(sum, 0), nil
		}
	}
	return ag.Div(sum, norm), nil
}

// SoftCrossEntropy is -Σ_c target·log_softmax(logits) over axis 1 with soft
// (probability) targets of logits' shape, averaged over the other positions
// (Paddle's soft_label=True).
func SoftCrossEntropy(logits, target *ag.Var) *ag.Var {
	return ag.Mean(ag.Neg(ag.Sum(ag.Mul(target, ag.LogSoftmax(logits, 1)), []int{1}, false)), nil, false)
}
