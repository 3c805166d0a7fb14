package nn

import (
	"fmt"
	"math/rand/v2"

	"paddle/core/ag"
	"paddle/core/op"
)

// ConvOptions configure Conv1D, Conv2D and ConvTranspose2D. Sizes given as
// one number apply to every spatial axis.
type ConvOptions struct {
	InChannels  int   `yaml:"in_channels"`
	OutChannels int   `yaml:"out_channels"`
	KernelSize  []int `yaml:"kernel_size"`
	Stride      []int `yaml:"stride"`   // default 1
	Padding     []int `yaml:"padding"`  // symmetric per axis (p or ph, pw) or (top, left, bottom, right); default 0
	Dilation    []int `yaml:"dilation"` // default 1
	Groups      int   `yaml:"groups"`   // default 1; InChannels for depthwise
	NoBias      bool  `yaml:"no_bias"`
	// OutputPadding adds rows/cols at the bottom/right of a transposed
	// convolution's output (ConvTranspose2D only).
	OutputPadding []int `yaml:"output_padding"`
	// AutoPad replaces Padding (Conv1D and Conv2D only): "SAME_UPPER" (or
	// Paddle's "same"/"SAME": output size ceil(in/stride), the odd padding
	// pixel at the end), "SAME_LOWER" (odd pixel at the start) or "VALID"
	// (no padding); "" uses Padding.
	AutoPad string `yaml:"auto_pad"`
}

// expand repeats a one-number size over n axes (def when empty).
func expand(v []int, n, def int, what string) ([]int, error) {
	switch len(v) {
	case 0:
		v = []int{def}
		fallthrough
	case 1:
		out := make([]int, n)
		for i := range out {
			out[i] = v[0]
		}
		return out, nil
	case n:
		return append([]int(nil), v...), nil
	}
	return nil, fmt.Errorf("%s %v: want 1 or %d values", what, v, n)
}

// convParams resolves o for n spatial axes into the conv ops' parameters.
func convParams(o *ConvOptions, n int) (kernel []int, a op.ConvParams, err error) {
	if o.Groups == 0 {
		o.Groups = 1
	}
	if o.InChannels <= 0 || o.OutChannels <= 0 || o.InChannels%o.Groups != 0 || o.OutChannels%o.Groups != 0 {
		return nil, op.ConvParams{}, fmt.Errorf("in_channels %d and out_channels %d must be positive multiples of groups %d", o.InChannels, o.OutChannels, o.Groups)
	}
	if kernel, err = expand(o.KernelSize, n, 0, "kernel_size"); err != nil {
		return nil, op.ConvParams{}, err
	}
	for _, k := range kernel {
		if k <= 0 {
			return nil, op.ConvParams{}, fmt.Errorf("kernel_size %v must be positive", o.KernelSize)
		}
	}
	st, err := expand(o.Stride, n, 1, "stride")
	if err != nil {
		return nil, op.ConvParams{}, err
	}
	dl, err := expand(o.Dilation, n, 1, "dilation")
	if err != nil {
		return nil, op.ConvParams{}, err
	}
	var pads []int
	if len(o.Padding) == 2*n {
		pads = append([]int(nil), o.Padding...)
	} else {
		p, err := expand(o.Padding, n, 0, "padding")
		if err != nil {
			return nil, op.ConvParams{}, err
		}
		pads = append(p, p...)
	}
	a = op.ConvParams{Strides: st, Dilations: dl, Pads: pads, Groups: o.Groups}
	switch o.AutoPad {
	case "":
	case "same", "SAME", "SAME_UPPER", "SAME_LOWER", "VALID", "valid":
		if len(o.Padding) > 0 {
			return nil, op.ConvParams{}, fmt.Errorf("auto_pad %q and padding %v both set", o.AutoPad, o.Padding)
		}
		a.AutoPad = map[string]string{"same": "SAME_UPPER", "SAME": "SAME_UPPER", "valid": "VALID"}[o.AutoPad]
		if a.AutoPad == "" {
			a.AutoPad = o.AutoPad
		}
		a.Pads = nil
	default:
		return nil, op.ConvParams{}, fmt.Errorf("auto_pad %q: want SAME_UPPER, SAME_LOWER, VALID, same or valid", o.AutoPad)
	}
	if o.OutputPadding != nil {
		opad, err := expand(o.OutputPadding, n, 0, "output_padding")
		if err != nil {
			return nil, op.ConvParams{}, err
		}
		a.OutputPadding = opad
	}
	return kernel, a, nil
}

// Conv2D is a 2-D convolution (cross-correlation) of x (N, C, H, W) with
// weight (OC, C/groups, KH, KW) and bias (OC), PyTorch's layout and default
// initialisation. Groups = C with OC a multiple of C is a depthwise convolution.
type Conv2D struct {
	Weight, Bias *ag.Var
	p            op.ConvParams
}

var _ Layer = (*Conv2D)(nil)

// NewConv2D builds a Conv2D layer.
func NewConv2D(o ConvOptions, r *rand.Rand) (*Conv2D, error) {
	k, a, err := convParams(&o, 2)
	if err != nil {
		return nil, fmt.Errorf("conv2d: %w", err)
	}
	c := &Conv2D{Weight: newParam(o.OutChannels, o.InChannels/o.Groups, k[0], k[1]), p: a}
	if !o.NoBias {
		c.Bias = newParam(o.OutChannels)
		DefaultInit(r, c.Weight.T, c.Bias.T, 0)
	} else {
		DefaultInit(r, c.Weight.T, nil, 0)
	}
	return c, nil
}

// Params returns weight and bias.
func (c *Conv2D) Params() []Param { return Collect("weight", c.Weight, "bias", c.Bias) }

// Forward maps x (N, C, H, W) to (N, OC, H', W').
func (c *Conv2D) Forward(x *ag.Var, _ bool) *ag.Var { return ag.Conv2D(x, c.Weight, c.Bias, c.p) }

// NewDepthwiseConv2D builds a depthwise Conv2D (Paddle's DepthwiseConv2D):
// Groups = InChannels, so each input channel has its own OutChannels /
// InChannels filters. OutChannels defaults to InChannels; Groups, if set,
// must equal InChannels.
func NewDepthwiseConv2D(o ConvOptions, r *rand.Rand) (*Conv2D, error) {
	if o.OutChannels == 0 {
		o.OutChannels = o.InChannels
	}
	if o.Groups != 0 && o.Groups != o.InChannels {
		return nil, fmt.Errorf("depthwise conv2d: groups %d must equal in_channels %d", o.Groups, o.InChannels)
	}
	o.Groups = o.InChannels
	c, err := NewConv2D(o, r)
	if err != nil {
		return nil, fmt.Errorf("depthwise %w", err)
	}
	return c, nil
}

// Conv1D is a 1-D convolution of x (N, C, L) with weight (OC, C/groups, K),
// run as a 2-D convolution over a height of 1.
type Conv1D struct {
	Weight, Bias *ag.Var
	p            op.ConvParams
}

var _ Layer = (*Conv1D)(nil)

// NewConv1D builds a Conv1D layer.
func NewConv1D(o ConvOptions, r *rand.Rand) (*Conv1D, error) {
	k, a, err := convParams(&o, 1)
	if err != nil {
		return nil, fmt.Errorf("conv1d: %w", err)
	}
	c := &Conv1D{Weight: newParam(o.OutChannels, o.InChannels/o.Groups, k[0]), p: a}
	if !o.NoBias {
		c.Bias = newParam(o.OutChannels)
		DefaultInit(r, c.Weight.T, c.Bias.T, 0)
	} else {
		DefaultInit(r, c.Weight.T, nil, 0)
	}
	return c, nil
}

// Params returns weight and bias.
func (c *Conv1D) Params() []Param { return Collect("weight", c.Weight, "bias", c.Bias) }

// Forward maps x (N, C, L) to (N, OC, L').
func (c *Conv1D) Forward(x *ag.Var, _ bool) *ag.Var { return ag.Conv1D(x, c.Weight, c.Bias, c.p) }

// ConvTranspose2D is the transpose (gradient) of a 2-D convolution: x
// (N, C, H, W) with weight (C, OC/groups, KH, KW) gives (N, OC, H', W') with
// H' = (H-1)·stride - pad_top - pad_bottom + dilation·(KH-1) + 1 + output_padding.
type ConvTranspose2D struct {
	Weight, Bias *ag.Var
	p            op.ConvParams
}

var _ Layer = (*ConvTranspose2D)(nil)

// NewConvTranspose2D builds a ConvTranspose2D layer with PyTorch's default
// initialisation (fans taken from the (C, OC/groups, KH, KW) weight as laid out).
func NewConvTranspose2D(o ConvOptions, r *rand.Rand) (*ConvTranspose2D, error) {
	if o.AutoPad != "" {
		return nil, fmt.Errorf("conv_transpose2d: auto_pad %q is not supported; give padding", o.AutoPad)
	}
	k, a, err := convParams(&o, 2)
	if err != nil {
		return nil, fmt.Errorf("conv_transpose2d: %w", err)
	}
	c := &ConvTranspose2D{Weight: newParam(o.InChannels, o.OutChannels/o.Groups, k[0], k[1]), p: a}
	if !o.NoBias {
		c.Bias = newParam(o.OutChannels)
		DefaultInit(r, c.Weight.T, c.Bias.T, 0)
	} else {
		DefaultInit(r, c.Weight.T, nil, 0)
	}
	return c, nil
}

// Params returns weight and bias.
func (c *ConvTranspose2D) Params() []Param { return Collect("weight", c.Weight, "bias", c.Bias) }

// Forward maps x (N, C, H, W) to (N, OC, H', W').
func (c *ConvTranspose2D) Forward(x *ag.Var, _ bool) *ag.Var {
	return ag.ConvTranspose2D(x, c.Weight, c.Bias, c.p)
}
