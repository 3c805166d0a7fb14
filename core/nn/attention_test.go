package nn

import (
	"testing"

	"paddle/core/ag"
	"paddle/core/tensor"
)

func boolMask(j jt) *tensor.Tensor {
	b := make([]bool, len(j.Data))
	for i, v := range j.Data {
		b[i] = v != 0
	}
	return tensor.FromSlice(b, j.Shape...)
}

type encCase struct {
	Params    map[string]jt
	X, Pad, Y jt
}

func TestMultiHeadAttentionMatchesTorch(t *testing.T) {
	var ref struct {
		MHA struct {
			Params         map[string]jt
			Q, KV, Pad, Dq jt
			YPad           jt `json:"y_pad"`
			WPad           jt `json:"w_pad"`
			YCausal        jt `json:"y_causal"`
			WCausal        jt `json:"w_causal"`
		}
		EncPost encCase `json:"enc_post"`
		EncPre  encCase `json:"enc_pre"`
	}
	loadJSON(t, "attention_torch.json", &ref)
	c := ref.MHA
	m, err := NewMultiHeadAttention(MultiHeadAttentionOptions{EmbedDim: 8, NumHeads: 2}, rng())
	if err != nil {
		t.Fatal(err)
	}
	ToDType(m, tensor.Float64)
	if err := LoadState(m, stateOf(c.Params)); err != nil {
		t.Fatal(err)
	}
	q := ag.Param(c.Q.t())
	kv := c.KV.v()
	y, w := m.Forward(q, kv, kv, AttentionMask{KeyPadding: boolMask(c.Pad)}, false)
	closeTo(t, "padded output", y.T, c.YPad, 1e-9)
	closeTo(t, "padded weights", w.T, c.WPad, 1e-9)
	y2, w2 := m.Forward(q, q, q, AttentionMask{Causal: true}, false)
	closeTo(t, "causal output", y2.T, c.YCausal, 1e-9)
	closeTo(t, "causal weights", w2.T, c.WCausal, 1e-9)
	ag.Add(ag.Sum(y, nil, false), ag.Sum(ag.Mul(y2, y2), nil, false)).Backward()
	closeTo(t, "dq", q.Grad, c.Dq, 1e-8)

	for name, e := range map[string]encCase{"post-ln": ref.EncPost, "pre-ln": ref.EncPre} {
		t.Run(name, func(t *testing.T) {
			o := TransformerEncoderLayerOptions{DModel: 8, NHead: 2, DimFeedforward: 16}
			if name == "pre-ln" {
				o.NormFirst, o.Activation = true, "gelu"
			}
			l, err := NewTransformerEncoderLayer(o, rng())
			if err != nil {
				t.Fatal(err)
			}
			ToDType(l, tensor.Float64)
			if err := LoadState(l, stateOf(e.Params)); err != nil {
				t.Fatal(err)
			}
			y := l.Forward(e.X.v(), AttentionMask{KeyPadding: boolMask(e.Pad)}, false)
			closeTo(t, "output", y.T, e.Y, 1e-9)
		})
	}
}

func TestAttentionGradCheck(t *testing.T) {
	m, _ := NewMultiHeadAttention(MultiHeadAttentionOptions{EmbedDim: 4, NumHeads: 2}, rng())
	ToDType(m, tensor.Float64)
	q := ag.Param(tensor.Randn(rng(), tensor.Float64, 0, 1, 2, 3, 4))
	pad := tensor.FromSlice([]bool{false, false, true, false, false, false}, 2, 3)
	checkGrad(t, "mha", []*ag.Var{q, m.QProj.Weight, m.KProj.Bias, m.OutProj.Weight}, func() *ag.Var {
		y, _ := m.Forward(q, q, q, AttentionMask{KeyPadding: pad, Causal: true}, false)
		return y
	}, 1e-6)
}

func TestTransformerEncoderStacksLayers(t *testing.T) {
	o := TransformerEncoderLayerOptions{DModel: 4, NHead: 2, DimFeedforward: 8, NormFirst: true}
	e, err := NewTransformerEncoder(o, 2, true, rng())
	if err != nil {
		t.Fatal(err)
	}
	ps := e.Params()
	if ps[0].Name != "layers.0.self_attn.q_proj.weight" || ps[len(ps)-1].Name != "norm.bias" {
		t.Errorf("names %s ... %s", ps[0].Name, ps[len(ps)-1].Name)
	}
	if len(ps) != 2*len(e.Layers[0].Params())+2 {
		t.Errorf("%d params", len(ps))
	}
	x := ag.Const(tensor.Randn(rng(), tensor.Float32, 0, 1, 2, 3, 4))
	mask := AttentionMask{Causal: true}
	want := e.Norm.Forward(e.Layers[1].Forward(e.Layers[0].Forward(x, mask, false), mask, false), false)
	if got := e.Forward(x, mask, false); !tensor.AllClose(got.T, want.T, 0, 0) {
		t.Error("encoder output differs from its layers applied in turn")
	}
}
