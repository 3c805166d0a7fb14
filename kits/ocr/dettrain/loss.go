package dettrain

import (
	"cmp"

	"paddle/core/ag"
	"paddle/core/tensor"
)

// DBLoss is PaddleOCR's DBLoss over the head's maps (N, 3, H, W) and the
// label maps (N, H, W):
//
//	loss = alpha·L_s(P, G_s, M_s) + beta·L1(T, G_t, M_t) + Dice(B, G_s, M_s)
//
// with L1 = Σ|T−G_t|·M_t / (ΣM_t + eps) and Dice = 1 − 2Σ(B·G·M) / (Σ(B·M) + Σ(G·M) + eps).
// L_s is BalanceLoss: with main_loss_type BCELoss the binary cross-entropy
// of every positive pixel (G·M) plus the hardest negatives ((1−G)·M), at most
// ohem_ratio times as many as positives, over their count (+eps); with
// DiceLoss (PaddleOCR's default) the dice loss of P weighted as BalanceLoss
// weights a scalar loss.
type DBLoss struct {
	Balance      bool
	MainLossType string // BCELoss | DiceLoss
	Alpha, Beta  float64
	OhemRatio    float64
	Eps          float64
}

// newDBLoss applies PaddleOCR's defaults to o.
func newDBLoss(o DBLossOpts) DBLoss {
	l := DBLoss{Balance: o.BalanceLoss == nil || *o.BalanceLoss, MainLossType: cmp.Or(o.MainLossType, "DiceLoss"),
		Alpha: o.Alpha, Beta: o.Beta, OhemRatio: o.OhemRatio, Eps: o.Eps}
	if l.Alpha == 0 {
		l.Alpha = 5
	}
	if l.Beta == 0 {
		l.Beta = 10
	}
	if l.OhemRatio == 0 {
		l.OhemRatio = 3
	}
	if l.Eps == 0 {
		l.Eps = 1e-6
	}
	return l
}

// Labels are a batch's DB targets, each (N, H, W) float32.
type Labels struct {
	ShrinkMap, ShrinkMask, ThreshMap, ThreshMask *tensor.Tensor
}

// Loss returns the total loss and its parts (loss_shrink_maps,
// loss_threshold_maps, loss_binary_maps, already weighted).
func (l DBLoss) Loss(maps *ag.Var, y Labels) (*ag.Var, map[string]float64) {
	sh := maps.Shape()
	n, h, w := sh[0], sh[2], sh[3]
	pick := func(c int) *ag.Var {
		return ag.Reshape(ag.Slice(maps, []int{c}, []int{c + 1}, []int{1}, nil), n, h, w)
	}
	shrink, thresh, binary := pick(0), pick(1), pick(2)
	gs, ms := ag.Const(y.ShrinkMap), ag.Const(y.ShrinkMask)
	var ls *ag.Var
	if l.MainLossType == "BCELoss" {
		ls = l.balancedBCE(shrink, y)
	} else {
		ls = l.balancedScalar(l.dice(shrink, gs, ms), y)
	}
	ls = ag.MulScalar(ls, l.Alpha)
	lt := ag.MulScalar(l.maskL1(thresh, ag.Const(y.ThreshMap), ag.Const(y.ThreshMask)), l.Beta)
	lb := l.dice(binary, gs, ms)
	total := ag.Add(ag.Add(ls, lt), lb)
	return total, map[string]float64{"loss_shrink_maps": ls.Item(), "loss_threshold_maps": lt.Item(), "loss_binary_maps": lb.Item()}
}

func sumAll(x *ag.Var) *ag.Var { return ag.Sum(x, nil, false) }

func (l DBLoss) dice(p, g, m *ag.Var) *ag.Var {
	inter := sumAll(ag.Mul(ag.Mul(p, g), m))
	union := ag.AddScalar(ag.Add(sumAll(ag.Mul(p, m)), sumAll(ag.Mul(g, m))), l.Eps)
	return ag.Sub(ag.Scalar(inter, 1), ag.MulScalar(ag.Div(inter, union), 2))
}

func (l DBLoss) maskL1(p, g, m *ag.Var) *ag.Var {
	num := sumAll(ag.Mul(ag.Abs(ag.Sub(p, g)), m))
	return ag.Div(num, ag.AddScalar(sumAll(m), l.Eps))
}

// counts returns Σpositive (as a float), int(Σpositive) and the number of
// negatives kept, as BalanceLoss computes them.
func (l DBLoss) counts(y Labels) (posSum float64, pos, neg int, g, m []float32) {
	g, m = y.ShrinkMap.Contiguous().F32(), y.ShrinkMask.Contiguous().F32()
	var negSum float64
	for i := range g {
		posSum += float64(g[i] * m[i])
		negSum += float64((1 - g[i]) * m[i])
	}
	pos = int(posSum)
	neg = int(min(negSum, float64(pos)*l.OhemRatio))
	return posSum, pos, neg, g, m
}

// balancedScalar is BalanceLoss around a scalar loss (PaddleOCR's DiceLoss
// setting): every positive and every kept negative carries the same value.
func (l DBLoss) balancedScalar(loss *ag.Var, y Labels) *ag.Var {
	if !l.Balance {
		return loss
	}
	posSum, pos, neg, _, _ := l.counts(y)
	if neg > 0 {
		return ag.MulScalar(loss, (posSum+float64(neg))/(float64(pos+neg)+l.Eps))
	}
	return ag.MulScalar(loss, posSum/(float64(pos)+l.Eps))
}

// balancedBCE is BalanceLoss with BCELoss: positives plus the hardest
// negatives (online hard example mining).
func (l DBLoss) balancedBCE(p *ag.Var, y Labels) *ag.Var {
	gs := ag.Const(y.ShrinkMap)
	// bce = −(g·log p + (1−g)·log(1−p)), p clipped away from 0 and 1
	pc := ag.Clip(p, 1e-7, 1-1e-7)
	one := ag.Scalar(pc, 1)
	bce := ag.Neg(ag.Add(ag.Mul(gs, ag.Log(pc)), ag.Mul(ag.Sub(one, gs), ag.Log(ag.Sub(one, pc)))))
	if !l.Balance {
		return ag.Mean(bce, nil, false)
	}
	_, pos, neg, g, m := l.counts(y)
	bv := bce.T.Contiguous().F32()
	wt := tensor.New(tensor.Float32, y.ShrinkMap.Shape()...)
	wv := wt.F32()
	var negVals []float32
	for i := range g {
		wv[i] = g[i] * m[i]
		if nv := (1 - g[i]) * m[i]; nv > 0 {
			negVals = append(negVals, nv*bv[i])
		}
	}
	if neg = min(neg, len(negVals)); neg > 0 {
		// keep the neg largest values of negative·loss; ties at the cut go in index order
		cut := kthSmallest(negVals, len(negVals)-neg)
		left := neg
		for i := range g {
			nv := (1 - g[i]) * m[i]
			if nv <= 0 || left == 0 {
				continue
			}
			if v := nv * bv[i]; v > cut {
				wv[i] += nv
				left--
			}
		}
		for i := range g {
			nv := (1 - g[i]) * m[i]
			if nv <= 0 || left == 0 {
				continue
			}
			if nv*bv[i] == cut {
				wv[i] += nv
				left--
			}
		}
	}
	total := sumAll(ag.Mul(bce, ag.Const(wt)))
	return ag.MulScalar(total, 1/(float64(pos+neg)+l.Eps))
}

// kthSmallest returns the value that would stand at index k (0-based) if v
// were sorted ascending, reordering v in place: quickselect with a
// median-of-three pivot, O(len(v)) on average, where a sort would cost
// O(n log n) on every training step's hard-negative cut. v holds no NaN.
func kthSmallest(v []float32, k int) float32 {
	lo, hi := 0, len(v)-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		if v[mid] < v[lo] {
			v[mid], v[lo] = v[lo], v[mid]
		}
		if v[hi] < v[lo] {
			v[hi], v[lo] = v[lo], v[hi]
		}
		if v[hi] < v[mid] {
			v[hi], v[mid] = v[mid], v[hi]
		}
		pivot := v[mid]
		i, j := lo, hi
		for i <= j {
			for v[i] < pivot {
				i++
			}
			for pivot < v[j] {
				j--
			}
			if i <= j {
				v[i], v[j] = v[j], v[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return v[k]
		}
	}
	return v[k]
}
