package rectrain

import (
	"fmt"
	"math/rand/v2"

	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/nn"
	"paddle/core/zoo"
)

// MiniVGG is the CRNN backbone: stages of conv3×3-BN-ReLU blocks, each
// followed by max pooling; the height left at the end is averaged away.
type MiniVGG struct {
	stages [][]*zoo.ConvBN
	pools  []*nn.MaxPool2D
	out    int
}

// NewMiniVGG builds the backbone.
func NewMiniVGG(o MiniVGGOpts, r *rand.Rand) (*MiniVGG, error) {
	if o.InChannels == 0 {
		o.InChannels = 3
	}
	if len(o.Channels) == 0 {
		o.Channels = []int{32, 64, 128, 128}
	}
	if len(o.Pools) == 0 {
		o.Pools = [][]int{{2, 2}, {2, 2}, {2, 1}, {2, 1}}
	}
	if len(o.Pools) != len(o.Channels) || len(o.Convs) != 0 && len(o.Convs) != len(o.Channels) {
		return nil, fmt.Errorf("MiniVGG: channels (%d), pools (%d) and convs (%d) must have one entry per stage", len(o.Channels), len(o.Pools), len(o.Convs))
	}
	m := &MiniVGG{out: o.Channels[len(o.Channels)-1]}
	in := o.InChannels
	for i, ch := range o.Channels {
		n := 1
		if len(o.Convs) > 0 {
			n = o.Convs[i]
		}
		var st []*zoo.ConvBN
		for range max(n, 1) {
			c, err := zoo.NewConvBN(in, ch, 3, 1, 1, "relu", r)
			if err != nil {
				return nil, fmt.Errorf("MiniVGG stage %d: %w", i, err)
			}
			st = append(st, c)
			in = ch
		}
		m.stages = append(m.stages, st)
		p := o.Pools[i]
		if len(p) != 2 || p[0] < 1 || p[1] < 1 {
			return nil, fmt.Errorf("MiniVGG: pools[%d] = %v, want [kh, kw] ≥ 1", i, p)
		}
		if p[0] == 1 && p[1] == 1 {
			m.pools = append(m.pools, nil)
			continue
		}
		pool, err := nn.NewMaxPool2D(nn.PoolOptions{KernelSize: p, Stride: p})
		if err != nil {
			return nil, err
		}
		m.pools = append(m.pools, pool)
	}
	return m, nil
}

// Params names weights stages.<i>.<j>.{conv,bn}.
func (m *MiniVGG) Params() []nn.Param {
	var ps []nn.Param
	for i, st := range m.stages {
		for j, c := range st {
			ps = append(ps, nn.Prefix(fmt.Sprintf("stages.%d.%d", i, j), c.Params())...)
		}
	}
	return ps
}

// Buffers returns the batch-norm statistics.
func (m *MiniVGG) Buffers() []nn.Param {
	var ps []nn.Param
	for i, st := range m.stages {
		for j, c := range st {
			ps = append(ps, nn.Prefix(fmt.Sprintf("stages.%d.%d", i, j), c.Buffers())...)
		}
	}
	return ps
}

// Forward maps x (N, C, H, W) to (N, C', 1, W').
func (m *MiniVGG) Forward(x *ag.Var, training bool) *ag.Var {
	for i, st := range m.stages {
		for _, c := range st {
			x = c.Forward(x, training)
		}
		if m.pools[i] != nil {
			x = m.pools[i].Forward(x, training)
		}
	}
	if x.Shape()[2] > 1 {
		x = ag.Mean(x, []int{2}, true)
	}
	return x
}

func (m *MiniVGG) outChannels() int { return m.out }

// Backbone is a recognition backbone: images (N, C, H, W) to features
// (N, C', 1, T).
type Backbone interface {
	nn.Module
	Buffers() []nn.Param
	Forward(x *ag.Var, training bool) *ag.Var
	outChannels() int
}

// CRNN is the CTC recogniser: backbone (MiniVGG, MobileNetV3, or SVTRNet for SVTR) →
// Im2Seq → optional BiLSTM (SequenceEncoder) → linear CTC head.
type CRNN struct {
	Transform *STN // nil without Architecture.Transform
	Backbone  Backbone
	LSTM      *nn.LSTM   // nil for encoder_type reshape
	Mid       *nn.Linear // nil unless mid_channels
	FC        *nn.Linear // to the classes
	Classes   int
}

// Recognizer is a trainable recogniser: images (N, C, H, W) to logits (T, N, K).
type Recognizer interface {
	nn.Module
	Buffers() []nn.Param
	Forward(x *ag.Var, training bool) *ag.Var
}

// buildModel assembles the Architecture section for numClasses classes.
func buildModel(a ArchOpts, numClasses int, r *rand.Rand) (Recognizer, error) {
	if a.Backbone.Name == "ONNXModel" {
		return buildImported(a, numClasses)
	}
	m, err := buildCRNN(a, numClasses, r)
	if err != nil {
		return nil, err
	}
	return paddleCRNN(m), nil
}

// buildImported loads an ONNXModel backbone, the whole network.
func buildImported(a ArchOpts, numClasses int) (Recognizer, error) {
	if a.Neck.Name != "" || a.Head.Name != "" {
		return nil, a.Backbone.Errorf("Backbone ONNXModel is the whole network: leave Neck and Head empty")
	}
	var o ONNXModelOpts
	if err := a.Backbone.Decode(&o); err != nil {
		return nil, err
	}
	m, err := newImportedRec(o)
	if err != nil {
		return nil, a.Backbone.Errorf("%v", err)
	}
	if k := m.classes(); k > 0 && k != numClasses {
		return nil, a.Backbone.Errorf("%s gives %d classes but the dictionary %d (blank + entries + space): check Global.character_dict_path and use_space_char", m.file, k, numClasses)
	}
	return m, nil
}

// algorithms are the Architecture.algorithm values this trainer builds.
var algorithms = config.NameSet("CRNN", "SVTR", "SVTR_LCNet")

// backbones are the trainable Architecture.Backbone networks (an
// ONNXModel backbone is the whole network: buildImported).
var backbones = newBackbones()

func newBackbones() *config.Registry[*rand.Rand, Backbone] {
	reg := config.NewRegistry[*rand.Rand, Backbone]("backbone")
	config.Add(reg, "MiniVGG", MiniVGGOpts{}, func(c config.Component, o MiniVGGOpts, r *rand.Rand) (Backbone, error) {
		b, err := NewMiniVGG(o, r)
		if err != nil {
			return nil, c.Errorf("%v", err)
		}
		return b, nil
	})
	config.Add(reg, "MobileNetV3", MobileNetV3Opts{}, func(c config.Component, o MobileNetV3Opts, r *rand.Rand) (Backbone, error) {
		b, err := NewMobileNetV3(o, r)
		if err != nil {
			return nil, c.Errorf("%v", err)
		}
		return b, nil
	})
	config.Add(reg, "SVTRNet", SVTRNetOpts{}, func(c config.Component, o SVTRNetOpts, r *rand.Rand) (Backbone, error) {
		if o.PaddleLayers {
			b, err := NewPaddleSVTRNet(o, r)
			if err != nil {
				return nil, c.Errorf("%v", err)
			}
			return b, nil
		}
		b, err := NewSVTRNet(o, r)
		if err != nil {
			return nil, c.Errorf("%v", err)
		}
		return b, nil
	})
	return reg
}

// encoders are the SequenceEncoder.encoder_type values: each adds its part
// to m over feat features and returns the features it gives the head.
var encoders = new(config.Choices[func(m *CRNN, feat int, o SequenceEncoderOpts, r *rand.Rand) (int, error)]).
	Add("rnn", func(m *CRNN, feat int, o SequenceEncoderOpts, r *rand.Rand) (int, error) {
		var err error
		m.LSTM, err = nn.NewLSTM(nn.RNNOptions{InputSize: feat, HiddenSize: o.HiddenSize, NumLayers: o.NumLayers, Bidirectional: true}, r)
		return 2 * o.HiddenSize, err
	}).
	Add("reshape", func(_ *CRNN, feat int, _ SequenceEncoderOpts, _ *rand.Rand) (int, error) { return feat, nil })

// buildCRNN assembles backbone, neck and head.
func buildCRNN(a ArchOpts, numClasses int, r *rand.Rand) (*CRNN, error) {
	if a.ModelType != "" && a.ModelType != "rec" {
		return nil, a.Backbone.Errorf("Architecture.model_type %q: only rec is trainable here (det training is not implemented)", a.ModelType)
	}
	if _, ok := algorithms.Get(a.Algorithm); a.Algorithm != "" && !ok {
		return nil, a.Backbone.Errorf("Architecture.algorithm %q: known %s", a.Algorithm, algorithms.Known())
	}
	m := &CRNN{Classes: numClasses}
	var err error
	if a.Transform.Name != "" {
		var so STNOpts
		if err := decodeNamed(a.Transform, "STN_ON", &so); err != nil {
			return nil, err
		}
		if m.Transform, err = NewSTN(so, r); err != nil {
			return nil, a.Transform.Errorf("%v", err)
		}
	}
	if m.Backbone, err = backbones.Build(a.Backbone, r); err != nil {
		return nil, err
	}
	if b, fixed := m.Backbone.(*PaddleSVTRNet); fixed && m.Transform != nil && m.Transform.OutputSize() != b.imgSize {
		return nil, a.Transform.Errorf("STN_ON.tps_outputsize %v: the backbone takes %v images exactly (its img_size)", m.Transform.OutputSize(), b.imgSize)
	}
	feat := m.Backbone.outChannels()
	no := SequenceEncoderOpts{EncoderType: "rnn", HiddenSize: 48, NumLayers: 2}
	if err := decodeNamed(a.Neck, "SequenceEncoder", &no); err != nil {
		return nil, err
	}
	encode, ok := encoders.Get(no.EncoderType)
	if !ok {
		return nil, a.Neck.Errorf("SequenceEncoder.encoder_type %q (known: %s)", no.EncoderType, encoders.Known())
	}
	if feat, err = encode(m, feat, no, r); err != nil {
		return nil, a.Neck.Errorf("%v", err)
	}
	var ho CTCHeadOpts
	if err := decodeNamed(a.Head, "CTCHead", &ho); err != nil {
		return nil, err
	}
	if ho.MidChannels > 0 {
		if m.Mid, err = nn.NewLinear(nn.LinearOptions{In: feat, Out: ho.MidChannels}, r); err != nil {
			return nil, err
		}
		feat = ho.MidChannels
	}
	if m.FC, err = nn.NewLinear(nn.LinearOptions{In: feat, Out: numClasses}, r); err != nil {
		return nil, err
	}
	return m, nil
}

// decodeNamed checks a component's name and decodes its options.
func decodeNamed(c config.Component, want string, v any) error {
	if c.Name != want {
		return c.Errorf("unknown %q (known: %s)", c.Name, want)
	}
	return c.Decode(v)
}

// Params lists transform.* (with STN_ON), backbone.*, neck.lstm.*,
// head.fc.* (and head.mid.*).
func (m *CRNN) Params() []nn.Param {
	var ps []nn.Param
	if m.Transform != nil {
		ps = nn.Prefix("transform", m.Transform.Params())
	}
	ps = append(ps, nn.Prefix("backbone", m.Backbone.Params())...)
	if m.LSTM != nil {
		ps = append(ps, nn.Prefix("neck.lstm", m.LSTM.Params())...)
	}
	if m.Mid != nil {
		ps = append(ps, nn.Prefix("head.mid", m.Mid.Params())...)
	}
	return append(ps, nn.Prefix("head.fc", m.FC.Params())...)
}

// Buffers returns the transform's and the backbone's batch-norm statistics.
func (m *CRNN) Buffers() []nn.Param {
	var ps []nn.Param
	if m.Transform != nil {
		ps = nn.Prefix("transform", m.Transform.Buffers())
	}
	return append(ps, nn.Prefix("backbone", m.Backbone.Buffers())...)
}

// Forward maps images x (N, C, H, W) to class logits (T, N, K), T = W'.
func (m *CRNN) Forward(x *ag.Var, training bool) *ag.Var {
	if m.Transform != nil {
		x = m.Transform.Forward(x, training) // rectified to tps_outputsize
	}
	f := m.Backbone.Forward(x, training)           // (N, C', 1, T)
	seq := ag.Transpose(ag.Squeeze(f, 2), 2, 0, 1) // (T, N, C'); a squeeze keeps T dynamic in an export
	if m.LSTM != nil {
		seq = m.LSTM.Forward(seq, training) // (T, N, 2H)
	}
	if m.Mid != nil {
		seq = m.Mid.Forward(seq, training)
	}
	return m.FC.Forward(seq, training) // (T, N, K)
}
