package zoo

import (
	"math/rand/v2"

	"paddle/core/ag"
	"paddle/core/nn"
)

// ConvBN is conv (no bias) → batch norm → optional activation.
type ConvBN struct {
	Conv *nn.Conv2D
	BN   *nn.BatchNorm
	Act  *nn.Activation // nil: none
}

var _ nn.Layer = (*ConvBN)(nil)

// NewConvBN builds a ConvBN with "same" padding for odd kernels.
func NewConvBN(in, out, kernel, stride, groups int, act string, r *rand.Rand) (*ConvBN, error) {
	conv, err := nn.NewConv2D(nn.ConvOptions{
		InChannels: in, OutChannels: out, KernelSize: []int{kernel}, Stride: []int{stride},
		Padding: []int{(kernel - 1) / 2}, Groups: groups, NoBias: true,
	}, r)
	if err != nil {
		return nil, err
	}
	bn, err := nn.NewBatchNorm2D(nn.BatchNormOptions{NumFeatures: out})
	if err != nil {
		return nil, err
	}
	c := &ConvBN{Conv: conv, BN: bn}
	if act != "" {
		if c.Act, err = nn.NewActivation(act); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Params returns conv.weight and bn.weight/bias.
func (c *ConvBN) Params() []nn.Param { return nn.Collect("conv", c.Conv, "bn", c.BN) }

// Buffers returns the batch norm's running statistics.
func (c *ConvBN) Buffers() []nn.Param { return nn.CollectBuffers("bn", c.BN) }

// Forward maps x (N, in, H, W) to (N, out, H/stride, W/stride).
func (c *ConvBN) Forward(x *ag.Var, training bool) *ag.Var {
	y := c.BN.Forward(c.Conv.Forward(x, training), training)
	if c.Act != nil {
		y = c.Act.Forward(y, training)
	}
	return y
}
