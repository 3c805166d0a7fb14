package seg

import (
	"fmt"
	"slices"

	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/nn"
	"paddle/core/tensor"
)

// A lossFunc scores logits (N, C, H, W) against int64 labels (N, H, W)
// holding classes or the ignore index. across is the ranks of a
// data-parallel run (nil alone): cross-entropy and Dice then compute the
// global batch's loss (nn.SumAcross), OHEM its rank's share (as
// PaddleSeg's cards do: its threshold would need every rank's pixels).
type lossFunc func(logits *ag.Var, labels *tensor.Tensor, across nn.Reducer) (*ag.Var, error)

// buildLosses turns `loss: {types, coef}` into one weighted loss per model
// output: with one type it applies to every output, otherwise types and
// outputs pair up; coef must have one entry per output (PaddleSeg's rule).
func buildLosses(lo LossOpts, ignore int) ([]lossFunc, []float64, error) {
	if len(lo.Types) == 0 {
		return nil, nil, fmt.Errorf("loss.types: want at least one loss")
	}
	coef := lo.Coef
	if coef == nil {
		coef = slices.Repeat([]float64{1}, len(lo.Types))
	}
	if len(lo.Types) != 1 && len(lo.Types) != len(coef) {
		return nil, nil, fmt.Errorf("loss: %d types but %d coef: want one type, or one per coef", len(lo.Types), len(coef))
	}
	var fs []lossFunc
	for _, c := range lo.Types {
		f, err := buildLoss(c, ignore)
		if err != nil {
			return nil, nil, err
		}
		fs = append(fs, f)
	}
	for len(fs) < len(coef) {
		fs = append(fs, fs[0])
	}
	return fs, coef, nil
}

func ignoreOr(p *int, def int) int {
	if p != nil {
		return *p
	}
	return def
}

// losses are the losses `loss.types` (and MixedLoss's `losses`) can
// choose; their env is the dataset's ignore index. Registered in init, since
// MixedLoss builds its parts through the registry.
var losses = config.NewRegistry[int, lossFunc]("loss")

func init() {
	config.Add(losses, "CrossEntropyLoss", CrossEntropyOpts{}, func(_ config.Component, o CrossEntropyOpts, ignore int) (lossFunc, error) {
		ce := nn.CrossEntropyOptions{Weight: o.Weight, IgnoreIndex: nn.Ignore(ignoreOr(o.IgnoreIndex, ignore)), Reduction: nn.ReduceMean}
		return func(l *ag.Var, y *tensor.Tensor, across nn.Reducer) (*ag.Var, error) {
			o := ce
			o.Across = across
			return crossEntropy(l, y, o)
		}, nil
	})
	config.Add(losses, "OhemCrossEntropyLoss", OhemOpts{Thresh: 0.7, MinKept: 10000}, func(_ config.Component, o OhemOpts, ignore int) (lossFunc, error) {
		ig := ignoreOr(o.IgnoreIndex, ignore)
		return func(l *ag.Var, y *tensor.Tensor, _ nn.Reducer) (*ag.Var, error) {
			return OhemCrossEntropy(l, y, o.Thresh, o.MinKept, ig)
		}, nil
	})
	config.Add(losses, "DiceLoss", DiceOpts{}, func(_ config.Component, o DiceOpts, ignore int) (lossFunc, error) {
		smooth := 1.0
		if o.Smooth != nil {
			smooth = *o.Smooth
		}
		ig := ignoreOr(o.IgnoreIndex, ignore)
		return func(l *ag.Var, y *tensor.Tensor, across nn.Reducer) (*ag.Var, error) {
			return diceLoss(l, y, o.Weight, smooth, ig, across)
		}, nil
	})
	config.Add(losses, "MixedLoss", MixedLossOpts{}, func(c config.Component, o MixedLossOpts, ignore int) (lossFunc, error) {
		if len(o.Losses) == 0 || len(o.Losses) != len(o.Coef) {
			return nil, c.Errorf("MixedLoss: %d losses and %d coef: want the same number, at least one", len(o.Losses), len(o.Coef))
		}
		var parts []lossFunc
		for _, s := range o.Losses {
			f, err := buildLoss(s, ignore)
			if err != nil {
				return nil, err
			}
			parts = append(parts, f)
		}
		return func(l *ag.Var, y *tensor.Tensor, across nn.Reducer) (*ag.Var, error) {
			var sum *ag.Var
			for i, f := range parts {
				v, err := f(l, y, across)
				if err != nil {
					return nil, err
				}
				v = ag.MulScalar(v, o.Coef[i])
				if sum == nil {
					sum = v
				} else {
					sum = ag.Add(sum, v)
				}
			}
			return sum, nil
		}, nil
	})
}

// buildLoss makes one loss component.
func buildLoss(c config.Component, ignore int) (lossFunc, error) { return losses.Build(c, ignore) }

// crossEntropy is nn.CrossEntropy, but a batch whose labels are all ignored
// gives a zero loss (still connected to the logits) instead of 0/0 (over
// several ranks nn.CrossEntropy sees to it, as the other ranks' labels count).
func crossEntropy(logits *ag.Var, labels *tensor.Tensor, o nn.CrossEntropyOptions) (*ag.Var, error) {
	if o.Across != nil && o.Across.Size() > 1 {
		return nn.CrossEntropy(logits, labels, o) // every rank must take part in its all-reduce
	}
	ig := *o.IgnoreIndex
	scored := false
	for _, v := range labels.Contiguous().I64() {
		if int(v) != ig {
			scored = true
			break
		}
	}
	if !scored {
		return ag.MulScalar(ag.Sum(logits, nil, false), 0), nil
	}
	return nn.CrossEntropy(logits, labels, o)
}

// CrossEntropy is PaddleSeg's CrossEntropyLoss: softmax cross-entropy over
// axis 1, pixels labelled ignore skipped, the weighted mean Σ w[y]·l /
// Σ w[y] with class weights w (nil: 1).
func CrossEntropy(logits *ag.Var, labels *tensor.Tensor, weight []float64, ignore int) (*ag.Var, error) {
	return crossEntropy(logits, labels, nn.CrossEntropyOptions{Weight: weight, IgnoreIndex: nn.Ignore(ignore), Reduction: nn.ReduceMean})
}

// OhemCrossEntropy is PaddleSeg's OhemCrossEntropyLoss (online hard
// example mining): when more than minKept pixels are valid, only pixels
// whose softmax probability of the true class is below a threshold are
// scored, the threshold being max(thresh, the minKept-th smallest such
// probability); the loss is the mean cross-entropy over the kept pixels.
func OhemCrossEntropy(logits *ag.Var, labels *tensor.Tensor, thresh float64, minKept, ignore int) (*ag.Var, error) {
	s := logits.Shape()
	if len(s) != 4 {
		return nil, fmt.Errorf("ohem cross entropy: logits %v, want (N, C, H, W)", s)
	}
	n, c, hw := s[0], s[1], s[2]*s[3]
	lab := labels.Contiguous().I64()
	if len(lab) != n*hw {
		return nil, fmt.Errorf("ohem cross entropy: labels %v for logits %v", labels.Shape(), s)
	}
	valid := 0
	for _, v := range lab {
		if int(v) != ignore {
			valid++
		}
	}
	kept := labels
	if minKept < valid && valid > 0 {
		var probs []float32
		ag.NoGrad(func() { probs = ag.Softmax(logits, 1).T.Cast(tensor.Float32).Contiguous().F32() })
		p := make([]float64, len(lab)) // true-class probability; 2 (never kept, sorts last) where ignored
		for i, v := range lab {
			if int(v) == ignore {
				p[i] = 2
				continue
			}
			if v < 0 || int(v) >= c {
				return nil, fmt.Errorf("ohem cross entropy: label %d out of range [0, %d)", v, c)
			}
			b, j := i/hw, i%hw
			p[i] = float64(probs[(b*c+int(v))*hw+j])
		}
		if minKept <= 0 { // PaddleSeg filters only inside its min_kept > 0 branch
			return crossEntropy(logits, labels, nn.CrossEntropyOptions{IgnoreIndex: nn.Ignore(ignore), Reduction: nn.ReduceMean})
		}
		th := thresh
		sorted := slices.Clone(p)
		slices.Sort(sorted)
		if k := sorted[min(len(sorted), minKept)-1]; k > thresh {
			th = k
		}
		out := make([]int64, len(lab))
		for i, v := range lab {
			out[i] = v
			if int(v) != ignore && !(p[i] < th) {
				out[i] = int64(ignore)
			}
		}
		kept = tensor.FromSlice(out, labels.Shape()...)
	}
	return crossEntropy(logits, kept, nn.CrossEntropyOptions{IgnoreIndex: nn.Ignore(ignore), Reduction: nn.ReduceMean})
}

// DiceLoss is PaddleSeg's DiceLoss: with p = softmax(logits) and one-hot
// labels, both zeroed on ignored pixels, per image and class
// d = 1 - (2·Σ p·y + smooth) / (Σ (p + y) + smooth + 1e-8); the loss is
// Σ_c w_c·mean_n d / C (w nil: 1).
func DiceLoss(logits *ag.Var, labels *tensor.Tensor, weight []float64, smooth float64, ignore int) (*ag.Var, error) {
	return diceLoss(logits, labels, weight, smooth, ignore, nil)
}

// diceLoss is DiceLoss with the mean over images taken over the ranks of
// across (nil: this batch's). Each image's term is its own, so per-rank
// means would average to the same gradient; the sum makes the value, and
// so the logged loss, the global batch's too.
func diceLoss(logits *ag.Var, labels *tensor.Tensor, weight []float64, smooth float64, ignore int, across nn.Reducer) (*ag.Var, error) {
	s := logits.Shape()
	if len(s) != 4 {
		return nil, fmt.Errorf("dice loss: logits %v, want (N, C, H, W)", s)
	}
	n, c, hw := s[0], s[1], s[2]*s[3]
	if weight != nil && len(weight) != c {
		return nil, fmt.Errorf("dice loss: %d class weights for %d classes", len(weight), c)
	}
	lab := labels.Contiguous().I64()
	if len(lab) != n*hw {
		return nil, fmt.Errorf("dice loss: labels %v for logits %v", labels.Shape(), s)
	}
	onehot := make([]float64, n*c*hw)
	mask := make([]float64, n*hw)
	for i, v := range lab {
		if int(v) == ignore {
			continue
		}
		if v < 0 || int(v) >= c {
			return nil, fmt.Errorf("dice loss: label %d out of range [0, %d)", v, c)
		}
		b, j := i/hw, i%hw
		mask[i] = 1
		onehot[(b*c+int(v))*hw+j] = 1
	}
	dt := logits.DType()
	y := ag.Const(tensor.FromSlice(onehot, n, c, hw).Cast(dt))
	m := ag.Const(tensor.FromSlice(mask, n, 1, hw).Cast(dt))
	p := ag.Mul(ag.Reshape(ag.Softmax(logits, 1), n, c, hw), m)
	inter := ag.Sum(ag.Mul(p, y), []int{2}, false)                           // (N, C)
	card := ag.AddScalar(ag.Sum(ag.Add(p, y), []int{2}, false), smooth+1e-8) // (N, C)
	d := ag.Sub(ag.Scalar(inter, 1), ag.Div(ag.AddScalar(ag.MulScalar(inter, 2), smooth), card))
	if across != nil && across.Size() > 1 {
		g := nn.SumAcross(across, ag.Sum(d, []int{0}, false), ag.Scalar(d, float64(n))) // (C), the images
		d = ag.Div(g[0], g[1])
	} else {
		d = ag.Mean(d, []int{0}, false) // (C)
	}
	if weight != nil {
		d = ag.Mul(d, ag.Const(tensor.FromSlice(slices.Clone(weight), c).Cast(dt)))
	}
	return ag.MulScalar(ag.Sum(d, nil, false), 1/float64(c)), nil
}
