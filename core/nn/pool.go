package nn

import (
	"fmt"
	"math"

	"paddle/core/ag"
	"paddle/core/op"
)

// PoolOptions configure MaxPool2D and AvgPool2D.
type PoolOptions struct {
	KernelSize []int `yaml:"kernel_size"`
	Stride     []int `yaml:"stride"`  // default: the kernel size (PyTorch and Paddle)
	Padding    []int `yaml:"padding"` // symmetric per axis, or (top, left, bottom, right)
	CeilMode   bool  `yaml:"ceil_mode"`
	// CountIncludePad divides border windows by the full kernel area, padding
	// included (AvgPool2D only). The zero value excludes padding, as Paddle's
	// default exclusive=True; PyTorch's default is the opposite.
	CountIncludePad bool `yaml:"count_include_pad"`
}

func poolParams(o PoolOptions) (op.PoolParams, error) {
	var none op.PoolParams
	k, err := expand(o.KernelSize, 2, 0, "kernel_size")
	if err != nil {
		return none, err
	}
	if k[0] <= 0 || k[1] <= 0 {
		return none, fmt.Errorf("kernel_size %v must be positive", o.KernelSize)
	}
	st := k
	if len(o.Stride) > 0 {
		if st, err = expand(o.Stride, 2, 1, "stride"); err != nil {
			return none, err
		}
	}
	var pads []int
	if len(o.Padding) == 4 {
		pads = append([]int(nil), o.Padding...)
	} else {
		p, err := expand(o.Padding, 2, 0, "padding")
		if err != nil {
			return none, err
		}
		pads = append(p, p...)
	}
	return op.PoolParams{Kernel: k, Strides: st, Pads: pads, CeilMode: o.CeilMode, CountIncludePad: o.CountIncludePad}, nil
}

// MaxPool2D takes the maximum of each window of x (N, C, H, W).
type MaxPool2D struct{ p op.PoolParams }

// AvgPool2D takes the mean of each window of x (N, C, H, W).
type AvgPool2D struct{ p op.PoolParams }

var (
	_ Layer = (*MaxPool2D)(nil)
	_ Layer = (*AvgPool2D)(nil)
)

// NewMaxPool2D builds a max-pooling layer.
func NewMaxPool2D(o PoolOptions) (*MaxPool2D, error) {
	a, err := poolParams(o)
	if err != nil {
		return nil, fmt.Errorf("max_pool2d: %w", err)
	}
	return &MaxPool2D{a}, nil
}

// NewAvgPool2D builds an average-pooling layer.
func NewAvgPool2D(o PoolOptions) (*AvgPool2D, error) {
	a, err := poolParams(o)
	if err != nil {
		return nil, fmt.Errorf("avg_pool2d: %w", err)
	}
	return &AvgPool2D{a}, nil
}

// Params returns nothing.
func (p *MaxPool2D) Params() []Param { return nil }

// Forward pools x (N, C, H, W) to (N, C, H', W').
func (p *MaxPool2D) Forward(x *ag.Var, _ bool) *ag.Var { return ag.MaxPool2D(x, p.p) }

// Params returns nothing.
func (p *AvgPool2D) Params() []Param { return nil }

// Forward pools x (N, C, H, W) to (N, C, H', W').
func (p *AvgPool2D) Forward(x *ag.Var, _ bool) *ag.Var { return ag.AvgPool2D(x, p.p) }

// AdaptiveAvgPool2D averages x (N, C, H, W) into an OH×OW grid of bins
// [⌊i·H/OH⌋, ⌈(i+1)·H/OH⌉) (PyTorch's rule); 1×1 is global average pooling.
type AdaptiveAvgPool2D struct{ OH, OW int }

var _ Layer = (*AdaptiveAvgPool2D)(nil)

// NewAdaptiveAvgPool2D builds the layer for an output size (one number: square).
func NewAdaptiveAvgPool2D(outputSize []int) (*AdaptiveAvgPool2D, error) {
	s, err := expand(outputSize, 2, 0, "output_size")
	if err != nil || s[0] <= 0 || s[1] <= 0 {
		return nil, fmt.Errorf("adaptive_avg_pool2d: output_size %v must be 1 or 2 positive values", outputSize)
	}
	return &AdaptiveAvgPool2D{s[0], s[1]}, nil
}

// Params returns nothing.
func (p *AdaptiveAvgPool2D) Params() []Param { return nil }

// Forward pools x (N, C, H, W) to (N, C, OH, OW).
func (p *AdaptiveAvgPool2D) Forward(x *ag.Var, _ bool) *ag.Var {
	if p.OH == 1 && p.OW == 1 {
		return ag.GlobalAvgPool(x)
	}
	return ag.AdaptiveAvgPool2D(x, p.OH, p.OW)
}

// UpsampleOptions configure Upsample: give Size or ScaleFactor.
type UpsampleOptions struct {
	Size         []int     `yaml:"size"`         // (OH, OW)
	ScaleFactor  []float64 `yaml:"scale_factor"` // one or two factors
	Mode         string    `yaml:"mode"`         // nearest (default) or bilinear
	AlignCorners bool      `yaml:"align_corners"`
}

// Upsample resizes x (N, C, H, W) like torch.nn.Upsample / F.interpolate:
// nearest picks floor(o/scale); bilinear maps half pixels (or corners with
// AlignCorners) and blends the two neighbours on each axis.
type Upsample struct{ p op.ResizeParams }

var _ Layer = (*Upsample)(nil)

// NewUpsample builds the layer.
func NewUpsample(o UpsampleOptions) (*Upsample, error) {
	var p op.ResizeParams
	switch o.Mode {
	case "", "nearest":
		p.Mode, p.CoordMode, p.NearestMode = "nearest", "asymmetric", "floor"
		if o.AlignCorners {
			return nil, fmt.Errorf("upsample: align_corners needs bilinear mode")
		}
	case "bilinear", "linear":
		p.Mode, p.CoordMode = "linear", "pytorch_half_pixel"
		if o.AlignCorners {
			p.CoordMode = "align_corners"
		}
	default:
		return nil, fmt.Errorf("upsample: mode %q, want nearest or bilinear", o.Mode)
	}
	switch {
	case len(o.Size) > 0:
		s, err := expand(o.Size, 2, 0, "size")
		if err != nil {
			return nil, fmt.Errorf("upsample: %w", err)
		}
		p.Sizes = s
	case len(o.ScaleFactor) == 1:
		p.Scales = []float64{o.ScaleFactor[0], o.ScaleFactor[0]}
	case len(o.ScaleFactor) == 2:
		p.Scales = append([]float64(nil), o.ScaleFactor...)
	default:
		return nil, fmt.Errorf("upsample: give size or one or two scale_factor values")
	}
	return &Upsample{p}, nil
}

// Params returns nothing.
func (u *Upsample) Params() []Param { return nil }

// Forward resizes x (N, C, H, W) to (N, C, OH, OW).
func (u *Upsample) Forward(x *ag.Var, _ bool) *ag.Var {
	p := u.p
	if p.CoordMode == "align_corners" && p.Scales != nil {
		// PyTorch maps corners with the rounded output size; ONNX Resize with
		// scales uses in·scale unrounded, so pass the size PyTorch computes.
		s := x.Shape()
		p.Sizes = []int{int(math.Floor(float64(s[2]) * p.Scales[0])), int(math.Floor(float64(s[3]) * p.Scales[1]))}
		p.Scales = nil
	}
	return ag.Resize(x, p)
}
