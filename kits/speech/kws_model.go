package speech

import (
	"fmt"
	"math/rand/v2"

	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/nn"
)

// DSCNNOptions configure the depthwise-separable CNN keyword spotter of
// Zhang et al. 2017, "Hello Edge: Keyword Spotting on Microcontrollers"
// (https://arxiv.org/abs/1711.07128): a first convolution over the
// (time, mel) plane, then blocks of depthwise 3x3 + pointwise 1x1
// convolutions (each followed by batch norm and ReLU), global average
// pooling and a linear classifier.
type DSCNNOptions struct {
	Channels    int     `yaml:"channels"`     // feature maps in every layer (64)
	Blocks      int     `yaml:"blocks"`       // depthwise-separable blocks (4)
	FirstKernel []int   `yaml:"first_kernel"` // (time, freq) kernel of the first conv ([10, 4])
	FirstStride []int   `yaml:"first_stride"` // its stride ([2, 2])
	BlockStride []int   `yaml:"block_stride"` // stride of the first block's depthwise conv ([2, 2]); the others use 1
	Dropout     float64 `yaml:"dropout"`      // before the classifier (0.2)
}

// DSCNN is the network. Input (N, 1, T, F) log-mel frames, output (N, classes) logits.
type DSCNN struct {
	first   *nn.Conv2D
	firstBN *nn.BatchNorm
	dw, pw  []*nn.Conv2D
	dwBN    []*nn.BatchNorm
	pwBN    []*nn.BatchNorm
	fc      *nn.Linear
	dropout float64
	rng     *rand.Rand
}

var _ nn.Layer = (*DSCNN)(nil)

func newDSCNN(o DSCNNOptions, classes int, r *rand.Rand) (*DSCNN, error) {
	if o.Channels == 0 {
		o.Channels = 64
	}
	if o.Blocks == 0 {
		o.Blocks = 4
	}
	if o.FirstKernel == nil {
		o.FirstKernel = []int{10, 4}
	}
	if o.FirstStride == nil {
		o.FirstStride = []int{2, 2}
	}
	if o.BlockStride == nil {
		o.BlockStride = []int{2, 2}
	}
	if len(o.FirstKernel) != 2 || len(o.FirstStride) != 2 || len(o.BlockStride) != 2 || o.Channels < 1 || o.Blocks < 1 || classes < 1 {
		return nil, fmt.Errorf("DSCNN: first_kernel, first_stride and block_stride need 2 values; channels, blocks and classes must be positive")
	}
	c := o.Channels
	m := &DSCNN{dropout: o.Dropout, rng: rand.New(rand.NewPCG(r.Uint64(), 3))}
	var err error
	// "same"-style padding of the first conv: kernel-1 split (top, left, bottom, right)
	kt, kf := o.FirstKernel[0], o.FirstKernel[1]
	pad := []int{(kt - 1) / 2, (kf - 1) / 2, kt / 2, kf / 2}
	if m.first, err = nn.NewConv2D(nn.ConvOptions{InChannels: 1, OutChannels: c, KernelSize: o.FirstKernel, Stride: o.FirstStride, Padding: pad, NoBias: true}, r); err != nil {
		return nil, fmt.Errorf("DSCNN: %w", err)
	}
	if m.firstBN, err = nn.NewBatchNorm2D(nn.BatchNormOptions{NumFeatures: c}); err != nil {
		return nil, err
	}
	for i := range o.Blocks {
		st := []int{1, 1}
		if i == 0 {
			st = o.BlockStride
		}
		dw, err := nn.NewDepthwiseConv2D(nn.ConvOptions{InChannels: c, KernelSize: []int{3}, Stride: st, Padding: []int{1}, NoBias: true}, r)
		if err != nil {
			return nil, fmt.Errorf("DSCNN: %w", err)
		}
		pw, err := nn.NewConv2D(nn.ConvOptions{InChannels: c, OutChannels: c, KernelSize: []int{1}, NoBias: true}, r)
		if err != nil {
			return nil, fmt.Errorf("DSCNN: %w", err)
		}
		b1, _ := nn.NewBatchNorm2D(nn.BatchNormOptions{NumFeatures: c})
		b2, _ := nn.NewBatchNorm2D(nn.BatchNormOptions{NumFeatures: c})
		m.dw, m.pw, m.dwBN, m.pwBN = append(m.dw, dw), append(m.pw, pw), append(m.dwBN, b1), append(m.pwBN, b2)
	}
	if m.fc, err = nn.NewLinear(nn.LinearOptions{In: c, Out: classes}, r); err != nil {
		return nil, err
	}
	return m, nil
}

// Params returns first.*, first_bn.*, blocks.<i>.{dw,dw_bn,pw,pw_bn}.*, fc.*.
func (m *DSCNN) Params() []nn.Param {
	out := nn.Collect("first", m.first, "first_bn", m.firstBN)
	for i := range m.dw {
		out = append(out, nn.Prefix(fmt.Sprintf("blocks.%d", i), nn.Collect("dw", m.dw[i], "dw_bn", m.dwBN[i], "pw", m.pw[i], "pw_bn", m.pwBN[i]))...)
	}
	return append(out, nn.Collect("fc", m.fc)...)
}

// Buffers returns the batch norms' running statistics.
func (m *DSCNN) Buffers() []nn.Param {
	out := nn.CollectBuffers("first_bn", m.firstBN)
	for i := range m.dw {
		out = append(out, nn.Prefix(fmt.Sprintf("blocks.%d", i), nn.CollectBuffers("dw_bn", m.dwBN[i], "pw_bn", m.pwBN[i]))...)
	}
	return out
}

// Forward maps log-mel features x (N, 1, T, F) to logits (N, classes).
func (m *DSCNN) Forward(x *ag.Var, training bool) *ag.Var {
	x = ag.Relu(m.firstBN.Forward(m.first.Forward(x, training), training))
	for i := range m.dw {
		x = ag.Relu(m.dwBN[i].Forward(m.dw[i].Forward(x, training), training))
		x = ag.Relu(m.pwBN[i].Forward(m.pw[i].Forward(x, training), training))
	}
	x = ag.Flatten(ag.GlobalAvgPool(x), 1) // (N, C)
	if training && m.dropout > 0 {
		x = ag.Dropout(x, m.dropout, true, m.rng)
	}
	return m.fc.Forward(x, training)
}

// archEnv is what a model is built for: mels-bin features, classes classes.
type archEnv struct {
	mels, classes int
	r             *rand.Rand
}

// archs are the models a spotter config's `Arch.name` can choose.
var archs = newArchs()

func newArchs() *config.Registry[archEnv, nn.Layer] {
	r := config.NewRegistry[archEnv, nn.Layer]("Arch")
	config.Add(r, "DSCNN", DSCNNOptions{Dropout: 0.2}, func(_ config.Component, o DSCNNOptions, e archEnv) (nn.Layer, error) {
		return newDSCNN(o, e.classes, e.r)
	})
	config.Add(r, "TCN", TCNOptions{Dropout: 0.2}, func(_ config.Component, o TCNOptions, e archEnv) (nn.Layer, error) {
		return newTCN(o, e.mels, e.classes, e.r)
	})
	return r
}

// buildModel makes the model Arch names for mels-bin features and classes classes.
func buildModel(c config.Component, mels, classes int, r *rand.Rand) (nn.Layer, error) {
	return archs.Build(c, archEnv{mels, classes, r})
}
