package speech

import (
	"fmt"
	"math/rand/v2"

	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/nn"
	"paddle/core/op"
)

// PANNsCNNOptions configure a small CNN of the PANNs family (Kong et al.
// 2020, "PANNs: Large-Scale Pretrained Audio Neural Networks for Audio
// Pattern Recognition", https://arxiv.org/abs/1912.10211): batch norm over
// the mel bins (bn0), blocks of convolutions (each with batch norm and
// ReLU) followed by 2x2 average pooling, the mean over frequency, the max
// plus the mean over time, and two linear layers. Cnn6 has one 5x5
// convolution per block, Cnn10 two 3x3; both shapes are options here, with
// far fewer channels than the 64…512 of the paper, so it trains on 2 CPU
// cores.
type PANNsCNNOptions struct {
	Channels      []int   `yaml:"channels"`        // feature maps per block ([16, 32, 64, 128])
	ConvsPerBlock int     `yaml:"convs_per_block"` // 1 (Cnn6-like) or 2 (Cnn10-like); default 1
	Kernel        int     `yaml:"kernel"`          // square kernel, odd (3)
	Hidden        int     `yaml:"hidden"`          // fc1 width (0: the last block's channels)
	Dropout       float64 `yaml:"dropout"`         // before fc1 and the classifier (0.2)
	NoBN0         bool    `yaml:"no_bn0"`          // skip the batch norm over mel bins
}

// PANNsCNN is the network: input (N, 1, T, F) log-mel frames, output
// (N, classes) logits. Any T and F of at least 2^blocks work.
type PANNsCNN struct {
	bn0     *nn.BatchNorm
	convs   [][]*nn.Conv2D
	bns     [][]*nn.BatchNorm
	fc1, fc *nn.Linear
	dropout float64
	rng     *rand.Rand
}

var _ nn.Layer = (*PANNsCNN)(nil)

func newPANNsCNN(o PANNsCNNOptions, mels, classes int, r *rand.Rand) (*PANNsCNN, error) {
	if o.Channels == nil {
		o.Channels = []int{16, 32, 64, 128}
	}
	if o.ConvsPerBlock == 0 {
		o.ConvsPerBlock = 1
	}
	if o.Kernel == 0 {
		o.Kernel = 3
	}
	if len(o.Channels) == 0 || o.ConvsPerBlock < 1 || o.Kernel < 1 || o.Kernel%2 == 0 || classes < 1 || mels < 1 {
		return nil, fmt.Errorf("PANNsCNN: channels must be non-empty, convs_per_block ≥ 1, kernel odd and positive (got %v, %d, %d)", o.Channels, o.ConvsPerBlock, o.Kernel)
	}
	if mels>>len(o.Channels) < 1 {
		return nil, fmt.Errorf("PANNsCNN: %d mel bins cannot be pooled %d times; use fewer blocks", mels, len(o.Channels))
	}
	m := &PANNsCNN{dropout: o.Dropout, rng: rand.New(rand.NewPCG(r.Uint64(), 5))}
	var err error
	if !o.NoBN0 {
		if m.bn0, err = nn.NewBatchNorm2D(nn.BatchNormOptions{NumFeatures: mels}); err != nil {
			return nil, err
		}
	}
	in := 1
	for _, c := range o.Channels {
		if c < 1 {
			return nil, fmt.Errorf("PANNsCNN: channels %v must be positive", o.Channels)
		}
		var convs []*nn.Conv2D
		var bns []*nn.BatchNorm
		for range o.ConvsPerBlock {
			cv, err := nn.NewConv2D(nn.ConvOptions{InChannels: in, OutChannels: c, KernelSize: []int{o.Kernel}, Padding: []int{o.Kernel / 2}, NoBias: true}, r)
			if err != nil {
				return nil, fmt.Errorf("PANNsCNN: %w", err)
			}
			bn, err := nn.NewBatchNorm2D(nn.BatchNormOptions{NumFeatures: c})
			if err != nil {
				return nil, err
			}
			convs, bns, in = append(convs, cv), append(bns, bn), c
		}
		m.convs, m.bns = append(m.convs, convs), append(m.bns, bns)
	}
	hidden := o.Hidden
	if hidden <= 0 {
		hidden = in
	}
	if m.fc1, err = nn.NewLinear(nn.LinearOptions{In: in, Out: hidden}, r); err != nil {
		return nil, err
	}
	if m.fc, err = nn.NewLinear(nn.LinearOptions{In: hidden, Out: classes}, r); err != nil {
		return nil, err
	}
	return m, nil
}

// Params returns bn0.*, blocks.<i>.conv<j>.*, blocks.<i>.bn<j>.*, fc1.*, fc.*.
func (m *PANNsCNN) Params() []nn.Param {
	var out []nn.Param
	if m.bn0 != nil {
		out = nn.Collect("bn0", m.bn0)
	}
	for i := range m.convs {
		for j := range m.convs[i] {
			out = append(out, nn.Prefix(fmt.Sprintf("blocks.%d", i), nn.Collect(fmt.Sprintf("conv%d", j), m.convs[i][j], fmt.Sprintf("bn%d", j), m.bns[i][j]))...)
		}
	}
	return append(out, nn.Collect("fc1", m.fc1, "fc", m.fc)...)
}

// Buffers returns the batch norms' running statistics.
func (m *PANNsCNN) Buffers() []nn.Param {
	var out []nn.Param
	if m.bn0 != nil {
		out = nn.CollectBuffers("bn0", m.bn0)
	}
	for i := range m.bns {
		for j := range m.bns[i] {
			out = append(out, nn.Prefix(fmt.Sprintf("blocks.%d", i), nn.CollectBuffers(fmt.Sprintf("bn%d", j), m.bns[i][j]))...)
		}
	}
	return out
}

// Forward maps log-mel features x (N, 1, T, F) to logits (N, classes).
func (m *PANNsCNN) Forward(x *ag.Var, training bool) *ag.Var {
	if m.bn0 != nil {
		// mel bins as channels: (N, 1, T, F) -> (N, F, T, 1) -> BN -> back
		x = ag.Transpose(m.bn0.Forward(ag.Transpose(x, 0, 3, 2, 1), training), 0, 3, 2, 1)
	}
	pool := op.PoolParams{Kernel: []int{2, 2}, Strides: []int{2, 2}}
	for i := range m.convs {
		for j := range m.convs[i] {
			x = ag.Relu(m.bns[i][j].Forward(m.convs[i][j].Forward(x, training), training))
		}
		x = ag.AvgPool2D(x, pool)
	}
	x = ag.Mean(x, []int{3}, false)                                     // over frequency: (N, C, T')
	x = ag.Add(ag.Max(x, []int{2}, false), ag.Mean(x, []int{2}, false)) // over time: (N, C)
	x = ag.Dropout(x, m.dropout, training, m.rng)
	x = ag.Relu(m.fc1.Forward(x, training))
	x = ag.Dropout(x, m.dropout, training, m.rng)
	return m.fc.Forward(x, training)
}

// clsArchs are the models an audio-classification config's `Arch.name`
// can choose.
var clsArchs = newClsArchs()

func newClsArchs() *config.Registry[archEnv, nn.Layer] {
	r := config.NewRegistry[archEnv, nn.Layer]("Arch")
	config.Add(r, "PANNsCNN", PANNsCNNOptions{Dropout: 0.2}, func(_ config.Component, o PANNsCNNOptions, e archEnv) (nn.Layer, error) {
		return newPANNsCNN(o, e.mels, e.classes, e.r)
	})
	return r
}

// buildClsModel makes the model Arch names for mels-bin features and classes classes.
func buildClsModel(c config.Component, mels, classes int, r *rand.Rand) (nn.Layer, error) {
	return clsArchs.Build(c, archEnv{mels, classes, r})
}
