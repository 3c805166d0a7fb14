package nlp

import (
	"fmt"
	"math/rand/v2"

	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/nn"
	"paddle/core/tensor"
)

// Taggers (Model.name in a tagging config):
//
//	BiLSTMCRF      word (+ char-CNN) embeddings → BiLSTM → linear → CRF (Lample et al. 2016)
//	TransformerCRF word (+ char-CNN) embeddings → linear to d_model + learned positions →
//	               pre-LN Transformer encoder → linear → CRF
//
// The char features (char_dim > 0) are a character CNN per word (Ma & Hovy
// 2016, https://arxiv.org/abs/1603.01354): char embeddings → convolution over
// char windows (same padding) → ReLU → max over the word's characters,
// concatenated to the word embedding. With use_crf: false the emissions are trained with token
// cross-entropy and decoded by argmax.

// TaggerCommon are the options both taggers share.
type TaggerCommon struct {
	EmbeddingDim int     `yaml:"embedding_dim"` // word embedding size (default 100)
	Dropout      float64 `yaml:"dropout"`       // on the embeddings and the encoder output
	CharDim      int     `yaml:"char_dim"`      // char embedding size; 0: no char features
	CharFilters  int     `yaml:"char_filters"`  // char CNN filters (default 50)
	CharWidth    int     `yaml:"char_width"`    // char CNN window (default 3)
	MaxWordLen   int     `yaml:"max_word_len"`  // chars kept per word (default 20)
	UseCRF       *bool   `yaml:"use_crf"`       // default true
}

// BiLSTMCRFOptions configure BiLSTMCRF.
type BiLSTMCRFOptions struct {
	TaggerCommon `yaml:",inline"`
	HiddenSize   int `yaml:"hidden_size"` // per direction (default 128)
	NumLayers    int `yaml:"num_layers"`  // default 1
}

// TransformerCRFOptions configure TransformerCRF.
type TransformerCRFOptions struct {
	TaggerCommon   `yaml:",inline"`
	DModel         int `yaml:"d_model"`         // default 128
	NHead          int `yaml:"nhead"`           // default 4
	NumLayers      int `yaml:"num_layers"`      // default 2
	DimFeedforward int `yaml:"dim_feedforward"` // default 4·d_model
	MaxPositions   int `yaml:"max_positions"`   // learned positions; later ones share the last (default 512)
}

// Tagger is a sequence labeller: Emissions gives per-token tag scores, the
// CRF (nil without use_crf) scores tag transitions.
type Tagger struct {
	Name     string
	Word     *nn.Embedding
	Char     *nn.Embedding // nil without char features
	CharConv *nn.Conv2D    // (1, width) windows over each word's chars
	LSTM     *nn.LSTM      // BiLSTMCRF
	In       *nn.Linear
	Pos      *nn.Embedding // TransformerCRF
	Encoder  *nn.TransformerEncoder
	Out      *nn.Linear
	CRF      *nn.CRF
	drop     *nn.Dropout
	maxPos   int
	wordLen  int
}

func (c *TaggerCommon) defaults() {
	if c.EmbeddingDim == 0 {
		c.EmbeddingDim = 100
	}
	if c.CharFilters == 0 {
		c.CharFilters = 50
	}
	if c.CharWidth == 0 {
		c.CharWidth = 3
	}
	if c.MaxWordLen == 0 {
		c.MaxWordLen = 20
	}
}

// taggerEnv is what a tagger is built for: word and char vocabularies of
// words and chars entries, tags tags.
type taggerEnv struct {
	words, chars, tags int
	r                  *rand.Rand
}

// taggers are the taggers a tagging config's Model.name can choose: each
// gives its common options and its encoder, which newTagger puts between
// the embeddings and the output layer.
var taggers = newTaggers()

// encoder adds a tagger's encoder to m over featDim features and returns its width.
type encoder func(m *Tagger, featDim int, dropout float64, r *rand.Rand) (int, error)

func newTaggers() *config.Registry[taggerEnv, *Tagger] {
	reg := config.NewRegistry[taggerEnv, *Tagger]("tagger")
	config.Add(reg, "BiLSTMCRF", BiLSTMCRFOptions{}, func(c config.Component, bl BiLSTMCRFOptions, e taggerEnv) (*Tagger, error) {
		return newTagger(c, &bl.TaggerCommon, e, func(m *Tagger, featDim int, _ float64, r *rand.Rand) (int, error) {
			if bl.HiddenSize == 0 {
				bl.HiddenSize = 128
			}
			var err error
			m.LSTM, err = nn.NewLSTM(nn.RNNOptions{InputSize: featDim, HiddenSize: bl.HiddenSize, NumLayers: max(bl.NumLayers, 1),
				Bidirectional: true, BatchFirst: true}, r)
			return 2 * bl.HiddenSize, err
		})
	})
	config.Add(reg, "TransformerCRF", TransformerCRFOptions{}, func(c config.Component, tf TransformerCRFOptions, e taggerEnv) (*Tagger, error) {
		return newTagger(c, &tf.TaggerCommon, e, func(m *Tagger, featDim int, dropout float64, r *rand.Rand) (int, error) {
			if tf.DModel == 0 {
				tf.DModel = 128
			}
			if tf.NHead == 0 {
				tf.NHead = 4
			}
			if tf.NumLayers == 0 {
				tf.NumLayers = 2
			}
			if tf.DimFeedforward == 0 {
				tf.DimFeedforward = 4 * tf.DModel
			}
			if tf.MaxPositions == 0 {
				tf.MaxPositions = 512
			}
			m.maxPos = tf.MaxPositions
			var err error
			if m.In, err = nn.NewLinear(nn.LinearOptions{In: featDim, Out: tf.DModel}, r); err != nil {
				return 0, err
			}
			if m.Pos, err = nn.NewEmbedding(nn.EmbeddingOptions{NumEmbeddings: tf.MaxPositions, EmbeddingDim: tf.DModel}, r); err != nil {
				return 0, err
			}
			nn.Normal(r, m.Pos.Weight.T, 0, 0.02)
			m.Encoder, err = nn.NewTransformerEncoder(nn.TransformerEncoderLayerOptions{DModel: tf.DModel, NHead: tf.NHead,
				DimFeedforward: tf.DimFeedforward, Dropout: dropout, Activation: "gelu", NormFirst: true}, tf.NumLayers, true, r)
			return tf.DModel, err
		})
	})
	return reg
}

// buildTagger makes the tagger a Model component names, for a word
// vocabulary of words entries, chars char entries and tags tags.
func buildTagger(c config.Component, words, chars, tags int, r *rand.Rand) (*Tagger, error) {
	return taggers.Build(c, taggerEnv{words, chars, tags, r})
}

// newTagger builds the parts every tagger has (embeddings, char
// convolution, dropout, output layer, CRF) around the encoder enc adds.
func newTagger(c config.Component, common *TaggerCommon, e taggerEnv, enc encoder) (*Tagger, error) {
	words, chars, tags, r := e.words, e.chars, e.tags, e.r
	common.defaults()
	m := &Tagger{Name: c.Name, wordLen: common.MaxWordLen}
	var err error
	wrap := func(err error) error { return c.Errorf("%v", err) }
	pad := 0
	if m.Word, err = nn.NewEmbedding(nn.EmbeddingOptions{NumEmbeddings: words, EmbeddingDim: common.EmbeddingDim, PaddingIdx: &pad}, r); err != nil {
		return nil, wrap(err)
	}
	featDim := common.EmbeddingDim
	if common.CharDim > 0 {
		if m.Char, err = nn.NewEmbedding(nn.EmbeddingOptions{NumEmbeddings: chars, EmbeddingDim: common.CharDim, PaddingIdx: &pad}, r); err != nil {
			return nil, wrap(err)
		}
		w := common.CharWidth
		if w%2 == 0 {
			return nil, c.Errorf("char_width %d must be odd (same padding)", w)
		}
		if m.CharConv, err = nn.NewConv2D(nn.ConvOptions{InChannels: common.CharDim, OutChannels: common.CharFilters,
			KernelSize: []int{1, w}, Padding: []int{0, w / 2}}, r); err != nil {
			return nil, wrap(err)
		}
		featDim += common.CharFilters
	}
	if m.drop, err = nn.NewDropout(nn.DropoutOptions{P: common.Dropout}, r); err != nil {
		return nil, wrap(err)
	}
	encDim, err := enc(m, featDim, common.Dropout, r)
	if err != nil {
		return nil, wrap(err)
	}
	if m.Out, err = nn.NewLinear(nn.LinearOptions{In: encDim, Out: tags}, r); err != nil {
		return nil, wrap(err)
	}
	if common.UseCRF == nil || *common.UseCRF {
		if m.CRF, err = nn.NewCRF(tags, r); err != nil {
			return nil, wrap(err)
		}
	}
	return m, nil
}

// Params returns every part's parameters under its field name.
func (m *Tagger) Params() []nn.Param {
	var ps []nn.Param
	add := func(name string, mod nn.Module) {
		if mod != nil {
			ps = append(ps, nn.Prefix(name, mod.Params())...)
		}
	}
	add("word", m.Word)
	if m.Char != nil {
		add("char", m.Char)
		add("char_conv", m.CharConv)
	}
	if m.LSTM != nil {
		add("lstm", m.LSTM)
	}
	if m.Encoder != nil {
		add("in", m.In)
		add("pos", m.Pos)
		add("encoder", m.Encoder)
	}
	add("out", m.Out)
	if m.CRF != nil {
		add("crf", m.CRF)
	}
	return ps
}

// UsesChars reports whether the model reads char ids.
func (m *Tagger) UsesChars() bool { return m.Char != nil }

// Emissions maps word ids (N, T) and char ids (N, T, C) (nil without char
// features) to tag scores (N, T, K). lengths (N) masks padding in the
// encoder (nil: every sequence is T long, as in an export).
func (m *Tagger) Emissions(words, chars *ag.Var, lengths []int, training bool) *ag.Var {
	x := m.Word.Forward(words, training) // (N, T, E)
	if m.Char != nil {
		// no reshape that merges N and T, so an export keeps both dynamic:
		// the chars are a (T, C) image per sentence with Dc channels
		c := ag.Transpose(m.Char.Forward(chars, training), 0, 3, 1, 2) // (N, Dc, T, C)
		h := ag.Relu(m.CharConv.Forward(c, training))                  // (N, F, T, C)
		f := ag.Max(h, []int{3}, false)                                // (N, F, T)
		x = ag.Concat(2, x, ag.Transpose(f, 0, 2, 1))
	}
	x = m.drop.Forward(x, training)
	var h *ag.Var
	if m.LSTM != nil {
		var err error
		if h, _, _, err = m.LSTM.Run(x, nil, nil, lengths, training); err != nil {
			panic(err) // shapes come from our own collate: a bug
		}
	} else {
		// positions 0..T-1 counted with ops (cumsum of ones), so an export
		// keeps a dynamic length; past max_positions they share the last row
		ones := ag.Cast(ag.GreaterEqual(words, ag.Scalar(words, 0)), tensor.Int64)
		pos := ag.Clip(ag.Cumsum(ones, 1, true, false), 0, float64(m.maxPos-1))
		h = ag.Add(m.In.Forward(x, training), m.Pos.Forward(pos, training))
		var mask nn.AttentionMask
		if lengths != nil {
			n, t := words.Shape()[0], words.Shape()[1]
			kp := tensor.New(tensor.Bool, n, t)
			for b, l := range lengths {
				for j := l; j < t; j++ {
					kp.SetAt(1, b, j)
				}
			}
			mask.KeyPadding = kp
		}
		h = m.Encoder.Forward(h, mask, training)
	}
	return m.Out.Forward(m.drop.Forward(h, training), training)
}

// Decode returns the best tag path of each sequence of emissions (N, T, K):
// Viterbi under the CRF, or per-token argmax without one.
func (m *Tagger) Decode(em *tensor.Tensor, lengths []int) [][]int {
	if m.CRF != nil {
		return m.CRF.Decode(em, lengths)
	}
	return argmaxPaths(em, lengths)
}

func argmaxPaths(em *tensor.Tensor, lengths []int) [][]int {
	n, t, k := em.Dims3()
	v := em.Contiguous().Float64s()
	out := make([][]int, n)
	for b := range n {
		l := min(lengths[b], t)
		out[b] = make([]int, l)
		for i := range l {
			row := v[(b*t+i)*k : (b*t+i+1)*k]
			best := 0
			for j, x := range row {
				if x > row[best] {
					best = j
				}
			}
			out[b][i] = best
		}
	}
	return out
}

func (m *Tagger) String() string { return fmt.Sprintf("%s(%d params)", m.Name, nn.NumParams(m)) }
