package rectrain

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"paddle/core/ag"
	"paddle/core/nn"
	"paddle/core/zoo"
)

// MobileNetV3Opts configure PaddleOCR's recognition MobileNetV3
// (ppocr/modeling/backbones/rec_mobilenet_v3.py), under its keys.
type MobileNetV3Opts struct {
	InChannels  int     `yaml:"in_channels"`  // default 3
	ModelName   string  `yaml:"model_name"`   // large | small (default small, as PaddleOCR)
	Scale       float64 `yaml:"scale"`        // 0.35, 0.5, 0.75, 1.0 or 1.25 (default 0.5)
	LargeStride []int   `yaml:"large_stride"` // default [1, 2, 2, 2]
	SmallStride []int   `yaml:"small_stride"` // default [2, 2, 2, 2]
	DisableSE   bool    `yaml:"disable_se"`
}

// mbv3Block is one row of MobileNetV3's table: kernel, expanded width,
// output width, squeeze-excitation, activation, and which of the four
// configurable strides it takes (-1: stride 1). PaddleOCR's rec variant
// strides only the height, except the large model's first block, which
// takes large_stride[0] on both sides.
type mbv3Block struct {
	k, exp, c int
	se        bool
	act       string
	stride    int
}

var mbv3Large = []mbv3Block{
	{3, 16, 16, false, "relu", 0}, {3, 64, 24, false, "relu", 1}, {3, 72, 24, false, "relu", -1},
	{5, 72, 40, true, "relu", 2}, {5, 120, 40, true, "relu", -1}, {5, 120, 40, true, "relu", -1},
	{3, 240, 80, false, "hardswish", -1}, {3, 200, 80, false, "hardswish", -1},
	{3, 184, 80, false, "hardswish", -1}, {3, 184, 80, false, "hardswish", -1},
	{3, 480, 112, true, "hardswish", -1}, {3, 672, 112, true, "hardswish", -1},
	{5, 672, 160, true, "hardswish", 3}, {5, 960, 160, true, "hardswish", -1}, {5, 960, 160, true, "hardswish", -1},
}

var mbv3Small = []mbv3Block{
	{3, 16, 16, true, "relu", 0}, {3, 72, 24, false, "relu", 1}, {3, 88, 24, false, "relu", -1},
	{5, 96, 40, true, "hardswish", 2}, {5, 240, 40, true, "hardswish", -1}, {5, 240, 40, true, "hardswish", -1},
	{5, 120, 48, true, "hardswish", -1}, {5, 144, 48, true, "hardswish", -1},
	{5, 288, 96, true, "hardswish", 3}, {5, 576, 96, true, "hardswish", -1}, {5, 576, 96, true, "hardswish", -1},
}

// MobileNetV3 is PaddleOCR's recognition MobileNetV3: conv1 (3×3 stride 2,
// hardswish), the ResidualUnit blocks, conv2 (1×1, hardswish) and a 2×2
// max pool. Its parameters carry PaddleOCR's names (conv1.conv.weight,
// blocks.<i>.expand_conv|bottleneck_conv|mid_se|linear_conv, conv2), so a
// PaddleOCR checkpoint loads (PaddleName).
type MobileNetV3 struct {
	conv1, conv2 *zoo.ConvBN
	blocks       []*mbv3Unit
	pool         *nn.MaxPool2D
	out          int
}

// mbv3Unit is det_mobilenet_v3.py's ResidualUnit: 1×1 expand, k×k
// depthwise (both with the block's activation), optional SE (hardsigmoid
// slope 0.2), 1×1 linear projection, and a shortcut when the shape keeps.
type mbv3Unit struct {
	expand, depthwise, linear *zoo.ConvBN
	se                        *zoo.SEModule
	shortcut                  bool
}

// NewMobileNetV3 builds the backbone.
func NewMobileNetV3(o MobileNetV3Opts, r *rand.Rand) (*MobileNetV3, error) {
	if o.InChannels == 0 {
		o.InChannels = 3
	}
	if o.Scale == 0 {
		o.Scale = 0.5
	}
	if !slices.Contains([]float64{0.35, 0.5, 0.75, 1.0, 1.25}, o.Scale) {
		return nil, fmt.Errorf("MobileNetV3: scale %g, supported 0.35, 0.5, 0.75, 1.0, 1.25 (PaddleOCR's)", o.Scale)
	}
	if o.LargeStride == nil {
		o.LargeStride = []int{1, 2, 2, 2}
	}
	if o.SmallStride == nil {
		o.SmallStride = []int{2, 2, 2, 2}
	}
	var table []mbv3Block
	var strides []int
	squeeze := 0
	switch o.ModelName {
	case "large":
		table, strides, squeeze = mbv3Large, o.LargeStride, 960
	case "small", "":
		table, strides, squeeze = mbv3Small, o.SmallStride, 576
	default:
		return nil, fmt.Errorf("MobileNetV3: model_name %q, want large or small", o.ModelName)
	}
	if len(strides) != 4 || slices.ContainsFunc(strides, func(s int) bool { return s < 1 }) {
		return nil, fmt.Errorf("MobileNetV3: %s_stride %v, want 4 positive strides", o.ModelName, strides)
	}
	div := func(v float64) int { return zoo.MakeDivisible(v) }
	m := &MobileNetV3{}
	in := div(16 * o.Scale)
	var err error
	if m.conv1, err = convBN(o.InChannels, in, 3, 2, 2, 1, "hardswish", r); err != nil {
		return nil, err
	}
	for i, b := range table {
		sh, sw := 1, 1
		if b.stride >= 0 {
			sh = strides[b.stride]
			if b.stride == 0 && o.ModelName == "large" {
				sw = sh // the large model's first stride is an int: both sides
			}
		}
		u, err := newMbv3Unit(in, div(o.Scale*float64(b.exp)), div(o.Scale*float64(b.c)), b.k, sh, sw, b.se && !o.DisableSE, b.act, r)
		if err != nil {
			return nil, fmt.Errorf("MobileNetV3 block %d: %w", i, err)
		}
		m.blocks = append(m.blocks, u)
		in = div(o.Scale * float64(b.c))
	}
	m.out = div(o.Scale * float64(squeeze))
	if m.conv2, err = convBN(in, m.out, 1, 1, 1, 1, "hardswish", r); err != nil {
		return nil, err
	}
	if m.pool, err = nn.NewMaxPool2D(nn.PoolOptions{KernelSize: []int{2}, Stride: []int{2}}); err != nil {
		return nil, err
	}
	return m, nil
}

// convBN is a ConvBN with stride (sh, sw) and padding (k-1)/2.
func convBN(in, out, k, sh, sw, groups int, act string, r *rand.Rand) (*zoo.ConvBN, error) {
	c, err := zoo.NewConvBN(in, out, k, 1, groups, act, r)
	if err != nil {
		return nil, err
	}
	if sh != 1 || sw != 1 {
		if c.Conv, err = nn.NewConv2D(nn.ConvOptions{
			InChannels: in, OutChannels: out, KernelSize: []int{k}, Stride: []int{sh, sw},
			Padding: []int{(k - 1) / 2}, Groups: groups, NoBias: true,
		}, r); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func newMbv3Unit(in, mid, out, k, sh, sw int, se bool, act string, r *rand.Rand) (*mbv3Unit, error) {
	u := &mbv3Unit{shortcut: sh == 1 && sw == 1 && in == out}
	var err error
	if u.expand, err = convBN(in, mid, 1, 1, 1, 1, act, r); err != nil {
		return nil, err
	}
	if u.depthwise, err = convBN(mid, mid, k, sh, sw, mid, act, r); err != nil {
		return nil, err
	}
	if se {
		if u.se, err = zoo.NewSEModule(mid, 4, r); err != nil {
			return nil, err
		}
		u.se.Slope = 0.2
	}
	if u.linear, err = convBN(mid, out, 1, 1, 1, 1, "", r); err != nil {
		return nil, err
	}
	return u, nil
}

func (u *mbv3Unit) Params() []nn.Param {
	var se any
	if u.se != nil {
		se = u.se
	}
	return nn.Collect("expand_conv", u.expand, "bottleneck_conv", u.depthwise, "mid_se", se, "linear_conv", u.linear)
}

func (u *mbv3Unit) Buffers() []nn.Param {
	return nn.CollectBuffers("expand_conv", u.expand, "bottleneck_conv", u.depthwise, "linear_conv", u.linear)
}

func (u *mbv3Unit) Forward(x *ag.Var, training bool) *ag.Var {
	y := u.depthwise.Forward(u.expand.Forward(x, training), training)
	if u.se != nil {
		y = u.se.Forward(y, training)
	}
	y = u.linear.Forward(y, training)
	if u.shortcut {
		y = ag.Add(x, y)
	}
	return y
}

// Params names weights conv1.*, blocks.<i>.*, conv2.*.
func (m *MobileNetV3) Params() []nn.Param {
	ps := nn.Prefix("conv1", m.conv1.Params())
	for i, b := range m.blocks {
		ps = append(ps, nn.Prefix("blocks."+strconv.Itoa(i), b.Params())...)
	}
	return append(ps, nn.Prefix("conv2", m.conv2.Params())...)
}

// Buffers returns the batch-norm statistics.
func (m *MobileNetV3) Buffers() []nn.Param {
	ps := nn.Prefix("conv1", m.conv1.Buffers())
	for i, b := range m.blocks {
		ps = append(ps, nn.Prefix("blocks."+strconv.Itoa(i), b.Buffers())...)
	}
	return append(ps, nn.Prefix("conv2", m.conv2.Buffers())...)
}

// Forward maps x (N, C, H, W) to (N, C', 1, W/4). PaddleOCR's Im2Seq
// requires the height to reach 1 (32-pixel lines); another height left
// here is averaged away, as MiniVGG does.
func (m *MobileNetV3) Forward(x *ag.Var, training bool) *ag.Var {
	x = m.conv1.Forward(x, training)
	for _, b := range m.blocks {
		x = b.Forward(x, training)
	}
	x = m.pool.Forward(m.conv2.Forward(x, training), training)
	if x.Shape()[2] > 1 {
		x = ag.Mean(x, []int{2}, true)
	}
	return x
}

func (m *MobileNetV3) outChannels() int { return m.out }

// PaddleName maps a parameter or buffer name to PaddleOCR's (the same
// structure; SE's down/up are conv1/conv2, batch norms' statistics _mean
// and _variance).
func (m *MobileNetV3) PaddleName(name string) (string, bool) {
	r := strings.NewReplacer("mid_se.down.", "mid_se.conv1.", "mid_se.up.", "mid_se.conv2.")
	return zoo.PaddleBN(r.Replace(name)), false
}
