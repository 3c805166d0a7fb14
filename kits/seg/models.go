package seg

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/nn"
	"paddle/core/op"
	"paddle/core/tensor"
	"paddle/core/zoo"
)

// Model is a segmentation network: Logits maps images (N, 3, H, W) to
// class logits (N, classes, H, W) at the input's size. In training it may
// return more than one map (auxiliary heads), the main one first; in eval
// mode it returns one.
type Model interface {
	nn.Module
	nn.Bufferer
	Logits(x *ag.Var, training bool) []*ag.Var
}

// modelSpec is a decoded `model:`: how to build it for a number of classes,
// and the checkpoint folders its options name to start training from.
type modelSpec struct {
	build                     func(numClasses int, r *rand.Rand) (Model, error)
	backbonePretrained, whole string // model.backbone.pretrained, model.pretrained ("" when null)
}

// models are the networks `model:` can choose.
var models = newModels()

func newModels() *config.Registry[struct{}, modelSpec] {
	r := config.NewRegistry[struct{}, modelSpec]("model")
	config.Add(r, "PPLiteSeg", PPLiteSegOpts{}, func(_ config.Component, o PPLiteSegOpts, _ struct{}) (modelSpec, error) {
		var b BackboneOpts
		if o.Backbone.Name != "" && o.Backbone.Name != importedBackbone {
			if err := o.Backbone.Decode(&b); err != nil {
				return modelSpec{}, err
			}
		}
		return modelSpec{backbonePretrained: b.Pretrained, whole: o.Pretrained, build: func(numClasses int, r *rand.Rand) (Model, error) {
			if o.NumClasses == 0 {
				o.NumClasses = numClasses
			}
			bb, err := buildBackbone(o.Backbone, r)
			if err != nil {
				return nil, err
			}
			m, err := newPPLiteSeg(o, bb, r)
			if err != nil || !o.PaddleLayers {
				return m, err
			}
			return newPaddleLiteSeg(m)
		}}, nil
	})
	config.Add(r, "UNet", UNetOpts{}, func(_ config.Component, o UNetOpts, _ struct{}) (modelSpec, error) {
		return modelSpec{whole: o.Pretrained, build: func(numClasses int, r *rand.Rand) (Model, error) {
			if o.NumClasses == 0 {
				o.NumClasses = numClasses
			}
			return newUNet(o, r)
		}}, nil
	})
	return r
}

// buildModel makes the model `model:` names for numClasses classes.
func buildModel(c config.Component, numClasses int, r *rand.Rand) (Model, error) {
	spec, err := models.Build(c, struct{}{})
	if err != nil {
		return nil, err
	}
	return spec.build(numClasses, r)
}

// backbones are the STDC variants `model.backbone` can choose; STDCNet is
// STDC1 (PaddleSeg's name for the class).
var backbones = newBackbones()

func newBackbones() *config.Registry[*rand.Rand, Backbone] {
	r := config.NewRegistry[*rand.Rand, Backbone]("backbone")
	stdc := func(c config.Component, b BackboneOpts, r *rand.Rand) (Backbone, error) {
		bb, err := zoo.NewSTDCNet(b.STDCOptions, r)
		if err != nil {
			return nil, c.Errorf("%v", err)
		}
		return bb, nil
	}
	config.Add(r, "STDC1", BackboneOpts{STDCOptions: zoo.STDCOptions{Layers: []int{2, 2, 2}}}, stdc)
	config.Add(r, "STDC2", BackboneOpts{STDCOptions: zoo.STDCOptions{Layers: []int{4, 5, 3}}}, stdc)
	config.Add(r, "STDCNet", BackboneOpts{STDCOptions: zoo.STDCOptions{Layers: []int{2, 2, 2}}}, stdc)
	config.Add(r, importedBackbone, zoo.ImportedOptions{}, newImportedBackbone)
	return r
}

// buildBackbone makes the backbone c names (STDC1 when the config names none).
func buildBackbone(c config.Component, r *rand.Rand) (Backbone, error) {
	if c.Name == "" {
		c.Name = "STDC1"
	}
	return backbones.Build(c, r)
}

// upsample resizes x (N, C, h, w) bilinearly to (N, C, H, W), as
// F.interpolate(mode="bilinear", align_corners=False).
func upsample(x *ag.Var, h, w int) *ag.Var {
	s := x.Shape()
	if s[2] == h && s[3] == w {
		return x
	}
	return ag.Resize(x, op.ResizeParams{Mode: "linear", CoordMode: "half_pixel", Sizes: []int{h, w}})
}

// params gathers Params or Buffers of name, part pairs whose parts may be
// slices of modules (named name.<i>).
func params(buffers bool, pairs ...any) []nn.Param {
	var out []nn.Param
	add := func(name string, m nn.Module) {
		if buffers {
			out = append(out, nn.CollectBuffers(name, m)...)
		} else {
			out = append(out, nn.Collect(name, m)...)
		}
	}
	for i := 0; i < len(pairs); i += 2 {
		name := pairs[i].(string)
		switch p := pairs[i+1].(type) {
		case []*zoo.ConvBN:
			for j, m := range p {
				add(name+"."+strconv.Itoa(j), m)
			}
		case []*uafm:
			for j, m := range p {
				add(name+"."+strconv.Itoa(j), m)
			}
		case []*segHead:
			for j, m := range p {
				add(name+"."+strconv.Itoa(j), m)
			}
		case []*unetLevel:
			for j, m := range p {
				add(name+"."+strconv.Itoa(j), m)
			}
		case nn.Module:
			add(name, p)
		default:
			panic(fmt.Sprintf("seg: params: part %q is %T", name, p))
		}
	}
	return out
}

// PPLiteSeg is the real-time network (see PPLiteSegOpts).
type PPLiteSeg struct {
	Backbone Backbone
	SPPM     *sppm
	ARMs     []*uafm    // strides 8, 16, 32
	Heads    []*segHead // one per ARM output
}

// liteSeg returns m (also through PaddleLiteSeg, which embeds it).
func (m *PPLiteSeg) liteSeg() *PPLiteSeg { return m }

func newPPLiteSeg(o PPLiteSegOpts, bb Backbone, r *rand.Rand) (*PPLiteSeg, error) {
	if o.ArmOutChs == nil {
		o.ArmOutChs = []int{64, 96, 128}
	}
	if o.SegHeadInterChs == nil {
		o.SegHeadInterChs = []int{64, 64, 64}
	}
	if o.CMChs == 0 {
		o.CMChs = 128
	}
	if o.CMBins == nil {
		o.CMBins = []int{1, 2, 4}
	}
	chs := bb.Channels()
	if len(o.ArmOutChs) != len(chs) || len(o.SegHeadInterChs) != len(chs) || o.NumClasses < 2 {
		return nil, fmt.Errorf("PPLiteSeg: arm_out_chs and seg_head_inter_chs need %d entries and num_classes ≥ 2, got %v %v %d",
			len(chs), o.ArmOutChs, o.SegHeadInterChs, o.NumClasses)
	}
	m := &PPLiteSeg{Backbone: bb}
	var err error
	pd := o.PaddleLayers
	if m.SPPM, err = newSPPM(chs[len(chs)-1], o.CMChs, o.CMChs, o.CMBins, pd, r); err != nil {
		return nil, err
	}
	for i := range chs {
		high := o.CMChs
		if i < len(chs)-1 {
			high = o.ArmOutChs[i+1]
		}
		a, err := newUAFM(chs[i], high, o.ArmOutChs[i], pd, r)
		if err != nil {
			return nil, err
		}
		m.ARMs = append(m.ARMs, a)
		h, err := newSegHead(o.ArmOutChs[i], o.SegHeadInterChs[i], o.NumClasses, pd, r)
		if err != nil {
			return nil, err
		}
		m.Heads = append(m.Heads, h)
	}
	return m, nil
}

// Params returns backbone.*, sppm.*, arms.<i>.*, heads.<i>.*.
func (m *PPLiteSeg) Params() []nn.Param {
	return params(false, "backbone", m.Backbone, "sppm", m.SPPM, "arms", m.ARMs, "heads", m.Heads)
}

// Buffers returns the batch norms' running statistics.
func (m *PPLiteSeg) Buffers() []nn.Param {
	return params(true, "backbone", m.Backbone, "sppm", m.SPPM, "arms", m.ARMs, "heads", m.Heads)
}

// Logits runs backbone → SPPM → UAFMs top-down → heads; training returns
// all three heads' logits, eval only the stride-8 one.
func (m *PPLiteSeg) Logits(x *ag.Var, training bool) []*ag.Var {
	h, w := x.Shape()[2], x.Shape()[3]
	feats := m.Backbone.Features(x, training)
	high := m.SPPM.Forward(feats[len(feats)-1], training)
	fused := make([]*ag.Var, len(feats))
	for i := len(feats) - 1; i >= 0; i-- {
		high = m.ARMs[i].fuse(feats[i], high, training)
		fused[i] = high
	}
	n := 1
	if training {
		n = len(fused)
	}
	out := make([]*ag.Var, n)
	for i := range n {
		out[i] = upsample(m.Heads[i].Forward(fused[i], training), h, w)
	}
	return out
}

// Forward returns the main logits (nn.Layer).
func (m *PPLiteSeg) Forward(x *ag.Var, training bool) *ag.Var { return m.Logits(x, training)[0] }

// sppm is the simple pyramid pooling module: average pools to bins×bins,
// a 1x1 ConvBNReLU each, upsampled and summed, then a 3x3 ConvBNReLU.
// PaddleSeg's PPContextModule gives these convs a bias (bias true).
type sppm struct {
	Stages []*zoo.ConvBN
	Out    *zoo.ConvBN
	bins   []int
}

func newSPPM(in, inter, out int, bins []int, bias bool, r *rand.Rand) (*sppm, error) {
	s := &sppm{bins: bins}
	for range bins {
		c, err := convBNReLU(in, inter, 1, bias, r)
		if err != nil {
			return nil, err
		}
		s.Stages = append(s.Stages, c)
	}
	var err error
	s.Out, err = convBNReLU(inter, out, 3, bias, r)
	return s, err
}

// convBNReLU is a stride-1 ConvBN with ReLU whose conv has a bias when
// bias is set (PaddleSeg's layers.ConvBNReLU without bias_attr=False).
func convBNReLU(in, out, kernel int, bias bool, r *rand.Rand) (*zoo.ConvBN, error) {
	c, err := zoo.NewConvBN(in, out, kernel, 1, 1, "relu", r)
	if err != nil || !bias {
		return c, err
	}
	c.Conv, err = nn.NewConv2D(nn.ConvOptions{InChannels: in, OutChannels: out, KernelSize: []int{kernel}, Padding: []int{(kernel - 1) / 2}}, r)
	return c, err
}

func (s *sppm) Params() []nn.Param  { return params(false, "stages", s.Stages, "out", s.Out) }
func (s *sppm) Buffers() []nn.Param { return params(true, "stages", s.Stages, "out", s.Out) }

// pool averages x (N, C, H, W) to (N, C, b, b) as an adaptive average
// pool: global pooling for b = 1, a plain average pool when b divides H and
// W, else two matrix products with the pooling matrices, Ph·x·Pwᵀ. All
// three export to ONNX, which has no adaptive pool.
func pool(x *ag.Var, b int) *ag.Var {
	h, w := x.Shape()[2], x.Shape()[3]
	switch {
	case b == 1:
		return ag.GlobalAvgPool(x)
	case h%b == 0 && w%b == 0:
		return ag.AvgPool2D(x, op.PoolParams{Kernel: []int{h / b, w / b}, Strides: []int{h / b, w / b}})
	}
	dt := x.DType()
	pw := ag.Const(op.Transpose(poolMatrix(w, b, dt), 1, 0).Contiguous()) // (W, b)
	ph := ag.Const(poolMatrix(h, b, dt))                                  // (b, H)
	return ag.MatMul(ph, ag.MatMul(x, pw, false, false), false, false)
}

// poolMatrix is adaptive average pooling along one axis as an (out, in)
// matrix: row i averages inputs floor(i·in/out) .. ceil((i+1)·in/out)-1.
func poolMatrix(in, out int, dt tensor.DType) *tensor.Tensor {
	m := make([]float64, out*in)
	for i := range out {
		lo, hi := i*in/out, ((i+1)*in+out-1)/out
		for j := lo; j < hi; j++ {
			m[i*in+j] = 1 / float64(hi-lo)
		}
	}
	return tensor.FromSlice(m, out, in).Cast(dt)
}

func (s *sppm) Forward(x *ag.Var, training bool) *ag.Var {
	h, w := x.Shape()[2], x.Shape()[3]
	var sum *ag.Var
	for i, b := range s.bins {
		y := upsample(s.Stages[i].Forward(pool(x, b), training), h, w)
		if sum == nil {
			sum = y
		} else {
			sum = ag.Add(sum, y)
		}
	}
	return s.Out.Forward(sum, training)
}

// uafm is the unified attention fusion module with spatial attention: the
// low-level map x is brought to the high-level map's width, the high map y
// is upsampled to x's size, α = sigmoid(conv(conv([mean_c x, max_c x,
// mean_c y, max_c y]))) and out = ConvBNReLU(x·α + y·(1-α)). PaddleSeg's
// UAFM_SpAtten (since August 2022) computes x·α + y·(s-α) with a frozen
// one-element parameter s = 1, _scale: Scale, a buffer, when scale is set.
type uafm struct {
	ConvX  *zoo.ConvBN
	Atten1 *zoo.ConvBN
	Atten2 *zoo.ConvBN
	Out    *zoo.ConvBN
	Scale  *ag.Var // (1), nil without scale
}

func newUAFM(low, high, out int, scale bool, r *rand.Rand) (*uafm, error) {
	u := &uafm{}
	if scale {
		u.Scale = ag.Const(tensor.FromSlice([]float32{1}, 1))
	}
	var err error
	if u.ConvX, err = zoo.NewConvBN(low, high, 3, 1, 1, "relu", r); err != nil {
		return nil, err
	}
	if u.Atten1, err = zoo.NewConvBN(4, 2, 3, 1, 1, "relu", r); err != nil {
		return nil, err
	}
	if u.Atten2, err = zoo.NewConvBN(2, 1, 3, 1, 1, "", r); err != nil {
		return nil, err
	}
	u.Out, err = zoo.NewConvBN(high, out, 3, 1, 1, "relu", r)
	return u, err
}

func (u *uafm) Params() []nn.Param {
	return nn.Collect("conv_x", u.ConvX, "atten1", u.Atten1, "atten2", u.Atten2, "out", u.Out)
}
func (u *uafm) Buffers() []nn.Param {
	return nn.CollectBuffers("conv_x", u.ConvX, "atten1", u.Atten1, "atten2", u.Atten2, "out", u.Out, "scale", u.Scale)
}

func (u *uafm) fuse(low, high *ag.Var, training bool) *ag.Var {
	x := u.ConvX.Forward(low, training)
	y := upsample(high, x.Shape()[2], x.Shape()[3])
	c := []int{1}
	a := ag.Concat(1, ag.Mean(x, c, true), ag.Max(x, c, true), ag.Mean(y, c, true), ag.Max(y, c, true))
	alpha := ag.Sigmoid(u.Atten2.Forward(u.Atten1.Forward(a, training), training))
	if u.Scale != nil {
		// x·α + y·(s-α), as PaddleSeg writes it
		return u.Out.Forward(ag.Add(ag.Mul(x, alpha), ag.Mul(y, ag.Sub(u.Scale, alpha))), training)
	}
	// x·α + y·(1-α) = y + (x - y)·α
	return u.Out.Forward(ag.Add(y, ag.Mul(ag.Sub(x, y), alpha)), training)
}

// segHead is a 3x3 ConvBNReLU then a 1x1 conv to the classes, without a
// bias when noBias (PaddleSeg's SegHead.conv_out).
type segHead struct {
	Conv *zoo.ConvBN
	Cls  *nn.Conv2D
}

func newSegHead(in, mid, classes int, noBias bool, r *rand.Rand) (*segHead, error) {
	c, err := zoo.NewConvBN(in, mid, 3, 1, 1, "relu", r)
	if err != nil {
		return nil, err
	}
	cls, err := nn.NewConv2D(nn.ConvOptions{InChannels: mid, OutChannels: classes, KernelSize: []int{1}, NoBias: noBias}, r)
	return &segHead{Conv: c, Cls: cls}, err
}

func (s *segHead) Params() []nn.Param  { return nn.Collect("conv", s.Conv, "cls", s.Cls) }
func (s *segHead) Buffers() []nn.Param { return nn.CollectBuffers("conv", s.Conv) }
func (s *segHead) Forward(x *ag.Var, training bool) *ag.Var {
	return s.Cls.Forward(s.Conv.Forward(x, training), training)
}
