// Package seg computes semantic-segmentation metrics exactly as PaddleSeg's
// paddleseg/utils/metrics.py does (develop, v2.9+): intersection,
// prediction and label areas are accumulated over the whole set as int64
// counts (a confusion matrix), and only then turned into ratios: mIoU and
// per-class IoU, pixel accuracy, class precision and recall, Cohen's Kappa,
// and Dice (mDice).
//
// The rules that matter, all from metrics.py:
//   - only label == IgnoreIndex (255 by default) is masked; predictions on
//     ignored pixels never count;
//   - a class absent from both labels and predictions (union 0) has IoU 1
//     and Dice 0, and both count in their means (mean over all classes);
//   - Acc is sum(intersect)/sum(pred_area); class precision and recall are
//     0 when their denominator is 0; Kappa has no epsilon, so it is NaN when
//     every pixel is one class predicted right (1-pe = 0);
//   - means are numpy's (pairwise summation), so they match bit for bit.
//
// Unlike PaddleSeg, a label outside [0, NumClasses) that is not the ignore
// index, or a prediction outside [0, NumClasses) on a scored pixel, is an
// error (*ValueError) rather than silently counted: PaddleSeg counts such
// labels as false positives of the prediction and such predictions nowhere.
package seg

import (
	"fmt"
	"math"

	"paddle/core/metric"
)

// Integer is the element type of prediction and label maps.
type Integer interface {
	~uint8 | ~uint16 | ~int32 | ~int64 | ~int
}

// Confusion accumulates a confusion matrix over a data set: M[l*NumClasses+p]
// counts the scored pixels with label l and prediction p. The zero value is
// not usable; call NewConfusion.
type Confusion struct {
	NumClasses  int
	IgnoreIndex int
	M           []int64 // NumClasses × NumClasses, label-major
	// Ignored counts pixels whose label is IgnoreIndex. PaddleSeg adds them
	// to label_area[IgnoreIndex] when IgnoreIndex < NumClasses.
	Ignored int64
	Images  int // maps added
}

// MaxClasses bounds NumClasses (the matrix has NumClasses² counts).
const MaxClasses = 4096

// NewConfusion returns an empty confusion matrix for numClasses classes
// (1 to MaxClasses) with the given ignore index (PaddleSeg's default is 255).
func NewConfusion(numClasses, ignoreIndex int) (*Confusion, error) {
	if numClasses < 1 || numClasses > MaxClasses {
		return nil, fmt.Errorf("num_classes must be between 1 and %d, got %d", MaxClasses, numClasses)
	}
	return &Confusion{NumClasses: numClasses, IgnoreIndex: ignoreIndex, M: make([]int64, numClasses*numClasses)}, nil
}

// ValueError reports a label or prediction value outside [0, NumClasses)
// on a pixel that counts.
type ValueError struct {
	What       string // "label" or "prediction"
	Value      int64  // the first bad value
	Index      int    // its position in the flattened map
	Count      int    // how many pixels of the map are bad
	NumClasses int
	Ignore     int
}

func (e *ValueError) Error() string {
	more := ""
	if e.Count > 1 {
		more = fmt.Sprintf(" (and %d more pixels)", e.Count-1)
	}
	if e.What == "label" {
		return fmt.Sprintf("label value %d at pixel %d%s is outside [0, %d) and is not the ignore index %d",
			e.Value, e.Index, more, e.NumClasses, e.Ignore)
	}
	return fmt.Sprintf("prediction value %d at pixel %d%s is outside [0, %d)", e.Value, e.Index, more, e.NumClasses)
}

// Add accumulates one map pair of equal length (flattened, same layout).
// Nothing is added when it returns an error: a length mismatch, or a
// *ValueError for values outside [0, NumClasses).
func Add[T Integer](c *Confusion, pred, label []T) error {
	if len(pred) != len(label) {
		return fmt.Errorf("prediction has %d pixels, label has %d", len(pred), len(label))
	}
	n, ign := int64(c.NumClasses), int64(c.IgnoreIndex)
	var lerr, perr *ValueError
	for i := range label {
		l := int64(label[i])
		if l == ign {
			continue
		}
		if l < 0 || l >= n {
			if lerr == nil {
				lerr = &ValueError{What: "label", Value: l, Index: i, NumClasses: c.NumClasses, Ignore: c.IgnoreIndex}
			}
			lerr.Count++
			continue
		}
		if p := int64(pred[i]); p < 0 || p >= n {
			if perr == nil {
				perr = &ValueError{What: "prediction", Value: p, Index: i, NumClasses: c.NumClasses, Ignore: c.IgnoreIndex}
			}
			perr.Count++
		}
	}
	if lerr != nil {
		return lerr
	}
	if perr != nil {
		return perr
	}
	for i := range label {
		l := int64(label[i])
		if l == ign {
			c.Ignored++
			continue
		}
		c.M[l*n+int64(pred[i])]++
	}
	c.Images++
	return nil
}

// Merge adds another matrix of the same class count and ignore index.
func (c *Confusion) Merge(o *Confusion) error {
	if o.NumClasses != c.NumClasses || o.IgnoreIndex != c.IgnoreIndex {
		return fmt.Errorf("cannot merge a %d-class (ignore %d) confusion matrix into a %d-class (ignore %d) one",
			o.NumClasses, o.IgnoreIndex, c.NumClasses, c.IgnoreIndex)
	}
	for i, v := range o.M {
		c.M[i] += v
	}
	c.Ignored += o.Ignored
	c.Images += o.Images
	return nil
}

// Areas returns PaddleSeg's calculate_area summed over the set: per class,
// the intersection, prediction and label pixel counts.
func (c *Confusion) Areas() (intersect, pred, label []int64) {
	n := c.NumClasses
	intersect, pred, label = make([]int64, n), make([]int64, n), make([]int64, n)
	for l := range n {
		for p := range n {
			v := c.M[l*n+p]
			label[l] += v
			pred[p] += v
		}
		intersect[l] = c.M[l*n+l]
	}
	if c.IgnoreIndex >= 0 && c.IgnoreIndex < n {
		// metrics.py: label_i = label == i is not masked
		label[c.IgnoreIndex] += c.Ignored
	}
	return intersect, pred, label
}

// Result is every metric PaddleSeg's val.py reports, plus the areas.
type Result struct {
	Intersect, PredArea, LabelArea []int64

	MIoU     float64   // mean of ClassIoU over all classes
	ClassIoU []float64 // intersect/union; 1 when union is 0
	// Acc is sum(intersect)/sum(pred_area): pixel accuracy over the scored pixels.
	Acc            float64
	ClassPrecision []float64 // intersect/pred_area; 0 when pred_area is 0
	ClassRecall    []float64 // intersect/label_area; 0 when label_area is 0
	Kappa          float64   // Cohen's kappa, float64, no epsilon
	MDice          float64   // mean of ClassDice over all classes
	ClassDice      []float64 // 2·intersect/(pred_area+label_area); 0 when that is 0
}

// Result computes the metrics of everything added so far.
func (c *Confusion) Result() Result {
	return FromAreas(c.Areas())
}

// FromAreas computes the metrics from accumulated areas, as mean_iou,
// class_measurement, kappa and dice do. The three slices have one entry per class.
func FromAreas(intersect, pred, label []int64) Result {
	n := len(intersect)
	r := Result{
		Intersect: intersect, PredArea: pred, LabelArea: label,
		ClassIoU: make([]float64, n), ClassPrecision: make([]float64, n),
		ClassRecall: make([]float64, n), ClassDice: make([]float64, n),
	}
	var sumI, sumP int64
	for i := range n {
		sumI += intersect[i]
		sumP += pred[i]
		if u := pred[i] + label[i] - intersect[i]; u == 0 {
			r.ClassIoU[i] = 1
		} else {
			r.ClassIoU[i] = float64(intersect[i]) / float64(u)
		}
		if u := pred[i] + label[i]; u != 0 {
			r.ClassDice[i] = float64(2*intersect[i]) / float64(u)
		}
		if pred[i] != 0 {
			r.ClassPrecision[i] = float64(intersect[i]) / float64(pred[i])
		}
		if label[i] != 0 {
			r.ClassRecall[i] = float64(intersect[i]) / float64(label[i])
		}
	}
	r.MIoU = mean(r.ClassIoU)
	r.MDice = mean(r.ClassDice)
	r.Acc = divide(float64(sumI), float64(sumP))
	r.Kappa = kappa(intersect, pred, label)
	return r
}

// kappa is metrics.kappa: every area cast to float64 first, sums pairwise.
func kappa(intersect, pred, label []int64) float64 {
	n := len(intersect)
	fi, fl, pl := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range n {
		fi[i], fl[i] = float64(intersect[i]), float64(label[i])
		// float64(x*y) is rounded once, like numpy's product of two float64s;
		// the explicit conversion keeps the compiler from fusing it into the sum.
		pl[i] = float64(float64(pred[i]) * fl[i])
	}
	total := metric.PairwiseSum(fl)
	po := divide(metric.PairwiseSum(fi), total)
	pe := divide(metric.PairwiseSum(pl), float64(total*total))
	return divide(po-pe, 1-pe)
}

// divide is IEEE division as numpy does it: x/0 is ±Inf or NaN, never a panic.
func divide(x, y float64) float64 {
	if y == 0 {
		switch {
		case x == 0 || math.IsNaN(x):
			return math.NaN()
		case (x > 0) == !math.Signbit(y):
			return math.Inf(1)
		default:
			return math.Inf(-1)
		}
	}
	return x / y
}

// mean is np.mean of a float64 list (pairwise sum, then divide by n).
func mean(a []float64) float64 {
	return divide(metric.PairwiseSum(a), float64(len(a)))
}

// Report returns the scalars as a metric.Report with main value "miou":
// miou, acc, kappa, mdice.
func (r Result) Report(images int) metric.Report {
	return metric.Report{Main: "miou", Count: images, Values: map[string]float64{
		"miou": r.MIoU, "acc": r.Acc, "kappa": r.Kappa, "mdice": r.MDice,
	}}
}
