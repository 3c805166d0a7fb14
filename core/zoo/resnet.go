package zoo

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	"paddle/core/ag"
	"paddle/core/nn"
	"paddle/core/op"
)

// ResNetOptions configure a ResNet (He et al. 2015, https://arxiv.org/abs/1512.03385).
type ResNetOptions struct {
	Depth      int     `yaml:"depth"`       // 18, 34 (basic blocks), 50, 101, 152 (bottlenecks)
	Width      int     `yaml:"width"`       // channels of the first stage (64 in the paper)
	InChannels int     `yaml:"in_channels"` // image channels
	ClassNum   int     `yaml:"class_num"`   // > 0 adds global pooling and a classifier
	SmallInput bool    `yaml:"small_input"` // 3x3 stride-1 stem without max pool (MNIST/CIFAR sizes)
	Scale      float64 `yaml:"scale"`       // multiplies every stage's width (default 1)
	// FirstShortConv gives the first block a 1x1 ConvBN shortcut even when
	// its shape does not change, as PaddleClas's ResNet does
	// (use_first_short_conv); with it ResNet-18/34 take PaddleClas weights.
	FirstShortConv bool `yaml:"first_short_conv"`
}

var resnetLayers = map[int][]int{18: {2, 2, 2, 2}, 34: {3, 4, 6, 3}, 50: {3, 4, 6, 3}, 101: {3, 4, 23, 3}, 152: {3, 8, 36, 3}}

// ResNet is a stem, four stages of residual blocks and an optional classifier.
type ResNet struct {
	Stem   *ConvBN
	pool   bool
	Stages [][]nn.Layer
	FC     *nn.Linear // nil without a classifier
}

// NewResNet builds a ResNet from options.
func NewResNet(o ResNetOptions, r *rand.Rand) (*ResNet, error) {
	layers, ok := resnetLayers[o.Depth]
	if !ok {
		return nil, fmt.Errorf("resnet: depth %d (known: 18, 34, 50, 101, 152)", o.Depth)
	}
	if o.Width == 0 {
		o.Width = 64
	}
	if o.Scale == 0 {
		o.Scale = 1
	}
	if o.InChannels == 0 {
		o.InChannels = 3
	}
	width := func(stage int) int { return max(int(float64(o.Width<<stage)*o.Scale), 1) }
	m := &ResNet{pool: !o.SmallInput}
	var err error
	if o.SmallInput {
		m.Stem, err = NewConvBN(o.InChannels, width(0), 3, 1, 1, "relu", r)
	} else {
		m.Stem, err = NewConvBN(o.InChannels, width(0), 7, 2, 1, "relu", r)
	}
	if err != nil {
		return nil, err
	}
	in := width(0)
	for s, n := range layers {
		var stage []nn.Layer
		for b := range n {
			stride := 1
			if b == 0 && s > 0 {
				stride = 2
			}
			var blk nn.Layer
			var out int
			if o.Depth < 50 {
				out = width(s)
				blk, err = newBasicBlock(in, out, stride, o.FirstShortConv && s == 0 && b == 0, r)
			} else {
				out = width(s) * 4
				blk, err = newBottleneck(in, width(s), out, stride, r)
			}
			if err != nil {
				return nil, err
			}
			stage = append(stage, blk)
			in = out
		}
		m.Stages = append(m.Stages, stage)
	}
	if o.ClassNum > 0 {
		if m.FC, err = nn.NewLinear(nn.LinearOptions{In: in, Out: o.ClassNum}, r); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Params returns stem.*, stages.<s>.<b>.*, fc.*.
func (m *ResNet) Params() []nn.Param {
	out := nn.Prefix("stem", m.Stem.Params())
	for s, st := range m.Stages {
		for b, blk := range st {
			out = append(out, nn.Prefix("stages."+strconv.Itoa(s)+"."+strconv.Itoa(b), blk.Params())...)
		}
	}
	if m.FC != nil {
		out = append(out, nn.Prefix("fc", m.FC.Params())...)
	}
	return out
}

// Buffers returns the batch norms' running statistics.
func (m *ResNet) Buffers() []nn.Param {
	out := nn.Prefix("stem", m.Stem.Buffers())
	for s, st := range m.Stages {
		for b, blk := range st {
			out = append(out, nn.Prefix("stages."+strconv.Itoa(s)+"."+strconv.Itoa(b), nn.Buffers(blk))...)
		}
	}
	return out
}

// Features returns the output of each stage (strides 4, 8, 16, 32 with the
// standard stem), for detection and segmentation necks.
func (m *ResNet) Features(x *ag.Var, training bool) []*ag.Var {
	x = m.Stem.Forward(x, training)
	if m.pool {
		x = ag.MaxPool2D(x, op.PoolParams{Kernel: []int{3, 3}, Strides: []int{2, 2}, Pads: []int{1, 1, 1, 1}})
	}
	var feats []*ag.Var
	for _, st := range m.Stages {
		for _, blk := range st {
			x = blk.Forward(x, training)
		}
		feats = append(feats, x)
	}
	return feats
}

// Forward maps images (N, C, H, W) to logits (N, class_num), or to the last
// feature map without a classifier.
func (m *ResNet) Forward(x *ag.Var, training bool) *ag.Var {
	f := m.Features(x, training)
	y := f[len(f)-1]
	if m.FC == nil {
		return y
	}
	n := y.Shape()[0]
	return m.FC.Forward(ag.Reshape(ag.GlobalAvgPool(y), n, -1), training)
}

// basicBlock is two 3x3 ConvBNs with a shortcut (a 1x1 ConvBN when the shape changes).
type basicBlock struct {
	conv1, conv2 *ConvBN
	short        *ConvBN
}

func newBasicBlock(in, out, stride int, short bool, r *rand.Rand) (*basicBlock, error) {
	b := &basicBlock{}
	var err error
	if b.conv1, err = NewConvBN(in, out, 3, stride, 1, "relu", r); err != nil {
		return nil, err
	}
	if b.conv2, err = NewConvBN(out, out, 3, 1, 1, "", r); err != nil {
		return nil, err
	}
	if short || stride != 1 || in != out {
		if b.short, err = NewConvBN(in, out, 1, stride, 1, "", r); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func (b *basicBlock) Params() []nn.Param {
	return nn.Collect("conv1", b.conv1, "conv2", b.conv2, "short", nilIfNone(b.short))
}

func (b *basicBlock) Buffers() []nn.Param {
	return nn.CollectBuffers("conv1", b.conv1, "conv2", b.conv2, "short", nilIfNone(b.short))
}

func (b *basicBlock) Forward(x *ag.Var, training bool) *ag.Var {
	y := b.conv2.Forward(b.conv1.Forward(x, training), training)
	s := x
	if b.short != nil {
		s = b.short.Forward(x, training)
	}
	return ag.Relu(ag.Add(y, s))
}

// bottleneck is 1x1 → 3x3 (strided) → 1x1 with a shortcut.
type bottleneck struct {
	conv1, conv2, conv3 *ConvBN
	short               *ConvBN
}

func newBottleneck(in, mid, out, stride int, r *rand.Rand) (*bottleneck, error) {
	b := &bottleneck{}
	var err error
	if b.conv1, err = NewConvBN(in, mid, 1, 1, 1, "relu", r); err != nil {
		return nil, err
	}
	if b.conv2, err = NewConvBN(mid, mid, 3, stride, 1, "relu", r); err != nil {
		return nil, err
	}
	if b.conv3, err = NewConvBN(mid, out, 1, 1, 1, "", r); err != nil {
		return nil, err
	}
	if stride != 1 || in != out {
		if b.short, err = NewConvBN(in, out, 1, stride, 1, "", r); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func (b *bottleneck) Params() []nn.Param {
	return nn.Collect("conv1", b.conv1, "conv2", b.conv2, "conv3", b.conv3, "short", nilIfNone(b.short))
}

func (b *bottleneck) Buffers() []nn.Param {
	return nn.CollectBuffers("conv1", b.conv1, "conv2", b.conv2, "conv3", b.conv3, "short", nilIfNone(b.short))
}

func (b *bottleneck) Forward(x *ag.Var, training bool) *ag.Var {
	y := b.conv3.Forward(b.conv2.Forward(b.conv1.Forward(x, training), training), training)
	s := x
	if b.short != nil {
		s = b.short.Forward(x, training)
	}
	return ag.Relu(ag.Add(y, s))
}

// nilIfNone turns a nil *ConvBN into an untyped nil, which Collect skips.
func nilIfNone(c *ConvBN) any {
	if c == nil {
		return nil
	}
	return c
}
