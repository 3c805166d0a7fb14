package det

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	"paddle/core/ag"
	"paddle/core/nn"
	"paddle/core/op"
	"paddle/core/zoo"
)

// PicoDet.paddle_layers builds PaddleDetection's own neck and head
// (release/2.8: ppdet/modeling/necks/lc_pan.py with csp_pan.py's
// ConvBNLayer, Channel_T and DPModule; heads/pico_head.py's PicoFeat and
// PicoHeadV2), where this port's own LCPAN and PicoHeadV2 differ
// (docs/formats.md), so that a PaddleDetection PicoDet checkpoint loads and
// predicts the same here (paddle_names.go). Without it the port's own
// layers are built, so its trained runs keep loading.

// alignEps is PicoHeadV2's eps in the aligned score sqrt(σ(cls)·σ(align) + eps).
const alignEps = 1e-9

// alignMax bounds the aligned score below 1 before its logit is taken.
const alignMax = 1 - 1e-6

// PaddleLCPAN is PaddleDetection's LCPAN: Channel_T's 1×1 ConvBNLayers to
// out_channels (hard-swish), a top-down path (nearest ×2 upsample, concat,
// two DepthwiseSeparables 2c→2c→c per level), a bottom-up path (a stride-2
// DPModule, concat, two DepthwiseSeparables) and, with num_features 4, a
// stride-64 level first_top_conv(top input) + second_top_conv(top output).
type PaddleLCPAN struct {
	ConvT               []*zoo.ConvBN               // conv_t.convs
	TopDown             [][]*zoo.DepthwiseSeparable // top_down_blocks: [0] fuses the second-coarsest level
	Down                []*zoo.DepthwiseSeparable   // downsamples (DPModule: dwconv, bn1, pwconv, bn2)
	BottomUp            [][]*zoo.DepthwiseSeparable // bottom_up_blocks
	FirstTop, SecondTop *zoo.DepthwiseSeparable     // num_features 4 (DPModules); nil otherwise
}

// newPaddleLCPAN builds PaddleDetection's LCPAN over backbone maps of the given channels.
func newPaddleLCPAN(in []int, o LCPANOpts, r *rand.Rand) (*PaddleLCPAN, error) {
	c, k := o.OutChannels, o.KernelSize
	if c <= 0 {
		return nil, fmt.Errorf("out_channels must be > 0, got %d", c)
	}
	if k == 0 {
		k = 5
	}
	if o.NumFeatures != 0 && o.NumFeatures != 3 && o.NumFeatures != 4 {
		return nil, fmt.Errorf("num_features: want 3 or 4, got %d", o.NumFeatures)
	}
	n := &PaddleLCPAN{}
	for _, ci := range in {
		l, err := zoo.NewConvBN(ci, c, 1, 1, 1, "hardswish", r)
		if err != nil {
			return nil, err
		}
		n.ConvT = append(n.ConvT, l)
	}
	pair := func() ([]*zoo.DepthwiseSeparable, error) {
		a, err := zoo.NewDepthwiseSeparable(2*c, 2*c, k, 1, false, r)
		if err != nil {
			return nil, err
		}
		b, err := zoo.NewDepthwiseSeparable(2*c, c, k, 1, false, r)
		return []*zoo.DepthwiseSeparable{a, b}, err
	}
	for range len(in) - 1 {
		td, err := pair()
		if err != nil {
			return nil, err
		}
		dn, err := zoo.NewDepthwiseSeparable(c, c, k, 2, false, r)
		if err != nil {
			return nil, err
		}
		bu, err := pair()
		if err != nil {
			return nil, err
		}
		n.TopDown, n.Down, n.BottomUp = append(n.TopDown, td), append(n.Down, dn), append(n.BottomUp, bu)
	}
	if o.NumFeatures == 4 {
		var err error
		if n.FirstTop, err = zoo.NewDepthwiseSeparable(c, c, k, 2, false, r); err != nil {
			return nil, err
		}
		if n.SecondTop, err = zoo.NewDepthwiseSeparable(c, c, k, 2, false, r); err != nil {
			return nil, err
		}
	}
	return n, nil
}

func nestedParams(name string, xs [][]*zoo.DepthwiseSeparable, buffers bool) []nn.Param {
	var out []nn.Param
	for i, x := range xs {
		if buffers {
			out = append(out, listBuffers(name+"."+strconv.Itoa(i), x)...)
		} else {
			out = append(out, listParams(name+"."+strconv.Itoa(i), x)...)
		}
	}
	return out
}

// Params returns conv_t.*, top_down_blocks.*, downsamples.*,
// bottom_up_blocks.*, first_top_conv.*, second_top_conv.*.
func (n *PaddleLCPAN) Params() []nn.Param {
	out := listParams("conv_t.convs", n.ConvT)
	out = append(out, nestedParams("top_down_blocks", n.TopDown, false)...)
	out = append(out, listParams("downsamples", n.Down)...)
	out = append(out, nestedParams("bottom_up_blocks", n.BottomUp, false)...)
	return append(out, nn.Collect("first_top_conv", n.FirstTop, "second_top_conv", n.SecondTop)...)
}

// Buffers returns the batch norms' running statistics.
func (n *PaddleLCPAN) Buffers() []nn.Param {
	out := listBuffers("conv_t.convs", n.ConvT)
	out = append(out, nestedParams("top_down_blocks", n.TopDown, true)...)
	out = append(out, listBuffers("downsamples", n.Down)...)
	out = append(out, nestedParams("bottom_up_blocks", n.BottomUp, true)...)
	return append(out, nn.CollectBuffers("first_top_conv", n.FirstTop, "second_top_conv", n.SecondTop)...)
}

// Forward maps the backbone maps (fine to coarse) to the neck's levels, one
// more than given with num_features 4.
func (n *PaddleLCPAN) Forward(feats []*ag.Var, training bool) []*ag.Var {
	in := make([]*ag.Var, len(feats))
	for i, f := range feats {
		in[i] = n.ConvT[i].Forward(f, training)
	}
	last := len(in) - 1
	inner := make([]*ag.Var, len(in))
	inner[last] = in[last]
	for idx := last; idx > 0; idx-- {
		s := in[idx-1].Shape()
		up := ag.Resize(inner[idx], op.ResizeParams{Mode: "nearest", Sizes: []int{s[2], s[3]}})
		x := ag.Concat(1, up, in[idx-1])
		for _, b := range n.TopDown[last-idx] {
			x = b.Forward(x, training)
		}
		inner[idx-1] = x
	}
	outs := []*ag.Var{inner[0]}
	for idx := range last {
		x := ag.Concat(1, n.Down[idx].Forward(outs[idx], training), inner[idx+1])
		for _, b := range n.BottomUp[idx] {
			x = b.Forward(x, training)
		}
		outs = append(outs, x)
	}
	if n.FirstTop != nil {
		outs = append(outs, ag.Add(n.FirstTop.Forward(in[last], training), n.SecondTop.Forward(outs[last], training)))
	}
	return outs
}

// PicoSE is PaddleDetection's PicoSE with PicoFeat's activation after it:
// hardswish(ConvNorm(x · σ(fc(mean over H, W of x)))), fc a 1×1 conv with
// bias.
type PicoSE struct {
	FC   *nn.Conv2D
	Conv *zoo.ConvBN
}

func newPicoSE(c int, r *rand.Rand) (*PicoSE, error) {
	fc, err := nn.NewConv2D(nn.ConvOptions{InChannels: c, OutChannels: c, KernelSize: []int{1}}, r)
	if err != nil {
		return nil, err
	}
	nn.Normal(r, fc.Weight.T, 0, 0.001)
	conv, err := zoo.NewConvBN(c, c, 1, 1, 1, "hardswish", r)
	return &PicoSE{FC: fc, Conv: conv}, err
}

// Params returns fc.*, conv.*.
func (s *PicoSE) Params() []nn.Param { return nn.Collect("fc", s.FC, "conv", s.Conv) }

// Buffers returns the batch norm's running statistics.
func (s *PicoSE) Buffers() []nn.Param { return nn.CollectBuffers("conv", s.Conv) }

// Forward applies the SE step to x (N, C, H, W).
func (s *PicoSE) Forward(x *ag.Var, training bool) *ag.Var {
	w := ag.Sigmoid(s.FC.Forward(ag.GlobalAvgPool(x), training))
	return s.Conv.Forward(ag.Mul(x, w), training)
}

// AlignBranch is PicoHeadV2's cls_align, a DPModule(C, 1, 5,
// use_act_in_out=False): its "depthwise" conv has groups = out = 1, so it
// is a full 5×5 conv C→1 + BN + hardswish, then a 1×1 conv + BN.
type AlignBranch struct {
	DW, PW *zoo.ConvBN
}

func newAlignBranch(c int, r *rand.Rand) (*AlignBranch, error) {
	dw, err := zoo.NewConvBN(c, 1, 5, 1, 1, "hardswish", r)
	if err != nil {
		return nil, err
	}
	pw, err := zoo.NewConvBN(1, 1, 1, 1, 1, "", r)
	return &AlignBranch{DW: dw, PW: pw}, err
}

// Params returns dw.*, pw.*.
func (a *AlignBranch) Params() []nn.Param { return nn.Collect("dw", a.DW, "pw", a.PW) }

// Buffers returns the batch norms' running statistics.
func (a *AlignBranch) Buffers() []nn.Param { return nn.CollectBuffers("dw", a.DW, "pw", a.PW) }

// Forward maps the tower's output (N, C, H, W) to alignment logits (N, 1, H, W).
func (a *AlignBranch) Forward(x *ag.Var, training bool) *ag.Var {
	return a.PW.Forward(a.DW.Forward(x, training), training)
}

// alignedLogit is the logit of PicoHeadV2's score sqrt(σ(cls)·σ(align) + eps),
// so that σ of it is that score and the varifocal loss's binary cross
// entropy on it is PaddleDetection's (use_sigmoid: false) on the score.
func alignedLogit(cls, align *ag.Var) *ag.Var {
	p := ag.Sqrt(ag.AddScalar(ag.Mul(ag.Sigmoid(cls), ag.Sigmoid(align)), alignEps))
	p = ag.Clip(p, 0, alignMax)
	return ag.Sub(ag.Log(p), ag.Log(ag.AddScalar(ag.Neg(p), 1)))
}

// addPaddleHead gives h PaddleDetection's PicoFeat/PicoHeadV2 layers: one
// PicoSE per level after the tower (use_se) and the alignment branch
// (use_align_head). PicoFeat's towers are this port's depthwise-separable
// blocks without SE, shared by both outputs.
func (h *PicoHead) addPaddleHead(in int, o PicoHeadOpts, r *rand.Rand) error {
	f := o.ConvFeat
	if !f.ShareClsReg {
		return fmt.Errorf("conv_feat.share_cls_reg: false is not built with PicoDet.paddle_layers (PaddleDetection's PicoFeat requires it with use_se)")
	}
	if f.FeatOut != 0 && f.FeatOut != in {
		return fmt.Errorf("conv_feat.feat_out %d: PicoDet.paddle_layers builds feat_in = feat_out = the neck's out_channels %d", f.FeatOut, in)
	}
	if o.FeatInChan != 0 && o.FeatInChan != in {
		return fmt.Errorf("feat_in_chan %d: want the neck's out_channels %d", o.FeatInChan, in)
	}
	for range h.Strides {
		if f.UseSE {
			se, err := newPicoSE(in, r)
			if err != nil {
				return err
			}
			h.SE = append(h.SE, se)
		}
		if o.UseAlignHead {
			a, err := newAlignBranch(in, r)
			if err != nil {
				return err
			}
			h.Align = append(h.Align, a)
		}
	}
	return nil
}

// buildPaddleNeckHead builds PaddleDetection's LCPAN and PicoHeadV2 over
// backbone maps of chans channels.
func (m *PicoDet) buildPaddleNeckHead(chans []int, nk LCPANOpts, hd PicoHeadOpts, numClasses int, r *rand.Rand) error {
	neck, err := newPaddleLCPAN(chans, nk, r)
	if err != nil {
		return fmt.Errorf("LCPAN: %w", err)
	}
	levels := len(chans)
	if neck.FirstTop != nil {
		levels++
	}
	if len(hd.FPNStride) == 0 {
		hd.FPNStride = []int{8, 16, 32, 64}[:levels]
	}
	if len(hd.FPNStride) != levels {
		return fmt.Errorf("PicoHeadV2.fpn_stride: the neck gives %d levels (LCPAN.num_features), got %v", levels, hd.FPNStride)
	}
	if hd.ConvFeat.NumFPNLevel != 0 && hd.ConvFeat.NumFPNLevel != levels {
		return fmt.Errorf("PicoHeadV2.conv_feat.num_fpn_stride: the neck gives %d levels, got %d", levels, hd.ConvFeat.NumFPNLevel)
	}
	se := hd.ConvFeat.UseSE
	hd.ConvFeat.UseSE = false // PicoFeat's SE is one PicoSE per level, not one per block
	if m.Head, err = NewPicoHead(nk.OutChannels, numClasses, hd, r); err != nil {
		return fmt.Errorf("PicoHeadV2: %w", err)
	}
	hd.ConvFeat.UseSE = se
	if err := m.Head.addPaddleHead(nk.OutChannels, hd, r); err != nil {
		return fmt.Errorf("PicoHeadV2.%w", err)
	}
	m.Neck, m.paddle = neck, true
	return nil
}
