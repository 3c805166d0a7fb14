package speech

import (
	"fmt"
	"math/rand/v2"

	"paddle/core/ag"
	"paddle/core/nn"
)

// TCNOptions configure an MDTC-like temporal convolution network (after
// Hou et al. 2021, "Multi-scale dilated temporal convolution for keyword
// spotting", https://arxiv.org/abs/2102.13552): the mel bins are the
// channels of 1-D convolutions over time; residual blocks with growing
// dilation see wider and wider contexts, and the classifier reads the sum
// of every block's time-averaged output (the multi-scale part). Unlike
// MDTC the convolutions are full, not depthwise-separable: on this CPU
// engine GEMM-shaped convolutions are several times faster per
// multiply-add than depthwise ones on short sequences.
type TCNOptions struct {
	Channels  int     `yaml:"channels"`  // feature maps (64)
	Kernel    int     `yaml:"kernel"`    // temporal kernel of the blocks (5)
	Dilations []int   `yaml:"dilations"` // one block each ([1, 2, 4, 8])
	Stride    int     `yaml:"stride"`    // stride of the first conv over time (2)
	Dropout   float64 `yaml:"dropout"`   // before the classifier (0.2)
}

// TCN is the network. Input (N, 1, T, F) log-mel frames, output (N, classes).
type TCN struct {
	pre     *nn.Conv1D
	preBN   *nn.BatchNorm
	convs   []*nn.Conv1D
	bns     []*nn.BatchNorm
	fc      *nn.Linear
	dropout float64
	rng     *rand.Rand
}

var _ nn.Layer = (*TCN)(nil)

func newTCN(o TCNOptions, mels, classes int, r *rand.Rand) (*TCN, error) {
	if o.Channels == 0 {
		o.Channels = 64
	}
	if o.Kernel == 0 {
		o.Kernel = 5
	}
	if o.Dilations == nil {
		o.Dilations = []int{1, 2, 4, 8}
	}
	if o.Stride == 0 {
		o.Stride = 2
	}
	if o.Channels < 1 || o.Kernel < 1 || o.Stride < 1 || mels < 1 || classes < 1 || len(o.Dilations) == 0 {
		return nil, fmt.Errorf("TCN: channels, kernel, stride, dilations and classes must be positive")
	}
	c := o.Channels
	m := &TCN{dropout: o.Dropout, rng: rand.New(rand.NewPCG(r.Uint64(), 5))}
	var err error
	if m.pre, err = nn.NewConv1D(nn.ConvOptions{InChannels: mels, OutChannels: c, KernelSize: []int{3}, Stride: []int{o.Stride}, Padding: []int{1}, NoBias: true}, r); err != nil {
		return nil, fmt.Errorf("TCN: %w", err)
	}
	m.preBN, _ = nn.NewBatchNorm1D(nn.BatchNormOptions{NumFeatures: c})
	for _, d := range o.Dilations {
		if d < 1 {
			return nil, fmt.Errorf("TCN: dilation %d must be positive", d)
		}
		pad := d * (o.Kernel - 1) / 2
		cv, err := nn.NewConv1D(nn.ConvOptions{InChannels: c, OutChannels: c, KernelSize: []int{o.Kernel}, Dilation: []int{d},
			Padding: []int{pad, d*(o.Kernel-1) - pad}, NoBias: true}, r)
		if err != nil {
			return nil, fmt.Errorf("TCN: %w", err)
		}
		bn, _ := nn.NewBatchNorm1D(nn.BatchNormOptions{NumFeatures: c})
		m.convs, m.bns = append(m.convs, cv), append(m.bns, bn)
	}
	if m.fc, err = nn.NewLinear(nn.LinearOptions{In: c, Out: classes}, r); err != nil {
		return nil, err
	}
	return m, nil
}

// Params returns pre.*, pre_bn.*, blocks.<i>.{conv,bn}.*, fc.*.
func (m *TCN) Params() []nn.Param {
	out := nn.Collect("pre", m.pre, "pre_bn", m.preBN)
	for i := range m.convs {
		out = append(out, nn.Prefix(fmt.Sprintf("blocks.%d", i), nn.Collect("conv", m.convs[i], "bn", m.bns[i]))...)
	}
	return append(out, nn.Collect("fc", m.fc)...)
}

// Buffers returns the batch norms' running statistics.
func (m *TCN) Buffers() []nn.Param {
	out := nn.CollectBuffers("pre_bn", m.preBN)
	for i := range m.bns {
		out = append(out, nn.Prefix(fmt.Sprintf("blocks.%d", i), nn.CollectBuffers("bn", m.bns[i]))...)
	}
	return out
}

// Forward maps log-mel features x (N, 1, T, F) to logits (N, classes).
func (m *TCN) Forward(x *ag.Var, training bool) *ag.Var {
	s := x.Shape()
	x = ag.Transpose(ag.Reshape(x, s[0], s[2], s[3]), 0, 2, 1) // (N, F, T): mel bins as channels
	x = ag.Relu(m.preBN.Forward(m.pre.Forward(x, training), training))
	var sum *ag.Var
	for i := range m.convs {
		y := m.bns[i].Forward(m.convs[i].Forward(x, training), training)
		x = ag.Relu(ag.Add(x, y))
		p := ag.Mean(x, []int{2}, false) // (N, C)
		if sum == nil {
			sum = p
		} else {
			sum = ag.Add(sum, p)
		}
	}
	if training && m.dropout > 0 {
		sum = ag.Dropout(sum, m.dropout, true, m.rng)
	}
	return m.fc.Forward(sum, training)
}
