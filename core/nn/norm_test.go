package nn

import (
	"testing"

	"paddle/core/ag"
	"paddle/core/tensor"
)

func TestNormsMatchTorch(t *testing.T) {
	var ref struct {
		BN2D struct {
			Weight, Bias            []float64
			Momentum                float64
			X1, X2, Y1, Up, Dx1, Y2 jt
			Dweight                 []float64
			Y3Eval                  jt        `json:"y3_eval"`
			RunningMean             []float64 `json:"running_mean"`
			RunningVar              []float64 `json:"running_var"`
		} `json:"bn2d"`
		LN, GN struct {
			Params map[string]jt
			X, Y   jt
		}
	}
	loadJSON(t, "norm_torch.json", &ref)
	c := ref.BN2D
	bn, err := NewBatchNorm2D(BatchNormOptions{NumFeatures: 3, Momentum: c.Momentum})
	if err != nil {
		t.Fatal(err)
	}
	ToDType(bn, tensor.Float64)
	bn.Weight.T.CopyFrom(tensor.FromSlice(c.Weight, 3))
	bn.Bias.T.CopyFrom(tensor.FromSlice(c.Bias, 3))
	x1 := ag.Param(c.X1.t())
	y1 := bn.Forward(x1, true)
	closeTo(t, "train output", y1.T, c.Y1, 1e-12)
	ag.Sum(ag.Mul(y1, c.Up.v()), nil, false).Backward()
	closeTo(t, "dx", x1.Grad, c.Dx1, 1e-10)
	closeTo(t, "dweight", bn.Weight.Grad, jt{[]int{3}, c.Dweight}, 1e-10)
	closeTo(t, "second train output", bn.Forward(c.X2.v(), true).T, c.Y2, 1e-12)
	closeTo(t, "running mean", bn.RunningMean.T, jt{[]int{3}, c.RunningMean}, 1e-12)
	closeTo(t, "running var (unbiased)", bn.RunningVar.T, jt{[]int{3}, c.RunningVar}, 1e-12)
	closeTo(t, "eval output", bn.Forward(c.X2.v(), false).T, c.Y3Eval, 1e-12)
	if bn.NumBatchesTracked.T.Item() != 2 {
		t.Errorf("num_batches_tracked %v, want 2", bn.NumBatchesTracked.T.Item())
	}
	if got := len(State(bn)); got != 5 {
		t.Errorf("state has %d tensors, want weight, bias and 3 buffers", got)
	}

	ln, _ := NewLayerNorm(LayerNormOptions{Shape: []int{3, 4}})
	ToDType(ln, tensor.Float64)
	if err := LoadState(ln, stateOf(ref.LN.Params)); err != nil {
		t.Fatal(err)
	}
	closeTo(t, "layer norm", ln.Forward(ref.LN.X.v(), false).T, ref.LN.Y, 1e-12)
	gn, _ := NewGroupNorm(GroupNormOptions{NumGroups: 2, NumChannels: 4})
	ToDType(gn, tensor.Float64)
	if err := LoadState(gn, stateOf(ref.GN.Params)); err != nil {
		t.Fatal(err)
	}
	closeTo(t, "group norm", gn.Forward(ref.GN.X.v(), false).T, ref.GN.Y, 1e-12)
}

func TestNormGradCheck(t *testing.T) {
	x := ag.Param(tensor.Randn(rng(), tensor.Float64, 0, 1, 2, 4, 3))
	ln, _ := NewLayerNorm(LayerNormOptions{Shape: []int{3}})
	gn, _ := NewGroupNorm(GroupNormOptions{NumGroups: 2, NumChannels: 4})
	bn, _ := NewBatchNorm1D(BatchNormOptions{NumFeatures: 4})
	for _, m := range []Module{ln, gn, bn} {
		ToDType(m, tensor.Float64)
		Normal(rng(), m.Params()[0].V.T, 1, 0.3)
	}
	checkGrad(t, "layer norm", []*ag.Var{x, ln.Weight, ln.Bias}, func() *ag.Var { return ln.Forward(x, true) }, 1e-6)
	checkGrad(t, "group norm", []*ag.Var{x, gn.Weight}, func() *ag.Var { return gn.Forward(x, true) }, 1e-6)
	checkGrad(t, "batch norm", []*ag.Var{x, bn.Weight}, func() *ag.Var { return bn.Forward(x, true) }, 1e-6)
}
