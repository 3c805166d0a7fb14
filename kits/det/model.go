package det

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"paddle/core/ag"
	"paddle/core/nn"
	"paddle/core/op"
	"paddle/core/tensor"
	"paddle/core/zoo"
)

// PicoDet is an anchor-free one-stage detector in the PP-PicoDet family
// (Yu et al. 2021, https://arxiv.org/abs/2111.00902): a PP-LCNet backbone
// (core/zoo) giving stride 8/16/32 maps, a light PAN neck, and a GFL-style
// head per level predicting class scores (trained with varifocal loss) and a
// distribution over reg_max+1 bins per box side (trained with distribution
// focal loss and GIoU).
type PicoDet struct {
	Backbone *zoo.PPLCNet
	Imported *zoo.ImportedBackbone // instead of Backbone: PPLCNetV3 (backbone_imported.go)
	Neck     Neck                  // *LCPAN, or *PaddleLCPAN with PicoDet.paddle_layers
	Head     *PicoHead
	featAt   []int // backbone block after which each level's map is taken
	paddle   bool  // PaddleDetection's own neck and head (paddle_layers.go)
}

// Neck fuses the backbone's maps (fine to coarse) into the head's levels.
type Neck interface {
	Params() []nn.Param
	Buffers() []nn.Param
	Forward(feats []*ag.Var, training bool) []*ag.Var
}

// blocks of PP-LCNet per stage (core/zoo's NET_CONFIG): stages 3, 4, 5 end
// after blocks 4, 10, 12.
var lcnetStageEnd = map[int]int{1: 0, 2: 2, 3: 4, 4: 10, 5: 12}

// NewPicoDet builds the model for numClasses classes.
func NewPicoDet(bb LCNetOpts, nk LCPANOpts, hd PicoHeadOpts, numClasses int, r *rand.Rand) (*PicoDet, error) {
	if numClasses <= 0 {
		return nil, fmt.Errorf("num_classes must be > 0, got %d", numClasses)
	}
	if len(bb.FeatureMaps) == 0 {
		bb.FeatureMaps = []int{3, 4, 5}
	}
	if len(bb.FeatureMaps) != 3 {
		return nil, fmt.Errorf("LCNet.feature_maps: want 3 stages (e.g. [3, 4, 5]), got %v", bb.FeatureMaps)
	}
	back, err := zoo.NewPPLCNet(zoo.PPLCNetOptions{Scale: bb.Scale, InChannels: 3}, r)
	if err != nil {
		return nil, fmt.Errorf("LCNet: %w", err)
	}
	m := &PicoDet{Backbone: back}
	var chans []int
	for _, s := range bb.FeatureMaps {
		end, ok := lcnetStageEnd[s]
		if !ok {
			return nil, fmt.Errorf("LCNet.feature_maps: stage %d does not exist (1..5)", s)
		}
		m.featAt = append(m.featAt, end)
		chans = append(chans, back.Blocks[end].PW.Conv.Weight.T.Shape()[0])
	}
	if err := m.buildNeckHead(chans, nk, hd, numClasses, r); err != nil {
		return nil, err
	}
	return m, nil
}

// buildNeckHead builds the neck over backbone maps of chans channels, then the head.
func (m *PicoDet) buildNeckHead(chans []int, nk LCPANOpts, hd PicoHeadOpts, numClasses int, r *rand.Rand) error {
	if nk.paddle {
		return m.buildPaddleNeckHead(chans, nk, hd, numClasses, r)
	}
	if nk.NumFeatures != 0 && nk.NumFeatures != 3 {
		return fmt.Errorf("LCPAN.num_features: only 3 levels are supported without PicoDet.paddle_layers, got %d", nk.NumFeatures)
	}
	if len(hd.FPNStride) != 0 && len(hd.FPNStride) != 3 {
		return fmt.Errorf("PicoHeadV2.fpn_stride: want 3 strides without PicoDet.paddle_layers, got %v", hd.FPNStride)
	}
	neck, err := NewLCPAN(chans, nk, r)
	if err != nil {
		return fmt.Errorf("LCPAN: %w", err)
	}
	m.Neck = neck
	if m.Head, err = NewPicoHead(nk.OutChannels, numClasses, hd, r); err != nil {
		return fmt.Errorf("PicoHeadV2: %w", err)
	}
	return nil
}

// Params returns backbone.*, neck.*, head.*.
func (m *PicoDet) Params() []nn.Param {
	return nn.Collect("backbone", m.Backbone, "backbone", m.Imported, "neck", m.Neck, "head", m.Head)
}

// Buffers returns the batch norms' running statistics.
func (m *PicoDet) Buffers() []nn.Param {
	return nn.CollectBuffers("backbone", m.Backbone, "backbone", m.Imported, "neck", m.Neck, "head", m.Head)
}

// Output is the raw head output over all levels, anchors in level order
// (stride 8 row-major first).
type Output struct {
	Cls *ag.Var // (N, A, K) class logits
	Reg *ag.Var // (N, A, 4·(reg_max+1)) box-side bin logits (left, top, right, bottom)
}

// Run maps images (N, 3, H, W), H and W multiples of 32, to head outputs.
func (m *PicoDet) Run(x *ag.Var, training bool) Output {
	if m.Imported != nil {
		return m.Head.Forward(m.Neck.Forward(m.Imported.Features(x, training), training), training)
	}
	x = m.Backbone.Stem.Forward(x, training)
	var feats []*ag.Var
	k := 0
	for i, b := range m.Backbone.Blocks {
		if k == len(m.featAt) {
			break
		}
		x = b.Forward(x, training)
		if i == m.featAt[k] {
			feats = append(feats, x)
			k++
		}
	}
	return m.Head.Forward(m.Neck.Forward(feats, training), training)
}

// LCPAN is a light PAN: 1x1 lateral convs to one width, a top-down path
// (upsample ×2, concat, depthwise-separable fusion) then a bottom-up path
// (stride-2 depthwise-separable conv, concat, fusion).
type LCPAN struct {
	Lateral  []*zoo.ConvBN
	TopDown  []*zoo.DepthwiseSeparable // fuse level i (0, 1)
	Down     []*zoo.DepthwiseSeparable // level i → i+1
	BottomUp []*zoo.DepthwiseSeparable // fuse level i+1
}

// NewLCPAN builds the neck over backbone maps of the given channels.
func NewLCPAN(in []int, o LCPANOpts, r *rand.Rand) (*LCPAN, error) {
	c := o.OutChannels
	if c <= 0 {
		return nil, fmt.Errorf("out_channels must be > 0, got %d", c)
	}
	k := o.KernelSize
	if k == 0 {
		k = 5
	}
	n := &LCPAN{}
	for _, ci := range in {
		l, err := zoo.NewConvBN(ci, c, 1, 1, 1, "hardswish", r)
		if err != nil {
			return nil, err
		}
		n.Lateral = append(n.Lateral, l)
	}
	for range len(in) - 1 {
		td, err := zoo.NewDepthwiseSeparable(2*c, c, k, 1, false, r)
		if err != nil {
			return nil, err
		}
		dn, err := zoo.NewDepthwiseSeparable(c, c, k, 2, false, r)
		if err != nil {
			return nil, err
		}
		bu, err := zoo.NewDepthwiseSeparable(2*c, c, k, 1, false, r)
		if err != nil {
			return nil, err
		}
		n.TopDown, n.Down, n.BottomUp = append(n.TopDown, td), append(n.Down, dn), append(n.BottomUp, bu)
	}
	return n, nil
}

func listParams[T interface{ Params() []nn.Param }](name string, xs []T) []nn.Param {
	var out []nn.Param
	for i, x := range xs {
		out = append(out, nn.Prefix(name+"."+strconv.Itoa(i), x.Params())...)
	}
	return out
}

func listBuffers[T interface{ Buffers() []nn.Param }](name string, xs []T) []nn.Param {
	var out []nn.Param
	for i, x := range xs {
		out = append(out, nn.Prefix(name+"."+strconv.Itoa(i), x.Buffers())...)
	}
	return out
}

// Params returns lateral.*, top_down.*, down.*, bottom_up.*.
func (n *LCPAN) Params() []nn.Param {
	out := listParams("lateral", n.Lateral)
	out = append(out, listParams("top_down", n.TopDown)...)
	out = append(out, listParams("down", n.Down)...)
	return append(out, listParams("bottom_up", n.BottomUp)...)
}

// Buffers returns the batch norms' running statistics.
func (n *LCPAN) Buffers() []nn.Param {
	out := listBuffers("lateral", n.Lateral)
	out = append(out, listBuffers("top_down", n.TopDown)...)
	out = append(out, listBuffers("down", n.Down)...)
	return append(out, listBuffers("bottom_up", n.BottomUp)...)
}

// Forward maps the backbone maps (fine to coarse) to fused maps of the neck's width.
func (n *LCPAN) Forward(feats []*ag.Var, training bool) []*ag.Var {
	lat := make([]*ag.Var, len(feats))
	for i, f := range feats {
		lat[i] = n.Lateral[i].Forward(f, training)
	}
	inner := make([]*ag.Var, len(feats))
	inner[len(feats)-1] = lat[len(feats)-1]
	for i := len(feats) - 2; i >= 0; i-- {
		s := lat[i].Shape()
		up := ag.Resize(inner[i+1], op.ResizeParams{Mode: "nearest", Sizes: []int{s[2], s[3]}})
		inner[i] = n.TopDown[i].Forward(ag.Concat(1, up, lat[i]), training)
	}
	out := make([]*ag.Var, len(feats))
	out[0] = inner[0]
	for i := 1; i < len(feats); i++ {
		d := n.Down[i-1].Forward(out[i-1], training)
		out[i] = n.BottomUp[i-1].Forward(ag.Concat(1, d, inner[i]), training)
	}
	return out
}

// PicoHead is the per-level GFL head: a tower of depthwise-separable convs
// (shared by both outputs, or one per output when decoupled), then 1x1 convs
// to class logits and to 4·(reg_max+1) bin logits.
type PicoHead struct {
	ClsTower, RegTower [][]*zoo.DepthwiseSeparable // [level][conv]; RegTower nil when shared
	ClsOut, RegOut     []*nn.Conv2D
	SE                 []*PicoSE      // per level after the tower (PicoDet.paddle_layers with use_se); nil otherwise
	Align              []*AlignBranch // per level (paddle_layers with use_align_head); nil otherwise
	Strides            []int
	RegMax             int
	NumClasses         int
}

// NewPicoHead builds the head over neck maps of in channels.
func NewPicoHead(in, numClasses int, o PicoHeadOpts, r *rand.Rand) (*PicoHead, error) {
	h := &PicoHead{Strides: o.FPNStride, RegMax: o.RegMax, NumClasses: numClasses}
	if len(h.Strides) == 0 {
		h.Strides = []int{8, 16, 32}
	}
	if len(h.Strides) != 3 && len(h.Strides) != 4 {
		return nil, fmt.Errorf("fpn_stride: want 3 or 4 strides, got %v", h.Strides)
	}
	if h.RegMax == 0 {
		h.RegMax = 7
	}
	f := o.ConvFeat
	out := f.FeatOut
	if out == 0 {
		out = in
	}
	nc := f.NumConvs
	if nc == 0 {
		nc = 2
	}
	prior := o.PriorProb
	if prior == 0 {
		prior = 0.01
	}
	tower := func() ([]*zoo.DepthwiseSeparable, error) {
		var t []*zoo.DepthwiseSeparable
		c := in
		for range nc {
			b, err := zoo.NewDepthwiseSeparable(c, out, 5, 1, f.UseSE, r)
			if err != nil {
				return nil, err
			}
			t, c = append(t, b), out
		}
		return t, nil
	}
	for range h.Strides {
		t, err := tower()
		if err != nil {
			return nil, err
		}
		h.ClsTower = append(h.ClsTower, t)
		if !f.ShareClsReg {
			if t, err = tower(); err != nil {
				return nil, err
			}
			h.RegTower = append(h.RegTower, t)
		}
		cls, err := nn.NewConv2D(nn.ConvOptions{InChannels: out, OutChannels: numClasses, KernelSize: []int{1}}, r)
		if err != nil {
			return nil, err
		}
		reg, err := nn.NewConv2D(nn.ConvOptions{InChannels: out, OutChannels: 4 * (h.RegMax + 1), KernelSize: []int{1}}, r)
		if err != nil {
			return nil, err
		}
		nn.Normal(r, cls.Weight.T, 0, 0.01)
		nn.Constant(cls.Bias.T, -math.Log((1-prior)/prior))
		nn.Normal(r, reg.Weight.T, 0, 0.01)
		nn.Constant(reg.Bias.T, 0)
		h.ClsOut, h.RegOut = append(h.ClsOut, cls), append(h.RegOut, reg)
	}
	return h, nil
}

// Params returns cls_tower.*, reg_tower.*, se.*, align.*, cls_out.*, reg_out.*.
func (h *PicoHead) Params() []nn.Param {
	var out []nn.Param
	for l := range h.ClsTower {
		out = append(out, listParams("cls_tower."+strconv.Itoa(l), h.ClsTower[l])...)
		if h.RegTower != nil {
			out = append(out, listParams("reg_tower."+strconv.Itoa(l), h.RegTower[l])...)
		}
	}
	out = append(out, listParams("se", h.SE)...)
	out = append(out, listParams("align", h.Align)...)
	out = append(out, listParams("cls_out", h.ClsOut)...)
	return append(out, listParams("reg_out", h.RegOut)...)
}

// Buffers returns the batch norms' running statistics.
func (h *PicoHead) Buffers() []nn.Param {
	var out []nn.Param
	for l := range h.ClsTower {
		out = append(out, listBuffers("cls_tower."+strconv.Itoa(l), h.ClsTower[l])...)
		if h.RegTower != nil {
			out = append(out, listBuffers("reg_tower."+strconv.Itoa(l), h.RegTower[l])...)
		}
	}
	out = append(out, listBuffers("se", h.SE)...)
	return append(out, listBuffers("align", h.Align)...)
}

// Forward maps the neck's maps to logits over all anchors. With the
// alignment branch (Align) the class logits are those of PicoHeadV2's
// aligned scores (alignedLogit).
func (h *PicoHead) Forward(feats []*ag.Var, training bool) Output {
	var cls, reg []*ag.Var
	flat := func(y *ag.Var) *ag.Var { // (N, C, H, W) → (N, H·W, C)
		s := y.Shape()
		return ag.Transpose(ag.Reshape(y, s[0], s[1], s[2]*s[3]), 0, 2, 1)
	}
	for l, f := range feats {
		c := f
		for _, b := range h.ClsTower[l] {
			c = b.Forward(c, training)
		}
		g := c
		if h.RegTower != nil {
			g = f
			for _, b := range h.RegTower[l] {
				g = b.Forward(g, training)
			}
		}
		ci := c
		if h.SE != nil { // PicoFeat: both outputs from the SE step, the alignment from the tower
			ci = h.SE[l].Forward(c, training)
			g = ci
		}
		logit := h.ClsOut[l].Forward(ci, training)
		if h.Align != nil {
			logit = alignedLogit(logit, h.Align[l].Forward(c, training))
		}
		cls = append(cls, flat(logit))
		reg = append(reg, flat(h.RegOut[l].Forward(g, training)))
	}
	return Output{Cls: ag.Concat(1, cls...), Reg: ag.Concat(1, reg...)}
}

// Anchors are the anchor points of an input size: centres in input pixels
// and the stride of each, in the head's anchor order.
type Anchors struct {
	CX, CY, Stride []float32
}

// Len is the number of anchors.
func (a Anchors) Len() int { return len(a.CX) }

// AnchorsFor returns the anchor points of an h×w input.
func (h *PicoHead) AnchorsFor(height, width int) Anchors {
	var a Anchors
	for _, s := range h.Strides {
		gh, gw := (height+s-1)/s, (width+s-1)/s
		for y := range gh {
			for x := range gw {
				a.CX = append(a.CX, (float32(x)+0.5)*float32(s))
				a.CY = append(a.CY, (float32(y)+0.5)*float32(s))
				a.Stride = append(a.Stride, float32(s))
			}
		}
	}
	return a
}

// Distances turns bin logits (N, A, 4·(R+1)) into expected side distances
// (N, A, 4) in stride units: softmax over the bins, then the mean bin.
func (h *PicoHead) Distances(reg *ag.Var) *ag.Var {
	s := reg.Shape()
	r := h.RegMax + 1
	p := ag.Softmax(ag.Reshape(reg, s[0], s[1], 4, r), -1)
	proj := tensor.Arange(reg.DType(), 0, float64(r), 1).Reshape(r, 1)
	return ag.Reshape(ag.MatMul(p, ag.Const(proj), false, false), s[0], s[1], 4)
}

// Decode turns bin logits (N, A, 4·(R+1)) into boxes (N, A, 4) x1, y1, x2,
// y2 in input pixels for anchors a.
func (h *PicoHead) Decode(reg *ag.Var, a Anchors) *ag.Var {
	d := h.Distances(reg)
	n := a.Len()
	sign := make([]float32, 0, 4*n)
	ctr := make([]float32, 0, 4*n)
	for i := range n {
		s := a.Stride[i]
		sign = append(sign, -s, -s, s, s)
		ctr = append(ctr, a.CX[i], a.CY[i], a.CX[i], a.CY[i])
	}
	st := tensor.FromSlice(sign, 1, n, 4).Cast(reg.DType())
	ct := tensor.FromSlice(ctr, 1, n, 4).Cast(reg.DType())
	return ag.Add(ag.Mul(d, ag.Const(st)), ag.Const(ct))
}
