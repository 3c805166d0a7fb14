package clas

import (
	"fmt"
	"math/rand/v2"

	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/nn"
	"paddle/core/op"
	"paddle/core/zoo"
)

// LeNetOptions configure LeNet-5 (LeCun et al. 1998) as it is usually
// written today: conv5x5(6) → relu → pool → conv5x5(16) → relu → pool →
// fc(120) → fc(84) → fc(classes). Padding 2 on the first conv keeps 28x28
// inputs at 28x28 (the classic 32x32 framing).
type LeNetOptions struct {
	Channels []int `yaml:"channels"` // default [6, 16]
	Hidden   []int `yaml:"hidden"`   // default [120, 84]
	Padding  []int `yaml:"padding"`  // per conv, default [2, 0]
}

// LeNet is the network.
type LeNet struct {
	conv1, conv2 *nn.Conv2D
	fcs          []*nn.Linear
}

func newLeNet(o LeNetOptions, g GlobalOpts, r *rand.Rand) (*LeNet, error) {
	if o.Channels == nil {
		o.Channels = []int{6, 16}
	}
	if o.Hidden == nil {
		o.Hidden = []int{120, 84}
	}
	if o.Padding == nil {
		o.Padding = []int{2, 0}
	}
	if len(o.Channels) != 2 || len(o.Padding) != 2 {
		return nil, fmt.Errorf("LeNet: channels and padding need 2 entries each")
	}
	c, h, w := g.ImageShape[0], g.ImageShape[1], g.ImageShape[2]
	m := &LeNet{}
	var err error
	if m.conv1, err = nn.NewConv2D(nn.ConvOptions{InChannels: c, OutChannels: o.Channels[0], KernelSize: []int{5}, Padding: []int{o.Padding[0]}}, r); err != nil {
		return nil, err
	}
	if m.conv2, err = nn.NewConv2D(nn.ConvOptions{InChannels: o.Channels[0], OutChannels: o.Channels[1], KernelSize: []int{5}, Padding: []int{o.Padding[1]}}, r); err != nil {
		return nil, err
	}
	for range 2 { // conv 5x5 then pool 2
		h, w = (h+2*o.Padding[0]-4)/2, (w+2*o.Padding[0]-4)/2
		o.Padding[0] = o.Padding[1]
	}
	if h < 1 || w < 1 {
		return nil, fmt.Errorf("LeNet: image_shape %v is too small for two 5x5 convs and pools (pad more)", g.ImageShape)
	}
	in := o.Channels[1] * h * w
	for _, out := range append(o.Hidden, g.ClassNum) {
		fc, err := nn.NewLinear(nn.LinearOptions{In: in, Out: out}, r)
		if err != nil {
			return nil, err
		}
		m.fcs = append(m.fcs, fc)
		in = out
	}
	return m, nil
}

// Params returns conv1.*, conv2.*, fc<i>.*.
func (m *LeNet) Params() []nn.Param {
	out := nn.Collect("conv1", m.conv1, "conv2", m.conv2)
	for i, fc := range m.fcs {
		out = append(out, nn.Prefix(fmt.Sprintf("fc%d", i+1), fc.Params())...)
	}
	return out
}

var pool2 = op.PoolParams{Kernel: []int{2, 2}, Strides: []int{2, 2}}

// Forward maps images (N, C, H, W) to logits (N, classes).
func (m *LeNet) Forward(x *ag.Var, training bool) *ag.Var {
	x = ag.MaxPool2D(ag.Relu(m.conv1.Forward(x, training)), pool2)
	x = ag.MaxPool2D(ag.Relu(m.conv2.Forward(x, training)), pool2)
	x = ag.Reshape(x, x.Shape()[0], -1)
	for i, fc := range m.fcs {
		x = fc.Forward(x, training)
		if i < len(m.fcs)-1 {
			x = ag.Relu(x)
		}
	}
	return x
}

// archEnv is what a model builder needs besides its options: channels and
// classes from Global, and the initialisation's random source.
type archEnv struct {
	g GlobalOpts
	r *rand.Rand
}

// archs are the models `Arch.name` can choose.
var archs = newArchs()

func newArchs() *config.Registry[archEnv, nn.Layer] {
	r := config.NewRegistry[archEnv, nn.Layer]("Arch")
	config.Add(r, "LeNet", LeNetOptions{}, func(_ config.Component, o LeNetOptions, e archEnv) (nn.Layer, error) {
		return newLeNet(o, e.g, e.r)
	})
	config.Add(r, "ResNet", zoo.ResNetOptions{Depth: 18}, func(_ config.Component, o zoo.ResNetOptions, e archEnv) (nn.Layer, error) {
		o.InChannels, o.ClassNum = e.g.ImageShape[0], e.g.ClassNum
		return zoo.NewResNet(o, e.r)
	})
	config.Add(r, "PPLCNet", zoo.PPLCNetOptions{}, func(_ config.Component, o zoo.PPLCNetOptions, e archEnv) (nn.Layer, error) {
		o.InChannels, o.ClassNum = e.g.ImageShape[0], e.g.ClassNum
		return zoo.NewPPLCNet(o, e.r)
	})
	return r
}

// buildModel makes the model Arch names; channels and classes come from Global.
func buildModel(c config.Component, g GlobalOpts, r *rand.Rand) (nn.Layer, error) {
	return archs.Build(c, archEnv{g, r})
}
