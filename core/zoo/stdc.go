package zoo

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	"paddle/core/ag"
	"paddle/core/nn"
	"paddle/core/op"
)

// STDCOptions configure an STDC backbone ("Short-Term Dense Concatenate",
// Fan et al. 2021, https://arxiv.org/abs/2104.13188), the backbone of
// PP-LiteSeg: two stride-2 3x3 ConvBNs (stride 4), then three stages of STDC
// modules at strides 8, 16 and 32 with base·4, base·8 and base·16 channels.
// STDC1 is base 64, layers [2, 2, 2]; STDC2 is layers [4, 5, 3].
type STDCOptions struct {
	Base       int   `yaml:"base"`        // width (default 64)
	Layers     []int `yaml:"layers"`      // modules per stage (default [2, 2, 2])
	BlockNum   int   `yaml:"block_num"`   // convs per module (default 4)
	InChannels int   `yaml:"in_channels"` // image channels (default 3)
}

// STDCNet is the backbone. Forward returns the last map; Features the maps
// at strides 8, 16 and 32.
type STDCNet struct {
	Stem   []*ConvBN
	Stages [][]*STDCModule
	chans  []int
}

// NewSTDCNet builds an STDC backbone; r draws the initial weights.
func NewSTDCNet(o STDCOptions, r *rand.Rand) (*STDCNet, error) {
	if o.Base == 0 {
		o.Base = 64
	}
	if o.Layers == nil {
		o.Layers = []int{2, 2, 2}
	}
	if o.BlockNum == 0 {
		o.BlockNum = 4
	}
	if o.InChannels == 0 {
		o.InChannels = 3
	}
	if len(o.Layers) != 3 || o.Base < 8 || o.Base%8 != 0 || o.BlockNum < 2 {
		return nil, fmt.Errorf("STDC: want 3 layers, base a multiple of 8 and block_num ≥ 2, got layers %v base %d block_num %d", o.Layers, o.Base, o.BlockNum)
	}
	if o.Base>>(o.BlockNum-1) < 1 || (o.Base*4)%(1<<(o.BlockNum-1)) != 0 {
		return nil, fmt.Errorf("STDC: base %d is too narrow for block_num %d", o.Base, o.BlockNum)
	}
	m := &STDCNet{}
	s1, err := NewConvBN(o.InChannels, o.Base/2, 3, 2, 1, "relu", r)
	if err != nil {
		return nil, err
	}
	s2, err := NewConvBN(o.Base/2, o.Base, 3, 2, 1, "relu", r)
	if err != nil {
		return nil, err
	}
	m.Stem = []*ConvBN{s1, s2}
	in := o.Base
	for i, n := range o.Layers {
		out := o.Base * 4 << i
		var stage []*STDCModule
		for j := range max(n, 1) {
			stride := 1
			if j == 0 {
				stride = 2
			}
			b, err := NewSTDCModule(in, out, o.BlockNum, stride, r)
			if err != nil {
				return nil, err
			}
			stage = append(stage, b)
			in = out
		}
		m.Stages = append(m.Stages, stage)
		m.chans = append(m.chans, out)
	}
	return m, nil
}

// Channels returns the channels of the stride 8, 16 and 32 features.
func (m *STDCNet) Channels() []int { return append([]int(nil), m.chans...) }

// Params returns stem.<i>.*, stages.<i>.<j>.*.
func (m *STDCNet) Params() []nn.Param { return m.collect(false) }

// Buffers returns the batch norms' running statistics.
func (m *STDCNet) Buffers() []nn.Param { return m.collect(true) }

func (m *STDCNet) collect(buffers bool) []nn.Param {
	var out []nn.Param
	get := func(name string, p nn.Module) {
		if buffers {
			out = append(out, nn.CollectBuffers(name, p)...)
		} else {
			out = append(out, nn.Collect(name, p)...)
		}
	}
	for i, c := range m.Stem {
		get("stem."+strconv.Itoa(i), c)
	}
	for i, st := range m.Stages {
		for j, b := range st {
			get(fmt.Sprintf("stages.%d.%d", i, j), b)
		}
	}
	return out
}

// Features maps x (N, C, H, W) to the stage outputs at strides 8, 16, 32.
func (m *STDCNet) Features(x *ag.Var, training bool) []*ag.Var {
	for _, c := range m.Stem {
		x = c.Forward(x, training)
	}
	var feats []*ag.Var
	for _, st := range m.Stages {
		for _, b := range st {
			x = b.Forward(x, training)
		}
		feats = append(feats, x)
	}
	return feats
}

// Forward returns the stride-32 feature map.
func (m *STDCNet) Forward(x *ag.Var, training bool) *ag.Var {
	f := m.Features(x, training)
	return f[len(f)-1]
}

// STDCModule is one STDC block: a 1x1 ConvBN to out/2 channels, then
// block_num-1 3x3 ConvBNs halving the width (the last two equal), and the
// concatenation of all their outputs (out channels). With stride 2 a
// depthwise stride-2 ConvBN follows the first conv, and the first conv's
// output enters the concatenation through a 3x3 stride-2 average pool.
type STDCModule struct {
	Convs  []*ConvBN
	Down   *ConvBN // stride 2 only
	stride int
}

// NewSTDCModule builds an STDC module from in to out channels.
func NewSTDCModule(in, out, blockNum, stride int, r *rand.Rand) (*STDCModule, error) {
	m := &STDCModule{stride: stride}
	widths := make([]int, blockNum)
	for i := range blockNum {
		widths[i] = out >> (i + 1)
	}
	widths[blockNum-1] = widths[blockNum-2]
	prev := in
	for i, w := range widths {
		k := 3
		if i == 0 {
			k = 1
		}
		c, err := NewConvBN(prev, w, k, 1, 1, "relu", r)
		if err != nil {
			return nil, err
		}
		m.Convs = append(m.Convs, c)
		prev = w
	}
	if stride == 2 {
		d, err := NewConvBN(widths[0], widths[0], 3, 2, widths[0], "", r)
		if err != nil {
			return nil, err
		}
		m.Down = d
	}
	return m, nil
}

// Params returns convs.<i>.*, down.*.
func (m *STDCModule) Params() []nn.Param { return m.collect(false) }

// Buffers returns the batch norms' running statistics.
func (m *STDCModule) Buffers() []nn.Param { return m.collect(true) }

func (m *STDCModule) collect(buffers bool) []nn.Param {
	args := []any{}
	for i, c := range m.Convs {
		args = append(args, "convs."+strconv.Itoa(i), c)
	}
	args = append(args, "down", m.Down)
	if buffers {
		return nn.CollectBuffers(args[0].(string), args[1], args[2:]...)
	}
	return nn.Collect(args[0].(string), args[1], args[2:]...)
}

var stdcSkipPool = op.PoolParams{Kernel: []int{3, 3}, Strides: []int{2, 2}, Pads: []int{1, 1, 1, 1}}

// Forward maps x (N, in, H, W) to (N, out, H/stride, W/stride).
func (m *STDCModule) Forward(x *ag.Var, training bool) *ag.Var {
	x1 := m.Convs[0].Forward(x, training)
	outs := make([]*ag.Var, 0, len(m.Convs))
	y := x1
	if m.Down != nil {
		y = m.Down.Forward(x1, training)
		outs = append(outs, ag.AvgPool2D(x1, stdcSkipPool))
	} else {
		outs = append(outs, x1)
	}
	for _, c := range m.Convs[1:] {
		y = c.Forward(y, training)
		outs = append(outs, y)
	}
	return ag.Concat(1, outs...)
}
