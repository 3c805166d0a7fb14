package nn

import (
	"math"
	"testing"

	"paddle/core/ag"
	"paddle/core/tensor"
)

type lossRef struct {
	CrossEntropy struct {
		Logits jt
		Labels []int64
		Weight []float64
		Cases  map[string]struct {
			Kw struct {
				LabelSmoothing float64   `json:"label_smoothing"`
				Weight         []float64 `json:"weight"`
				Reduction      string    `json:"reduction"`
			}
			Loss, Grad jt
		}
		Spatial struct {
			Logits         jt
			Labels         []int64
			Weight         []float64
			LabelSmoothing float64 `json:"label_smoothing"`
			Loss           float64
			Grad           jt
		}
	} `json:"cross_entropy"`
	BCE struct {
		X, Y      jt
		PosWeight []float64 `json:"pos_weight"`
		Plain     float64
		Pos       float64
	}
	Focal    float64
	SmoothL1 struct {
		A, B          []float64
		Beta          float64
		Loss, L1, MSE float64
	} `json:"smooth_l1"`
	CTC struct {
		Logits, Targets jt
		InputLengths    []int64 `json:"input_lengths"`
		TargetLengths   []int64 `json:"target_lengths"`
		Mean            float64
		None            []float64
		DLogits         jt `json:"dlogits"`
	}
}

func TestCrossEntropyMatchesTorch(t *testing.T) {
	var ref lossRef
	loadJSON(t, "loss_torch.json", &ref)
	ce := ref.CrossEntropy
	if len(ce.Cases) != 6 {
		t.Fatalf("%d cases, want 6", len(ce.Cases))
	}
	labels := tensor.FromSlice(ce.Labels, len(ce.Labels))
	for name, c := range ce.Cases {
		t.Run(name, func(t *testing.T) {
			o := DefaultCrossEntropyOptions()
			o.LabelSmoothing, o.Weight = c.Kw.LabelSmoothing, c.Kw.Weight
			if c.Kw.Reduction != "" {
				o.Reduction = Reduction(c.Kw.Reduction)
			}
			x := ag.Param(ce.Logits.t())
			l, err := CrossEntropy(x, labels, o)
			if err != nil {
				t.Fatal(err)
			}
			closeTo(t, "loss", l.T, c.Loss, 1e-12)
			ag.Sum(l, nil, false).Backward()
			closeTo(t, "grad", x.Grad, c.Grad, 1e-12)
		})
	}
	sp := ce.Spatial
	x := ag.Param(sp.Logits.t())
	l, err := CrossEntropy(x, tensor.FromSlice(sp.Labels, 2, 4), CrossEntropyOptions{
		Weight: sp.Weight, LabelSmoothing: sp.LabelSmoothing}) // zero IgnoreIndex: -100, not 0

	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(l.Item()-sp.Loss) > 1e-12 {
		t.Errorf("(N, C, d) loss %v, torch %v", l.Item(), sp.Loss)
	}
	l.Backward()
	closeTo(t, "(N, C, d) grad", x.Grad, sp.Grad, 1e-12)
	if _, err := CrossEntropy(x, tensor.FromSlice([]int64{0, 1, 2, 3, 0, 1, 2, 0}, 2, 4), DefaultCrossEntropyOptions()); err == nil {
		t.Error("label 3 of 3 classes accepted")
	}
}

func TestElementLossesMatchTorch(t *testing.T) {
	var ref lossRef
	loadJSON(t, "loss_torch.json", &ref)
	b := ref.BCE
	x, y := b.X.v(), b.Y.v()
	pw := ag.Const(tensor.FromSlice(b.PosWeight, len(b.PosWeight)))
	s := ref.SmoothL1
	pa, pb := ag.Const(tensor.FromSlice(s.A, len(s.A))), ag.Const(tensor.FromSlice(s.B, len(s.B)))
	tests := []struct {
		name      string
		got, want float64
	}{
		{"bce", BCEWithLogits(x, y, BCEOptions{}).Item(), b.Plain},
		{"bce-pos-weight", BCEWithLogits(x, y, BCEOptions{PosWeight: pw}).Item(), b.Pos},
		{"focal", SigmoidFocal(x, y, FocalOptions{}).Item(), ref.Focal},
		{"smooth-l1", SmoothL1(pa, pb, s.Beta, ReduceMean).Item(), s.Loss},
		{"l1", L1(pa, pb, ReduceMean).Item(), s.L1},
		{"mse", MSE(pa, pb, "").Item(), s.MSE},
	}
	for _, tt := range tests {
		if math.Abs(tt.got-tt.want) > 1e-12 {
			t.Errorf("%s = %.15g, torch %.15g", tt.name, tt.got, tt.want)
		}
	}
}

func TestCTCMatchesTorch(t *testing.T) {
	var ref lossRef
	loadJSON(t, "loss_torch.json", &ref)
	c := ref.CTC
	n := len(c.InputLengths)
	il, tl := tensor.FromSlice(c.InputLengths, n), tensor.FromSlice(c.TargetLengths, n)
	for _, dt := range []tensor.DType{tensor.Float64, tensor.Float32} {
		tol := 1e-10
		if dt == tensor.Float32 {
			tol = 1e-5
		}
		logits := ag.Param(c.Logits.t().Cast(dt))
		lp := ag.LogSoftmax(logits, 2)
		none := CTCLoss(lp, c.Targets.i64(), il, tl, CTCOptions{Reduction: ReduceNone})
		closeTo(t, "per-sample nll "+dt.String(), none.T, jt{Shape: []int{n}, Data: c.None}, tol)
		mean := CTCLoss(lp, c.Targets.i64(), il, tl, CTCOptions{})
		if math.Abs(mean.Item()-c.Mean) > tol*(1+c.Mean) {
			t.Errorf("%v: mean %v, torch %v", dt, mean.Item(), c.Mean)
		}
		mean.Backward()
		closeTo(t, "dlogits "+dt.String(), logits.Grad, c.DLogits, tol)
	}
}

func TestLossGradCheck(t *testing.T) {
	x := ag.Param(tensor.Randn(rng(), tensor.Float64, 0, 2, 3, 4))
	y := ag.Const(tensor.Rand(rng(), tensor.Float64, 0, 1, 3, 4))
	pw := ag.Param(tensor.Rand(rng(), tensor.Float64, 0.5, 2, 4))
	checkGrad(t, "bce", []*ag.Var{x, pw}, func() *ag.Var { return BCEWithLogits(x, y, BCEOptions{PosWeight: pw, Reduction: ReduceNone}) }, 1e-6)
	checkGrad(t, "focal", []*ag.Var{x}, func() *ag.Var { return SigmoidFocal(x, y, FocalOptions{Alpha: Float(0.4), Gamma: Float(1.5)}) }, 1e-6)
	p := ag.Param(tensor.Rand(rng(), tensor.Float64, 0.1, 0.9, 3, 4))
	checkGrad(t, "dice", []*ag.Var{p}, func() *ag.Var { return Dice(p, y, nil, 1e-6) }, 1e-6)
	checkGrad(t, "smooth-l1", []*ag.Var{x}, func() *ag.Var { return SmoothL1(x, y, 0.5, ReduceSum) }, 1e-6)
	lab := tensor.FromSlice([]int64{3, 1, 0}, 3)
	checkGrad(t, "cross-entropy", []*ag.Var{x}, func() *ag.Var { // row 1 is ignored: its gradient is 0
		l, _ := CrossEntropy(x, lab, CrossEntropyOptions{IgnoreIndex: Ignore(1), LabelSmoothing: 0.1, Weight: []float64{1, 2, 3, 4}})
		return l
	}, 1e-6)
}

// Dice by hand: p = (1, 0.5), t = (1, 0): 1 - 2·1/(1.5+1) = 0.2.
func TestDiceByHand(t *testing.T) {
	p := ag.Const(tensor.FromSlice([]float64{1, 0.5}, 2))
	y := ag.Const(tensor.FromSlice([]float64{1, 0}, 2))
	if got := Dice(p, y, nil, 0).Item(); math.Abs(got-0.2) > 1e-15 {
		t.Errorf("Dice = %v, want 0.2", got)
	}
	m := ag.Const(tensor.FromSlice([]float64{1, 0}, 2)) // masking the second element: 1 - 2/2 = 0
	if got := Dice(p, y, m, 0).Item(); math.Abs(got) > 1e-15 {
		t.Errorf("masked Dice = %v, want 0", got)
	}
}
