package nlp

import (
	"fmt"
	"math"
	"math/rand/v2"

	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/nn"
	"paddle/core/op"
	"paddle/core/tensor"
)

// Sequence classifiers: a bidirectional LSTM or GRU, and a small pre-LN
// Transformer encoder, each pooled over the non-padding positions. Padding
// masks are computed from the ids with ops (not read in Go), so a traced
// export masks whatever batch it is given.

// BiRNNOpts configure BiLSTM and BiGRU: embedding → bidirectional
// recurrent layers → pooling over time → linear. Attention pooling
// (Yang et al. 2016, https://aclanthology.org/N16-1174/) scores each
// position with v·tanh(W·h_t + b), softmaxes the scores over the text and
// takes the weighted sum of h_t.
type BiRNNOpts struct {
	EmbeddingDim int     `yaml:"embedding_dim"` // default 64
	HiddenSize   int     `yaml:"hidden_size"`   // per direction, default 64
	NumLayers    int     `yaml:"num_layers"`    // default 1
	Pooling      string  `yaml:"pooling"`       // attention (default), max or mean
	AttentionDim int     `yaml:"attention_dim"` // default 2·hidden_size
	Dropout      float64 `yaml:"dropout"`       // on the embeddings and before the output layer
}

// TransformerOpts configure the Transformer classifier: token embedding +
// position embedding (learned, or the fixed sinusoids of Vaswani et al.
// 2017) → pre-LN encoder layers (x += attn(LN(x)); x += ff(LN(x))) → final
// LayerNorm → pooling → linear.
type TransformerOpts struct {
	DModel         int     `yaml:"d_model"`         // default 64
	NHead          int     `yaml:"nhead"`           // default 4
	NumLayers      int     `yaml:"num_layers"`      // default 2
	DimFeedforward int     `yaml:"dim_feedforward"` // default 4·d_model
	Dropout        float64 `yaml:"dropout"`         // default 0.1
	Positions      string  `yaml:"positions"`       // learned (default) or sinusoidal
	Pooling        string  `yaml:"pooling"`         // mean (default), max or attention
}

// padBias is -1e9 where ids (N, L) is padding, else 0, float32 (N, L):
// added to scores before a softmax or max, it takes padding out.
func padBias(ids *ag.Var) *ag.Var {
	return ag.MulScalar(ag.AddScalar(notPad(ids), -1), 1e9)
}

// pooler reduces (N, L, F) over the non-padding positions to (N, F).
type pooler struct {
	kind       string
	Proj, Vec  *nn.Linear // attention: F → A, A → 1
	poolerSize int
}

func newPooler(kind string, f, a int, r *rand.Rand) (*pooler, error) {
	p := &pooler{kind: kind, poolerSize: f}
	switch kind {
	case "attention":
		var err error
		if p.Proj, err = nn.NewLinear(nn.LinearOptions{In: f, Out: a}, r); err != nil {
			return nil, err
		}
		if p.Vec, err = nn.NewLinear(nn.LinearOptions{In: a, Out: 1, NoBias: true}, r); err != nil {
			return nil, err
		}
	case "max", "mean":
	default:
		return nil, fmt.Errorf("pooling %q: want attention, max or mean", kind)
	}
	return p, nil
}

// Params returns the attention projections (none for max and mean).
func (p *pooler) Params() []nn.Param {
	if p.kind != "attention" {
		return nil
	}
	return nn.Collect("proj", p.Proj, "vec", p.Vec)
}

// pool maps h (N, L, F) and ids (N, L) to (N, F).
func (p *pooler) pool(h, ids *ag.Var, training bool) *ag.Var {
	switch p.kind {
	case "max":
		return ag.Max(ag.Add(h, ag.Unsqueeze(padBias(ids), 2)), []int{1}, false)
	case "mean":
		keep := notPad(ids)
		n := ag.ClipMin(ag.Sum(keep, []int{1}, true), 1)
		return ag.Div(ag.Sum(ag.Mul(h, ag.Unsqueeze(keep, 2)), []int{1}, false), n)
	}
	s := ag.Squeeze(p.Vec.Forward(ag.Tanh(p.Proj.Forward(h, training)), training), 2) // (N, L)
	a := ag.Softmax(ag.Add(s, padBias(ids)), 1)                                       // (N, L)
	return ag.Sum(ag.Mul(h, ag.Unsqueeze(a, 2)), []int{1}, false)                     // (N, F)
}

// BiRNN is the BiLSTM / BiGRU classifier.
type BiRNN struct {
	Embed *nn.Embedding
	LSTM  *nn.LSTM // one of LSTM and GRU
	GRU   *nn.GRU
	Pool  *pooler
	Out   *nn.Linear
	drop  *nn.Dropout
}

func newBiRNN(c config.Component, o BiRNNOpts, vocab, classes int, r *rand.Rand) (*BiRNN, error) {
	if o.AttentionDim == 0 {
		o.AttentionDim = 2 * o.HiddenSize
	}
	pad := PadID
	m := &BiRNN{}
	var err error
	if m.Embed, err = nn.NewEmbedding(nn.EmbeddingOptions{NumEmbeddings: vocab, EmbeddingDim: o.EmbeddingDim, PaddingIdx: &pad}, r); err != nil {
		return nil, c.Errorf("%v", err)
	}
	ro := nn.RNNOptions{InputSize: o.EmbeddingDim, HiddenSize: o.HiddenSize, NumLayers: o.NumLayers, Bidirectional: true, BatchFirst: true, Dropout: o.Dropout}
	if c.Name == "BiLSTM" {
		m.LSTM, err = nn.NewLSTM(ro, r)
	} else {
		m.GRU, err = nn.NewGRU(ro, r)
	}
	if err != nil {
		return nil, c.Errorf("%v", err)
	}
	if m.Pool, err = newPooler(o.Pooling, 2*o.HiddenSize, o.AttentionDim, r); err != nil {
		return nil, c.Errorf("%v", err)
	}
	if m.Out, err = nn.NewLinear(nn.LinearOptions{In: 2 * o.HiddenSize, Out: classes}, r); err != nil {
		return nil, c.Errorf("%v", err)
	}
	if m.drop, err = nn.NewDropout(nn.DropoutOptions{P: o.Dropout}, r); err != nil {
		return nil, c.Errorf("%v", err)
	}
	return m, nil
}

// Params returns embed, rnn (torch's weight_ih_l0, … names), pool and out.
func (m *BiRNN) Params() []nn.Param {
	var rnn nn.Module = m.LSTM
	if m.GRU != nil {
		rnn = m.GRU
	}
	return nn.Collect("embed", m.Embed, "rnn", rnn, "pool", m.Pool, "out", m.Out)
}

// MinLen is 1.
func (m *BiRNN) MinLen() int { return 1 }

// Logits maps ids (N, L) to (N, classes). Each text runs for its own
// length (the reverse direction starts at its last word, not at the
// padding); while tracing for export the lengths cannot be recorded, so
// the exported graph treats every row as L long and is exact for unpadded
// input (predict --model and serve feed one text at a time).
func (m *BiRNN) Logits(ids *ag.Var, training bool) *ag.Var {
	x := m.drop.Forward(m.Embed.Forward(ids, training), training) // (N, L, D)
	var lengths []int
	if !ag.Tracing() {
		lengths = seqLengths(ids.T)
	}
	var h *ag.Var
	var err error
	if m.LSTM != nil {
		h, _, _, err = m.LSTM.Run(x, nil, nil, lengths, training)
	} else {
		h, _, err = m.GRU.Run(x, nil, lengths, training)
	}
	if err != nil {
		panic(&op.ShapeError{Op: "birnn", Err: err})
	}
	return m.Out.Forward(m.drop.Forward(m.Pool.pool(h, ids, training), training), training) // h: (N, L, 2H)
}

// seqLengths counts the non-padding ids of each row of ids (N, L),
// padding being at the end.
func seqLengths(ids *tensor.Tensor) []int {
	v := ids.Contiguous().I64()
	n, l := ids.Shape()[0], ids.Shape()[1]
	out := make([]int, n)
	for i := range n {
		for _, id := range v[i*l : (i+1)*l] {
			if id != PadID {
				out[i]++
			}
		}
	}
	return out
}

// Transformer is the Transformer-encoder classifier.
type Transformer struct {
	Embed  *nn.Embedding
	Pos    *nn.Embedding // learned positions; nil with sinusoids
	Layers []*preLNLayer
	Norm   *nn.LayerNorm
	Pool   *pooler
	Out    *nn.Linear
	sin    *tensor.Tensor // (maxLen, E) sinusoids
	drop   *nn.Dropout
	maxLen int
}

func newTransformer(c config.Component, o TransformerOpts, vocab, classes, maxLen int, r *rand.Rand) (*Transformer, error) {
	if o.DimFeedforward == 0 {
		o.DimFeedforward = 4 * o.DModel
	}
	if o.NumLayers < 1 || o.DModel < 1 || o.NHead < 1 || o.DModel%o.NHead != 0 {
		return nil, c.Errorf("num_layers %d, d_model %d, nhead %d: want positive, nhead dividing d_model", o.NumLayers, o.DModel, o.NHead)
	}
	if maxLen < 1 {
		return nil, c.Errorf("Global.max_seq_len must be positive: it sizes the position table")
	}
	pad := PadID
	m := &Transformer{maxLen: maxLen}
	var err error
	wrap := func(err error) error { return c.Errorf("%v", err) }
	if m.Embed, err = nn.NewEmbedding(nn.EmbeddingOptions{NumEmbeddings: vocab, EmbeddingDim: o.DModel, PaddingIdx: &pad}, r); err != nil {
		return nil, wrap(err)
	}
	switch o.Positions {
	case "learned":
		if m.Pos, err = nn.NewEmbedding(nn.EmbeddingOptions{NumEmbeddings: maxLen, EmbeddingDim: o.DModel}, r); err != nil {
			return nil, wrap(err)
		}
	case "sinusoidal":
		m.sin = sinusoids(maxLen, o.DModel)
	default:
		return nil, c.Errorf("positions %q: want learned or sinusoidal", o.Positions)
	}
	for range o.NumLayers {
		l, err := newPreLNLayer(o, r)
		if err != nil {
			return nil, wrap(err)
		}
		m.Layers = append(m.Layers, l)
	}
	if m.Norm, err = nn.NewLayerNorm(nn.LayerNormOptions{Shape: []int{o.DModel}}); err != nil {
		return nil, wrap(err)
	}
	if m.Pool, err = newPooler(o.Pooling, o.DModel, o.DModel, r); err != nil {
		return nil, wrap(err)
	}
	if m.Out, err = nn.NewLinear(nn.LinearOptions{In: o.DModel, Out: classes}, r); err != nil {
		return nil, wrap(err)
	}
	if m.drop, err = nn.NewDropout(nn.DropoutOptions{P: o.Dropout}, r); err != nil {
		return nil, wrap(err)
	}
	return m, nil
}

// sinusoids is the (n, d) table PE[p, 2i] = sin(p/10000^(2i/d)),
// PE[p, 2i+1] = cos(p/10000^(2i/d)).
func sinusoids(n, d int) *tensor.Tensor {
	v := make([]float32, n*d)
	for p := range n {
		for i := 0; i < d; i += 2 {
			a := float64(p) / math.Pow(10000, float64(i)/float64(d))
			v[p*d+i] = float32(math.Sin(a))
			if i+1 < d {
				v[p*d+i+1] = float32(math.Cos(a))
			}
		}
	}
	return tensor.FromSlice(v, n, d)
}

// Params returns embed, pos (learned), layers.<i>, norm, pool and out.
func (m *Transformer) Params() []nn.Param {
	ps := nn.Collect("embed", m.Embed, "pos", m.Pos)
	for i, l := range m.Layers {
		ps = append(ps, nn.Prefix(fmt.Sprintf("layers.%d", i), l.Params())...)
	}
	return append(ps, nn.Collect("norm", m.Norm, "pool", m.Pool, "out", m.Out)...)
}

// MinLen is 1.
func (m *Transformer) MinLen() int { return 1 }

// Logits maps ids (N, L) to (N, classes); L must not exceed the position
// table (the runner cuts texts to fit).
func (m *Transformer) Logits(ids *ag.Var, training bool) *ag.Var {
	// positions 0..L-1 of every row, built with ops so an export keeps L dynamic
	ones := ag.Cast(ag.GreaterEqual(ids, ag.Scalar(ids, 0)), tensor.Int64)
	pos := ag.Cumsum(ones, 1, true, false) // (N, L)
	x := m.Embed.Forward(ids, training)    // (N, L, E)
	if m.Pos != nil {
		x = ag.Add(x, m.Pos.Forward(pos, training))
	} else {
		x = ag.Add(x, ag.Gather(ag.Const(m.sin), pos, 0))
	}
	x = m.drop.Forward(x, training)
	bias := ag.Unsqueeze(padBias(ids), 1, 2) // (N, 1, 1, L)
	for _, l := range m.Layers {
		x = l.forward(x, bias, training)
	}
	x = m.Norm.Forward(x, training)
	return m.Out.Forward(m.Pool.pool(x, ids, training), training)
}

// preLNLayer is one pre-LN encoder layer. It computes attention itself
// (not nn.MultiHeadAttention, whose padding mask is a Go tensor) so that
// the mask comes from the ids through ops.
type preLNLayer struct {
	Norm1, Norm2     *nn.LayerNorm
	Q, K, V, O       *nn.Linear
	Linear1, Linear2 *nn.Linear
	heads            int
	drop             *nn.Dropout
}

func newPreLNLayer(o TransformerOpts, r *rand.Rand) (*preLNLayer, error) {
	l := &preLNLayer{heads: o.NHead}
	var err error
	for _, p := range []struct {
		dst     **nn.Linear
		in, out int
	}{{&l.Q, o.DModel, o.DModel}, {&l.K, o.DModel, o.DModel}, {&l.V, o.DModel, o.DModel}, {&l.O, o.DModel, o.DModel},
		{&l.Linear1, o.DModel, o.DimFeedforward}, {&l.Linear2, o.DimFeedforward, o.DModel}} {
		if *p.dst, err = nn.NewLinear(nn.LinearOptions{In: p.in, Out: p.out}, r); err != nil {
			return nil, err
		}
	}
	if l.Norm1, err = nn.NewLayerNorm(nn.LayerNormOptions{Shape: []int{o.DModel}}); err != nil {
		return nil, err
	}
	l.Norm2, _ = nn.NewLayerNorm(nn.LayerNormOptions{Shape: []int{o.DModel}})
	if l.drop, err = nn.NewDropout(nn.DropoutOptions{P: o.Dropout}, r); err != nil {
		return nil, err
	}
	return l, nil
}

// Params returns norm1, q_proj, k_proj, v_proj, out_proj, norm2, linear1, linear2.
func (l *preLNLayer) Params() []nn.Param {
	return nn.Collect("norm1", l.Norm1, "q_proj", l.Q, "k_proj", l.K, "v_proj", l.V, "out_proj", l.O,
		"norm2", l.Norm2, "linear1", l.Linear1, "linear2", l.Linear2)
}

// forward maps x (N, L, E) with the additive padding bias (N, 1, 1, L).
func (l *preLNLayer) forward(x, bias *ag.Var, training bool) *ag.Var {
	n, t, e := x.Shape()[0], x.Shape()[1], x.Shape()[2]
	h, d := l.heads, e/l.heads
	split := func(y *ag.Var) *ag.Var { return ag.Transpose(ag.Reshape(y, n, t, h, d), 0, 2, 1, 3) } // (N, h, L, d)
	y := l.Norm1.Forward(x, training)
	q, k, v := split(l.Q.Forward(y, training)), split(l.K.Forward(y, training)), split(l.V.Forward(y, training))
	s := ag.Add(ag.MulScalar(ag.MatMul(q, k, false, true), 1/math.Sqrt(float64(d))), bias) // (N, h, L, L)
	a := l.drop.Forward(ag.Softmax(s, -1), training)
	o := ag.Reshape(ag.Transpose(ag.MatMul(a, v, false, false), 0, 2, 1, 3), n, t, e) // (N, L, E)
	x = ag.Add(x, l.drop.Forward(l.O.Forward(o, training), training))
	f := l.Linear2.Forward(l.drop.Forward(ag.Gelu(l.Linear1.Forward(l.Norm2.Forward(x, training), training), false), training), training)
	return ag.Add(x, l.drop.Forward(f, training))
}
