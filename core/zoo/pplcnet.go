package zoo

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	"paddle/core/ag"
	"paddle/core/nn"
)

// PPLCNetOptions configure a PP-LCNet-style network (Cui et al. 2021,
// https://arxiv.org/abs/2109.15099): a 3x3 stem then depthwise separable
// blocks with hardswish, squeeze-excitation in the last blocks, global
// pooling, a 1x1 "last conv" of 1280 (scaled) channels and a classifier.
type PPLCNetOptions struct {
	Scale       float64 `yaml:"scale"`        // width multiplier (0.25 ... 2.5; default 1)
	InChannels  int     `yaml:"in_channels"`  // image channels
	ClassNum    int     `yaml:"class_num"`    // > 0 adds the head
	SmallInput  bool    `yaml:"small_input"`  // stride-1 stem and first stage (MNIST sizes)
	LastConv    int     `yaml:"class_expand"` // head width (default 1280)
	DropoutProb float64 `yaml:"dropout_prob"` // before the classifier (default 0.2)
}

// blockSpec is (kernel, in, out, stride, se) as in PaddleClas's NET_CONFIG.
type blockSpec struct {
	k, in, out, stride int
	se                 bool
}

var lcnetBlocks = [][]blockSpec{
	{{3, 16, 32, 1, false}},
	{{3, 32, 64, 2, false}, {3, 64, 64, 1, false}},
	{{3, 64, 128, 2, false}, {3, 128, 128, 1, false}},
	{{3, 128, 256, 2, false}, {5, 256, 256, 1, false}, {5, 256, 256, 1, false}, {5, 256, 256, 1, false}, {5, 256, 256, 1, false}, {5, 256, 256, 1, false}},
	{{5, 256, 512, 2, true}, {5, 512, 512, 1, true}},
}

// PPLCNet is the network.
type PPLCNet struct {
	Stem     *ConvBN
	Blocks   []*DepthwiseSeparable
	LastConv *nn.Conv2D
	Act      *nn.Activation
	Dropout  *nn.Dropout
	FC       *nn.Linear
	out      int
}

// NewPPLCNet builds a PP-LCNet from options; r draws the initial weights.
func NewPPLCNet(o PPLCNetOptions, r *rand.Rand) (*PPLCNet, error) {
	if o.Scale == 0 {
		o.Scale = 1
	}
	if o.InChannels == 0 {
		o.InChannels = 3
	}
	if o.LastConv == 0 {
		o.LastConv = 1280
	}
	if o.DropoutProb == 0 {
		o.DropoutProb = 0.2
	}
	ch := func(c int) int { return makeDivisible(float64(c) * o.Scale) }
	m := &PPLCNet{}
	stemStride := 2
	if o.SmallInput {
		stemStride = 1
	}
	var err error
	if m.Stem, err = NewConvBN(o.InChannels, ch(16), 3, stemStride, 1, "hardswish", r); err != nil {
		return nil, err
	}
	for si, stage := range lcnetBlocks {
		for _, b := range stage {
			stride := b.stride
			if o.SmallInput && si == 1 {
				stride = 1
			}
			blk, err := NewDepthwiseSeparable(ch(b.in), ch(b.out), b.k, stride, b.se, r)
			if err != nil {
				return nil, err
			}
			m.Blocks = append(m.Blocks, blk)
		}
	}
	m.out = ch(512)
	if o.ClassNum > 0 {
		if m.LastConv, err = nn.NewConv2D(nn.ConvOptions{InChannels: m.out, OutChannels: o.LastConv, KernelSize: []int{1}, NoBias: true}, r); err != nil {
			return nil, err
		}
		if m.Act, err = nn.NewActivation("hardswish"); err != nil {
			return nil, err
		}
		if m.Dropout, err = nn.NewDropout(nn.DropoutOptions{P: o.DropoutProb}, r); err != nil {
			return nil, err
		}
		if m.FC, err = nn.NewLinear(nn.LinearOptions{In: o.LastConv, Out: o.ClassNum}, r); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// MakeDivisible rounds channels to a multiple of 8, never below 90% of v:
// MobileNet's make_divisible, shared by the ports of Paddle's MobileNets.
func MakeDivisible(v float64) int { return makeDivisible(v) }

// makeDivisible rounds channels to a multiple of 8, never below 90% (MobileNet's rule).
func makeDivisible(v float64) int {
	n := max(8, int(v+4)/8*8)
	if float64(n) < 0.9*v {
		n += 8
	}
	return n
}

// Params returns stem.*, blocks.<i>.*, last_conv.*, fc.*.
func (m *PPLCNet) Params() []nn.Param {
	out := nn.Prefix("stem", m.Stem.Params())
	for i, b := range m.Blocks {
		out = append(out, nn.Prefix("blocks."+strconv.Itoa(i), b.Params())...)
	}
	if m.FC != nil {
		out = append(out, nn.Collect("last_conv", m.LastConv, "fc", m.FC)...)
	}
	return out
}

// Buffers returns the batch norms' running statistics.
func (m *PPLCNet) Buffers() []nn.Param {
	out := nn.Prefix("stem", m.Stem.Buffers())
	for i, b := range m.Blocks {
		out = append(out, nn.Prefix("blocks."+strconv.Itoa(i), b.Buffers())...)
	}
	return out
}

// Forward maps images (N, C, H, W) to logits (N, class_num), or to the last
// feature map (N, 512·scale, H/32, W/32) without a head.
func (m *PPLCNet) Forward(x *ag.Var, training bool) *ag.Var {
	x = m.Stem.Forward(x, training)
	for _, b := range m.Blocks {
		x = b.Forward(x, training)
	}
	if m.FC == nil {
		return x
	}
	n := x.Shape()[0]
	x = m.Act.Forward(m.LastConv.Forward(ag.GlobalAvgPool(x), training), training)
	x = m.Dropout.Forward(ag.Reshape(x, n, -1), training)
	return m.FC.Forward(x, training)
}

// DepthwiseSeparable is a depthwise k×k ConvBN (hardswish), an optional SE
// module, then a pointwise 1x1 ConvBN (hardswish).
type DepthwiseSeparable struct {
	DW, PW *ConvBN
	SE     *SEModule
}

// NewDepthwiseSeparable builds one PP-LCNet block.
func NewDepthwiseSeparable(in, out, k, stride int, se bool, r *rand.Rand) (*DepthwiseSeparable, error) {
	b := &DepthwiseSeparable{}
	var err error
	if b.DW, err = NewConvBN(in, in, k, stride, in, "hardswish", r); err != nil {
		return nil, fmt.Errorf("depthwise %d: %w", in, err)
	}
	if se {
		if b.SE, err = NewSEModule(in, 4, r); err != nil {
			return nil, err
		}
	}
	if b.PW, err = NewConvBN(in, out, 1, 1, 1, "hardswish", r); err != nil {
		return nil, err
	}
	return b, nil
}

// Params returns dw.*, se.*, pw.*.
func (b *DepthwiseSeparable) Params() []nn.Param {
	var se any
	if b.SE != nil {
		se = b.SE
	}
	return nn.Collect("dw", b.DW, "se", se, "pw", b.PW)
}

// Buffers returns the batch norms' running statistics.
func (b *DepthwiseSeparable) Buffers() []nn.Param { return nn.CollectBuffers("dw", b.DW, "pw", b.PW) }

// Forward applies the block.
func (b *DepthwiseSeparable) Forward(x *ag.Var, training bool) *ag.Var {
	x = b.DW.Forward(x, training)
	if b.SE != nil {
		x = b.SE.Forward(x, training)
	}
	return b.PW.Forward(x, training)
}

// SEModule is squeeze-excitation (Hu et al. 2017): global average pool,
// 1x1 conv down by reduction + relu, 1x1 conv up + hardsigmoid, scale x.
type SEModule struct {
	Down, Up *nn.Conv2D
	// Slope is the hardsigmoid's slope: 0 means Paddle's default 1/6
	// (PaddleClas); PaddleOCR's MobileNetV3 SE uses 0.2.
	Slope float64
}

// NewSEModule builds an SE module over c channels.
func NewSEModule(c, reduction int, r *rand.Rand) (*SEModule, error) {
	down, err := nn.NewConv2D(nn.ConvOptions{InChannels: c, OutChannels: max(c/reduction, 1), KernelSize: []int{1}}, r)
	if err != nil {
		return nil, err
	}
	up, err := nn.NewConv2D(nn.ConvOptions{InChannels: max(c/reduction, 1), OutChannels: c, KernelSize: []int{1}}, r)
	if err != nil {
		return nil, err
	}
	return &SEModule{Down: down, Up: up}, nil
}

// Params returns down.* and up.*.
func (s *SEModule) Params() []nn.Param { return nn.Collect("down", s.Down, "up", s.Up) }

// Forward returns x scaled per channel.
func (s *SEModule) Forward(x *ag.Var, training bool) *ag.Var {
	w := ag.Relu(s.Down.Forward(ag.GlobalAvgPool(x), training))
	slope := s.Slope
	if slope == 0 {
		slope = 1.0 / 6
	}
	w = ag.Hardsigmoid(s.Up.Forward(w, training), slope, 0.5)
	return ag.Mul(x, w)
}
