package nn

import (
	"testing"

	"paddle/core/ag"
	"paddle/core/tensor"
)

type rnnCase struct {
	Params           map[string]jt
	X, H0, C0, Y, Hn jt
	Cn, Up, Dx       jt
	Grads            map[string]jt
	Lengths          []int
}

func TestRNNMatchesTorch(t *testing.T) {
	var ref map[string]rnnCase
	loadJSON(t, "rnn_torch.json", &ref)
	o := RNNOptions{InputSize: 3, HiddenSize: 4, NumLayers: 2, Bidirectional: true, BatchFirst: true}
	for _, dt := range []tensor.DType{tensor.Float64, tensor.Float32} {
		tol := 1e-9
		if dt == tensor.Float32 {
			tol = 1e-5
		}
		for kind, c := range ref {
			t.Run(kind+"/"+dt.String(), func(t *testing.T) {
				var m Module
				var err error
				if kind == "lstm" || kind == "lstm_len" {
					m, err = NewLSTM(o, rng())
				} else {
					m, err = NewGRU(o, rng())
				}
				if err != nil {
					t.Fatal(err)
				}
				ToDType(m, dt)
				if err := LoadState(m, stateOf(c.Params)); err != nil {
					t.Fatal(err)
				}
				x := ag.Param(c.X.t().Cast(dt))
				h0 := ag.Const(c.H0.t().Cast(dt))
				var y, hn, cn *ag.Var
				if kind == "lstm" || kind == "lstm_len" {
					y, hn, cn, err = m.(*LSTM).Run(x, h0, ag.Const(c.C0.t().Cast(dt)), c.Lengths, false)
				} else {
					y, hn, err = m.(*GRU).Run(x, h0, c.Lengths, false)
				}
				if err != nil {
					t.Fatal(err)
				}
				closeTo(t, "output", y.T, c.Y, tol)
				closeTo(t, "h_n", hn.T, c.Hn, tol)
				if cn != nil {
					closeTo(t, "c_n", cn.T, c.Cn, tol)
				}
				// loss = Σ y·up + Σ h_n
				loss := ag.Add(ag.Sum(ag.Mul(y, ag.Const(c.Up.t().Cast(dt))), nil, false), ag.Sum(hn, nil, false))
				loss.Backward()
				closeTo(t, "dx", x.Grad, c.Dx, tol*10)
				for _, p := range m.Params() {
					closeTo(t, "grad "+p.Name, p.V.Grad, c.Grads[p.Name], tol*10)
				}
			})
		}
	}
}

func TestRNNGradCheck(t *testing.T) {
	o := RNNOptions{InputSize: 2, HiddenSize: 3, NumLayers: 2, Bidirectional: true}
	l, _ := NewLSTM(o, rng())
	g, _ := NewGRU(o, rng())
	for _, m := range []Module{l, g} {
		ToDType(m, tensor.Float64)
	}
	x := ag.Param(tensor.Randn(rng(), tensor.Float64, 0, 1, 3, 2, 2))
	h0 := ag.Param(tensor.Randn(rng(), tensor.Float64, 0, 1, 4, 2, 3))
	ps := []*ag.Var{x, h0, l.Params()[1].V, l.Params()[6].V}
	checkGrad(t, "lstm", ps, func() *ag.Var { y, _, _, _ := l.Run(x, h0, nil, []int{3, 2}, false); return y }, 1e-6)
	ps = []*ag.Var{x, h0, g.Params()[0].V, g.Params()[7].V}
	checkGrad(t, "gru", ps, func() *ag.Var { _, hn, _ := g.Run(x, h0, []int{1, 3}, false); return hn }, 1e-6)
}
