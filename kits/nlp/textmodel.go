package nlp

import (
	"fmt"
	"math/rand/v2"

	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/nn"
	"paddle/core/op"
	"paddle/core/tensor"
)

// TextCNNOpts configure TextCNN (Kim 2014): embedding → one Conv1D per
// window width → ReLU → max over time → concatenation → linear.
type TextCNNOpts struct {
	EmbeddingDim int   `yaml:"embedding_dim"` // default 64
	NumFilters   int   `yaml:"num_filters"`   // per width, default 64
	Widths       []int `yaml:"widths"`        // default [3, 4, 5]
}

// BoEOpts configure the bag-of-embeddings classifier: the mean of the
// word embeddings (padding left out) → Linear → ReLU → Linear.
type BoEOpts struct {
	EmbeddingDim int `yaml:"embedding_dim"` // default 64
	HiddenDim    int `yaml:"hidden_dim"`    // default 64
}

// TextClassifier maps padded int64 ids (N, L) to logits (N, classes).
type TextClassifier interface {
	nn.Module
	Logits(ids *ag.Var, training bool) *ag.Var
	// MinLen is the shortest sequence the model accepts (batches are padded to it).
	MinLen() int
}

// TextCNN is the convolutional text classifier.
type TextCNN struct {
	Embed *nn.Embedding
	Convs []*nn.Conv1D
	Out   *nn.Linear
	width int
}

// BoE is the bag-of-embeddings classifier.
type BoE struct {
	Embed       *nn.Embedding
	Hidden, Out *nn.Linear
}

// modelEnv is what a classifier is built for: a vocabulary of vocab units,
// classes classes, texts of at most maxLen units.
type modelEnv struct {
	vocab, classes, maxLen int
	r                      *rand.Rand
}

// models are the classifiers a classification config's Model.name can choose.
var models = newModels()

func newModels() *config.Registry[modelEnv, TextClassifier] {
	r := config.NewRegistry[modelEnv, TextClassifier]("model")
	birnn := BiRNNOpts{EmbeddingDim: 64, HiddenSize: 64, NumLayers: 1, Pooling: "attention"}
	rnn := func(c config.Component, o BiRNNOpts, e modelEnv) (TextClassifier, error) {
		return newBiRNN(c, o, e.vocab, e.classes, e.r)
	}
	config.Add(r, "BiGRU", birnn, rnn)
	config.Add(r, "BiLSTM", birnn, rnn)
	config.Add(r, "BoE", BoEOpts{EmbeddingDim: 64, HiddenDim: 64}, func(c config.Component, o BoEOpts, e modelEnv) (TextClassifier, error) {
		pad := PadID
		m := &BoE{}
		var err error
		if m.Embed, err = nn.NewEmbedding(nn.EmbeddingOptions{NumEmbeddings: e.vocab, EmbeddingDim: o.EmbeddingDim, PaddingIdx: &pad}, e.r); err != nil {
			return nil, c.Errorf("%v", err)
		}
		if m.Hidden, err = nn.NewLinear(nn.LinearOptions{In: o.EmbeddingDim, Out: o.HiddenDim}, e.r); err != nil {
			return nil, c.Errorf("%v", err)
		}
		if m.Out, err = nn.NewLinear(nn.LinearOptions{In: o.HiddenDim, Out: e.classes}, e.r); err != nil {
			return nil, c.Errorf("%v", err)
		}
		return m, nil
	})
	config.Add(r, "TextCNN", TextCNNOpts{EmbeddingDim: 64, NumFilters: 64, Widths: []int{3, 4, 5}}, func(c config.Component, o TextCNNOpts, e modelEnv) (TextClassifier, error) {
		pad := PadID
		m := &TextCNN{}
		var err error
		if m.Embed, err = nn.NewEmbedding(nn.EmbeddingOptions{NumEmbeddings: e.vocab, EmbeddingDim: o.EmbeddingDim, PaddingIdx: &pad}, e.r); err != nil {
			return nil, c.Errorf("%v", err)
		}
		for _, w := range o.Widths {
			conv, err := nn.NewConv1D(nn.ConvOptions{InChannels: o.EmbeddingDim, OutChannels: o.NumFilters, KernelSize: []int{w}}, e.r)
			if err != nil {
				return nil, c.Errorf("%v", err)
			}
			m.Convs = append(m.Convs, conv)
			m.width = max(m.width, w)
		}
		if len(o.Widths) == 0 {
			return nil, c.Errorf("widths: want at least one window width")
		}
		if m.Out, err = nn.NewLinear(nn.LinearOptions{In: o.NumFilters * len(o.Widths), Out: e.classes}, e.r); err != nil {
			return nil, c.Errorf("%v", err)
		}
		return m, nil
	})
	config.Add(r, "Transformer", TransformerOpts{DModel: 64, NHead: 4, NumLayers: 2, Dropout: 0.1, Positions: "learned", Pooling: "mean"},
		func(c config.Component, o TransformerOpts, e modelEnv) (TextClassifier, error) {
			return newTransformer(c, o, e.vocab, e.classes, e.maxLen, e.r)
		})
	return r
}

// buildModel makes the model c names for a vocabulary of vocab units and
// texts of at most maxLen units.
func buildModel(c config.Component, vocab, classes, maxLen int, r *rand.Rand) (TextClassifier, error) {
	return models.Build(c, modelEnv{vocab, classes, maxLen, r})
}

// Params returns the embedding, convolutions and output layer.
func (m *TextCNN) Params() []nn.Param {
	ps := nn.Prefix("embed", m.Embed.Params())
	for i, c := range m.Convs {
		ps = append(ps, nn.Prefix(fmt.Sprintf("convs.%d", i), c.Params())...)
	}
	return append(ps, nn.Prefix("out", m.Out.Params())...)
}

// MinLen is the widest window.
func (m *TextCNN) MinLen() int { return m.width }

// Logits maps ids (N, L) to (N, classes).
func (m *TextCNN) Logits(ids *ag.Var, training bool) *ag.Var {
	x := ag.Transpose(m.Embed.Forward(ids, training), 0, 2, 1) // (N, D, L)
	pooled := make([]*ag.Var, len(m.Convs))
	for i, c := range m.Convs {
		h := ag.Relu(conv1d(c, x))             // (N, F, L-w+1)
		pooled[i] = ag.Max(h, []int{2}, false) // (N, F)
	}
	return m.Out.Forward(ag.Concat(1, pooled...), training)
}

// Params returns the embedding and both linear layers.
func (m *BoE) Params() []nn.Param {
	ps := nn.Prefix("embed", m.Embed.Params())
	ps = append(ps, nn.Prefix("hidden", m.Hidden.Params())...)
	return append(ps, nn.Prefix("out", m.Out.Params())...)
}

// MinLen is 1.
func (m *BoE) MinLen() int { return 1 }

// Logits maps ids (N, L) to (N, classes): the sum of the embeddings over
// the length of each text (padding rows are zero) divided by that length.
// The length is counted with ops, so an exported graph computes it too.
func (m *BoE) Logits(ids *ag.Var, training bool) *ag.Var {
	e := m.Embed.Forward(ids, training)              // (N, L, D)
	keep := notPad(ids)                              // (N, L)
	n := ag.ClipMin(ag.Sum(keep, []int{1}, true), 1) // (N, 1)
	s := ag.Div(ag.Sum(e, []int{1}, false), n)       // (N, D)
	return m.Out.Forward(ag.Relu(m.Hidden.Forward(s, training)), training)
}

// notPad is 1 where ids (N, L) is not PadID, else 0, as float32 (N, L).
func notPad(ids *ag.Var) *ag.Var {
	return ag.Cast(ag.Greater(ids, ag.Scalar(ids, PadID)), tensor.Float32)
}

// conv1d is c.Forward written with Unsqueeze/Squeeze instead of ag.Conv1D's
// reshapes, which fix the batch and length while tracing: the exported
// graph keeps both dynamic. x: (N, D, L) → (N, F, L-w+1); stride 1, no padding.
func conv1d(c *nn.Conv1D, x *ag.Var) *ag.Var {
	y := ag.Conv2D(ag.Unsqueeze(x, 2), ag.Unsqueeze(c.Weight, 2), c.Bias, op.ConvParams{Strides: []int{1, 1}, Dilations: []int{1, 1}, Groups: 1})
	return ag.Squeeze(y, 2)
}
