package nn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"paddle/core/ag"
	"paddle/core/op"
	"paddle/core/tensor"
)

// MultiHeadAttentionOptions configure MultiHeadAttention.
type MultiHeadAttentionOptions struct {
	EmbedDim int     `yaml:"embed_dim"`
	NumHeads int     `yaml:"num_heads"`
	KDim     int     `yaml:"kdim"`    // key feature size; default EmbedDim
	VDim     int     `yaml:"vdim"`    // value feature size; default EmbedDim
	Dropout  float64 `yaml:"dropout"` // on the attention weights, in training
	NoBias   bool    `yaml:"no_bias"`
}

// MultiHeadAttention is scaled dot-product attention over NumHeads heads
// (Vaswani et al. 2017, https://arxiv.org/abs/1706.03762), batch-first:
//
//	head_i = ag.Softmax(Q_i·K_iᵀ/sqrt(d) + mask)·V_i,  out = concat(heads)·W_oᵀ + b_o
//
// Its projections are Linear layers q_proj, k_proj, v_proj and out_proj
// (Paddle's names; torch's in_proj_weight is the three stacked).
type MultiHeadAttention struct {
	QProj, KProj, VProj, OutProj *Linear
	heads                        int
	drop                         *Dropout
}

var _ Module = (*MultiHeadAttention)(nil)

// NewMultiHeadAttention builds the projections with PyTorch's Linear initialisation.
func NewMultiHeadAttention(o MultiHeadAttentionOptions, r *rand.Rand) (*MultiHeadAttention, error) {
	if o.EmbedDim <= 0 || o.NumHeads <= 0 || o.EmbedDim%o.NumHeads != 0 {
		return nil, fmt.Errorf("multi-head attention: num_heads %d must divide embed_dim %d", o.NumHeads, o.EmbedDim)
	}
	if o.KDim == 0 {
		o.KDim = o.EmbedDim
	}
	if o.VDim == 0 {
		o.VDim = o.EmbedDim
	}
	m := &MultiHeadAttention{heads: o.NumHeads}
	var err error
	for _, p := range []struct {
		dst **Linear
		in  int
	}{{&m.QProj, o.EmbedDim}, {&m.KProj, o.KDim}, {&m.VProj, o.VDim}, {&m.OutProj, o.EmbedDim}} {
		if *p.dst, err = NewLinear(LinearOptions{In: p.in, Out: o.EmbedDim, NoBias: o.NoBias}, r); err != nil {
			return nil, fmt.Errorf("multi-head attention: %w", err)
		}
	}
	if m.drop, err = NewDropout(DropoutOptions{P: o.Dropout}, r); err != nil {
		return nil, fmt.Errorf("multi-head attention: %w", err)
	}
	return m, nil
}

// Params returns the four projections' weights and biases.
func (m *MultiHeadAttention) Params() []Param {
	return Collect("q_proj", m.QProj, "k_proj", m.KProj, "v_proj", m.VProj, "out_proj", m.OutProj)
}

// AttentionMask says which keys a query may not attend to. Masked scores
// become -inf before the softmax (a query with every key masked gives NaN,
// as in PyTorch).
type AttentionMask struct {
	KeyPadding *tensor.Tensor // (N, S) bool, true = padding (ignored); nil = none
	Causal     bool           // query i attends to keys j <= i only (needs L = S)
	Additive   *tensor.Tensor // (L, S) or (N·heads, L, S) float added to the scores; nil = none
}

// Forward attends queries q (N, L, E) to keys k (N, S, KDim) and values v
// (N, S, VDim) and returns the output (N, L, E) and the attention weights
// averaged over heads (N, L, S).
func (m *MultiHeadAttention) Forward(q, k, v *ag.Var, mask AttentionMask, training bool) (*ag.Var, *ag.Var) {
	n, l := q.Shape()[0], q.Shape()[1]
	s := k.Shape()[1]
	e := m.OutProj.Weight.Shape()[0]
	h := m.heads
	d := e / h
	// (N, L, E) → (N, h, L, d)
	split := func(x *ag.Var, t int) *ag.Var { return ag.Transpose(ag.Reshape(x, n, t, h, d), 0, 2, 1, 3) }
	qh := split(m.QProj.Forward(q, training), l)
	kh := split(m.KProj.Forward(k, training), s)
	vh := split(m.VProj.Forward(v, training), s)
	// (N, h, L, d), weights (N, h, L, S)
	o, w := ScaledDotProductAttention(qh, kh, vh, SDPAOptions{Mask: maskTensor(mask, n, h, l, s, q.DType()), Dropout: m.drop}, training)
	y := ag.Reshape(ag.Transpose(o, 0, 2, 1, 3), n, l, e) // (N, L, E)
	return m.OutProj.Forward(y, training), ag.Mean(w, []int{1}, false)
}

// maskTensor builds the additive mask (N, h, L, S) (or a broadcastable
// shape), or nil when nothing is masked.
func maskTensor(mk AttentionMask, n, h, l, s int, dt tensor.DType) *tensor.Tensor {
	if mk.KeyPadding == nil && !mk.Causal && mk.Additive == nil {
		return nil
	}
	if mk.Causal && l != s {
		panic(&op.ShapeError{Op: "multi_head_attention", Err: fmt.Errorf("causal mask needs as many queries as keys, got %d and %d", l, s)})
	}
	if mk.KeyPadding != nil && !mk.KeyPadding.Shape().Equal(tensor.Shape{n, s}) {
		panic(&op.ShapeError{Op: "multi_head_attention", Err: fmt.Errorf("key padding mask %v, want (%d, %d)", mk.KeyPadding.Shape(), n, s)})
	}
	out := make([]float64, n*h*l*s)
	var pad, add []float64
	if mk.KeyPadding != nil {
		pad = mk.KeyPadding.Float64s()
	}
	perBatchHead := false
	if mk.Additive != nil {
		switch as := mk.Additive.Shape(); {
		case as.Equal(tensor.Shape{l, s}):
		case as.Equal(tensor.Shape{n * h, l, s}):
			perBatchHead = true
		default:
			panic(&op.ShapeError{Op: "multi_head_attention", Err: fmt.Errorf("attention mask %v, want (%d, %d) or (%d, %d, %d)", as, l, s, n*h, l, s)})
		}
		add = mk.Additive.Float64s()
		if mk.Additive.DType() == tensor.Bool { // bool masks: true = not allowed
			for i, v := range add {
				add[i] = 0
				if v != 0 {
					add[i] = math.Inf(-1)
				}
			}
		}
	}
	inf := math.Inf(-1)
	for b := range n {
		for hh := range h {
			for i := range l {
				row := out[((b*h+hh)*l+i)*s:][:s]
				for j := range s {
					switch {
					case pad != nil && pad[b*s+j] != 0, mk.Causal && j > i:
						row[j] = inf
					case add != nil && perBatchHead:
						row[j] = add[((b*h+hh)*l+i)*s+j]
					case add != nil:
						row[j] = add[i*s+j]
					}
				}
			}
		}
	}
	return tensor.FromSlice(out, n, h, l, s).Cast(dt)
}

// TransformerEncoderLayerOptions configure TransformerEncoderLayer.
type TransformerEncoderLayerOptions struct {
	DModel         int     `yaml:"d_model"`
	NHead          int     `yaml:"nhead"`
	DimFeedforward int     `yaml:"dim_feedforward"` // default 2048
	Dropout        float64 `yaml:"dropout"`         // 0 here (PyTorch's default is 0.1)
	Activation     string  `yaml:"activation"`      // relu (default) or gelu
	LayerNormEps   float64 `yaml:"layer_norm_eps"`
	NormFirst      bool    `yaml:"normalize_before"` // pre-LN instead of post-LN
}

// TransformerEncoderLayer is self-attention plus a feed-forward block, each
// with a residual connection and LayerNorm, torch.nn.TransformerEncoderLayer:
//
//	post-LN: x = norm1(x + sa(x)); x = norm2(x + ff(x))
//	pre-LN:  x = x + sa(norm1(x)); x = x + ff(norm2(x))
//	ff(x) = linear2(dropout(act(linear1(x))))
type TransformerEncoderLayer struct {
	SelfAttn           *MultiHeadAttention
	Linear1, Linear2   *Linear
	Norm1, Norm2       *LayerNorm
	drop, drop1, drop2 *Dropout
	gelu, normFirst    bool
}

// NewTransformerEncoderLayer builds the layer.
func NewTransformerEncoderLayer(o TransformerEncoderLayerOptions, r *rand.Rand) (*TransformerEncoderLayer, error) {
	if o.DimFeedforward == 0 {
		o.DimFeedforward = 2048
	}
	switch o.Activation {
	case "", "relu", "gelu":
	default:
		return nil, fmt.Errorf("transformer encoder layer: activation %q, want relu or gelu", o.Activation)
	}
	t := &TransformerEncoderLayer{gelu: o.Activation == "gelu", normFirst: o.NormFirst}
	var err error
	wrap := func(e error) error { return fmt.Errorf("transformer encoder layer: %w", e) }
	if t.SelfAttn, err = NewMultiHeadAttention(MultiHeadAttentionOptions{EmbedDim: o.DModel, NumHeads: o.NHead, Dropout: o.Dropout}, r); err != nil {
		return nil, wrap(err)
	}
	if t.Linear1, err = NewLinear(LinearOptions{In: o.DModel, Out: o.DimFeedforward}, r); err != nil {
		return nil, wrap(err)
	}
	if t.Linear2, err = NewLinear(LinearOptions{In: o.DimFeedforward, Out: o.DModel}, r); err != nil {
		return nil, wrap(err)
	}
	ln := LayerNormOptions{Shape: []int{o.DModel}, Eps: o.LayerNormEps}
	if t.Norm1, err = NewLayerNorm(ln); err != nil {
		return nil, wrap(err)
	}
	t.Norm2, _ = NewLayerNorm(ln)
	for _, d := range []**Dropout{&t.drop, &t.drop1, &t.drop2} {
		if *d, err = NewDropout(DropoutOptions{P: o.Dropout}, r); err != nil {
			return nil, wrap(err)
		}
	}
	return t, nil
}

// Params returns the attention, feed-forward and norm parameters under
// torch's names (self_attn, linear1, linear2, norm1, norm2).
func (t *TransformerEncoderLayer) Params() []Param {
	return Collect("self_attn", t.SelfAttn, "linear1", t.Linear1, "linear2", t.Linear2, "norm1", t.Norm1, "norm2", t.Norm2)
}

// Forward maps x (N, L, E) to (N, L, E); mask applies to the self-attention.
func (t *TransformerEncoderLayer) Forward(x *ag.Var, mask AttentionMask, training bool) *ag.Var {
	sa := func(x *ag.Var) *ag.Var {
		y, _ := t.SelfAttn.Forward(x, x, x, mask, training)
		return t.drop1.Forward(y, training)
	}
	ff := func(x *ag.Var) *ag.Var {
		h := t.Linear1.Forward(x, training)
		if t.gelu {
			h = ag.Gelu(h, false)
		} else {
			h = ag.Relu(h)
		}
		return t.drop2.Forward(t.Linear2.Forward(t.drop.Forward(h, training), training), training)
	}
	if t.normFirst {
		x = ag.Add(x, sa(t.Norm1.Forward(x, training)))
		return ag.Add(x, ff(t.Norm2.Forward(x, training)))
	}
	x = t.Norm1.Forward(ag.Add(x, sa(x)), training)
	return t.Norm2.Forward(ag.Add(x, ff(x)), training)
}

// TransformerEncoder is a stack of encoder layers with an optional final LayerNorm.
type TransformerEncoder struct {
	Layers []*TransformerEncoderLayer
	Norm   *LayerNorm // nil for none
}

// NewTransformerEncoder stacks numLayers layers built from o; withNorm adds
// a final LayerNorm (usual for pre-LN stacks).
func NewTransformerEncoder(o TransformerEncoderLayerOptions, numLayers int, withNorm bool, r *rand.Rand) (*TransformerEncoder, error) {
	if numLayers <= 0 {
		return nil, fmt.Errorf("transformer encoder: num_layers %d must be positive", numLayers)
	}
	e := &TransformerEncoder{}
	for range numLayers {
		l, err := NewTransformerEncoderLayer(o, r)
		if err != nil {
			return nil, err
		}
		e.Layers = append(e.Layers, l)
	}
	if withNorm {
		var err error
		if e.Norm, err = NewLayerNorm(LayerNormOptions{Shape: []int{o.DModel}, Eps: o.LayerNormEps}); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// Params returns layers.<i>.* and norm.*.
func (e *TransformerEncoder) Params() []Param {
	var out []Param
	for i, l := range e.Layers {
		out = append(out, Prefix(fmt.Sprintf("layers.%d", i), l.Params())...)
	}
	if e.Norm != nil {
		out = append(out, Prefix("norm", e.Norm.Params())...)
	}
	return out
}

// Forward maps x (N, L, E) through every layer (and the final norm).
func (e *TransformerEncoder) Forward(x *ag.Var, mask AttentionMask, training bool) *ag.Var {
	for _, l := range e.Layers {
		x = l.Forward(x, mask, training)
	}
	if e.Norm != nil {
		x = e.Norm.Forward(x, training)
	}
	return x
}
