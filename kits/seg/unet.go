package seg

import (
	"fmt"
	"math/rand/v2"

	"paddle/core/ag"
	"paddle/core/nn"
	"paddle/core/op"
	"paddle/core/zoo"
)

// UNet is U-Net in PaddleSeg's layout (see UNetOpts).
type UNet struct {
	Stem  []*zoo.ConvBN // double conv at full size
	Downs []*unetLevel  // max pool, double conv
	Ups   []*unetLevel  // upsample, concat skip, double conv
	Cls   *nn.Conv2D    // 3x3 to the classes
}

// unetLevel is a double 3x3 ConvBNReLU, with a transposed conv in front on
// the decoder side when use_deconv is set.
type unetLevel struct {
	Deconv *nn.ConvTranspose2D
	Convs  []*zoo.ConvBN
}

func (l *unetLevel) Params() []nn.Param  { return params(false, "deconv", l.Deconv, "convs", l.Convs) }
func (l *unetLevel) Buffers() []nn.Param { return params(true, "convs", l.Convs) }

func doubleConv(in, out int, r *rand.Rand) ([]*zoo.ConvBN, error) {
	a, err := zoo.NewConvBN(in, out, 3, 1, 1, "relu", r)
	if err != nil {
		return nil, err
	}
	b, err := zoo.NewConvBN(out, out, 3, 1, 1, "relu", r)
	return []*zoo.ConvBN{a, b}, err
}

func newUNet(o UNetOpts, r *rand.Rand) (*UNet, error) {
	if o.BaseChannels == 0 {
		o.BaseChannels = 64
	}
	if o.InChannels == 0 {
		o.InChannels = 3
	}
	if o.NumClasses < 2 || o.BaseChannels < 2 {
		return nil, fmt.Errorf("UNet: num_classes %d and base_channels %d must be at least 2", o.NumClasses, o.BaseChannels)
	}
	b := o.BaseChannels
	m := &UNet{}
	var err error
	if m.Stem, err = doubleConv(o.InChannels, b, r); err != nil {
		return nil, err
	}
	for _, io := range [][2]int{{b, 2 * b}, {2 * b, 4 * b}, {4 * b, 8 * b}, {8 * b, 8 * b}} {
		cs, err := doubleConv(io[0], io[1], r)
		if err != nil {
			return nil, err
		}
		m.Downs = append(m.Downs, &unetLevel{Convs: cs})
	}
	for _, io := range [][2]int{{8 * b, 4 * b}, {4 * b, 2 * b}, {2 * b, b}, {b, b}} {
		in, out := io[0], io[1]
		l := &unetLevel{}
		if o.UseDeconv {
			if l.Deconv, err = nn.NewConvTranspose2D(nn.ConvOptions{InChannels: in, OutChannels: out / 2, KernelSize: []int{2}, Stride: []int{2}}, r); err != nil {
				return nil, err
			}
			in += out / 2
		} else {
			in *= 2
		}
		if l.Convs, err = doubleConv(in, out, r); err != nil {
			return nil, err
		}
		m.Ups = append(m.Ups, l)
	}
	m.Cls, err = nn.NewConv2D(nn.ConvOptions{InChannels: b, OutChannels: o.NumClasses, KernelSize: []int{3}, Padding: []int{1}}, r)
	return m, err
}

// Params returns stem.*, downs.<i>.*, ups.<i>.*, cls.*.
func (m *UNet) Params() []nn.Param {
	return params(false, "stem", m.Stem, "downs", m.Downs, "ups", m.Ups, "cls", m.Cls)
}

// Buffers returns the batch norms' running statistics.
func (m *UNet) Buffers() []nn.Param {
	return params(true, "stem", m.Stem, "downs", m.Downs, "ups", m.Ups)
}

var unetPool = op.PoolParams{Kernel: []int{2, 2}, Strides: []int{2, 2}}

func runConvs(cs []*zoo.ConvBN, x *ag.Var, training bool) *ag.Var {
	for _, c := range cs {
		x = c.Forward(x, training)
	}
	return x
}

// Logits maps x (N, C, H, W) to (N, classes, H, W); H and W need not be
// multiples of 16 (upsampling goes to each skip's size).
func (m *UNet) Logits(x *ag.Var, training bool) []*ag.Var {
	x = runConvs(m.Stem, x, training)
	skips := []*ag.Var{x}
	for _, d := range m.Downs {
		x = runConvs(d.Convs, ag.MaxPool2D(x, unetPool), training)
		skips = append(skips, x)
	}
	for i, u := range m.Ups {
		s := skips[len(skips)-2-i]
		if u.Deconv != nil {
			x = u.Deconv.Forward(x, training)
			if x.Shape()[2] != s.Shape()[2] || x.Shape()[3] != s.Shape()[3] {
				x = upsample(x, s.Shape()[2], s.Shape()[3])
			}
		} else {
			x = upsample(x, s.Shape()[2], s.Shape()[3])
		}
		x = runConvs(u.Convs, ag.Concat(1, x, s), training)
	}
	return []*ag.Var{m.Cls.Forward(x, training)}
}

// Forward returns the logits (nn.Layer).
func (m *UNet) Forward(x *ag.Var, training bool) *ag.Var { return m.Logits(x, training)[0] }
