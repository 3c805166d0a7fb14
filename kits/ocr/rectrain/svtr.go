package rectrain

import (
	"fmt"
	"math/rand/v2"

	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/nn"
	"paddle/core/zoo"
)

// SVTRNetOpts configure the SVTR-tiny style backbone (Du et al. 2022, "SVTR:
// Scene Text Recognition with a Single Visual Model",
// https://arxiv.org/abs/2205.00159; PaddleOCR's SVTRNet keys where they mean
// the same). The height of the input must be divisible by 4·2^(stages−1).
type SVTRNetOpts struct {
	InChannels   int      `yaml:"in_channels"`   // default 3
	EmbedDim     []int    `yaml:"embed_dim"`     // channels per stage (default [64, 128, 256])
	Depth        []int    `yaml:"depth"`         // mixing blocks per stage (default [3, 6, 3])
	NumHeads     []int    `yaml:"num_heads"`     // attention heads per stage (default [2, 4, 8])
	Mixer        []string `yaml:"mixer"`         // per block: Global (attention) or Conv (default: Conv for the first half, Global after)
	MLPRatio     float64  `yaml:"mlp_ratio"`     // MLP hidden size / channels (default 4)
	OutChannels  int      `yaml:"out_channels"`  // channels of the 1×1 conv after the last stage (default 192)
	PatchMerging string   `yaml:"patch_merging"` // Conv (the only one)

	// PaddleLayers builds PaddleOCR's own SVTRNet instead (PaddleSVTRNet:
	// Local mixers, position embedding, img_size fixed, PaddleOCR's names,
	// so its .pdparams load); LocalMixer and LastDrop are its keys.
	PaddleLayers bool     `yaml:"paddle_layers"`
	LocalMixer   [][]int  `yaml:"local_mixer"` // per stage [kh, kw] (default [7, 11] each)
	LastDrop     *float64 `yaml:"last_drop"`   // downscale_in_infer dropout after last_conv (default 0.1)

	// PaddleOCR keys accepted and ignored without paddle_layers: the sequence keeps the input's
	// width/4 steps (no pooling to out_char_num) and no absolute position
	// embedding is learnt, so the width stays dynamic in an export; the Conv
	// mixers give the blocks their sense of position.
	ImgSize    []int `yaml:"img_size"`
	OutCharNum int   `yaml:"out_char_num"`
	LastStage  *bool `yaml:"last_stage"`
	Prenorm    *bool `yaml:"prenorm"`
}

// SVTRNet is a conv stem (two 3×3 stride-2 conv-BN-GELU: H/4 × W/4 patches),
// stages of mixing blocks (pre-norm; a Global block is multi-head
// self-attention over all patches, a Conv block a grouped 3×3 conv, each
// followed by an MLP; both residual) with a 3×3 conv of stride (2, 1) and a
// LayerNorm between stages (patch merging), a final LayerNorm, then the height averaged away and
// a 1×1 conv with hardswish: (N, C, H, W) → (N, out_channels, 1, W/4).
type SVTRNet struct {
	Stem   [2]*zoo.ConvBN
	Stages [][]*svtrBlock
	Merges []*svtrMerge  // between stages
	Norm   *nn.LayerNorm // after the last stage
	Last   *nn.Conv2D
	out    int
}

// svtrBlock is one mixing block over tokens (N, H·W, C).
type svtrBlock struct {
	Norm1, Norm2 *nn.LayerNorm
	Attn         *nn.MultiHeadAttention // Global mixer
	Conv         *nn.Conv2D             // Conv mixer
	FC1, FC2     *nn.Linear
}

// svtrMerge halves the height and changes the channels.
type svtrMerge struct {
	Conv *nn.Conv2D
	Norm *nn.LayerNorm
}

// NewSVTRNet builds the backbone.
func NewSVTRNet(o SVTRNetOpts, r *rand.Rand) (*SVTRNet, error) {
	if o.InChannels == 0 {
		o.InChannels = 3
	}
	if len(o.EmbedDim) == 0 {
		o.EmbedDim = []int{64, 128, 256}
	}
	if len(o.Depth) == 0 {
		o.Depth = []int{3, 6, 3}
	}
	if len(o.NumHeads) == 0 {
		o.NumHeads = []int{2, 4, 8}
	}
	if o.MLPRatio == 0 {
		o.MLPRatio = 4
	}
	if o.OutChannels == 0 {
		o.OutChannels = 192
	}
	if len(o.LocalMixer) > 0 || o.LastDrop != nil {
		return nil, fmt.Errorf("SVTRNet: local_mixer and last_drop are PaddleOCR's SVTRNet keys: set paddle_layers: true")
	}
	ns := len(o.EmbedDim)
	if len(o.Depth) != ns || len(o.NumHeads) != ns {
		return nil, fmt.Errorf("SVTRNet: embed_dim (%d), depth (%d) and num_heads (%d) must have one entry per stage", ns, len(o.Depth), len(o.NumHeads))
	}
	if o.PatchMerging != "" && o.PatchMerging != "Conv" {
		return nil, fmt.Errorf("SVTRNet.patch_merging %q: only Conv is implemented", o.PatchMerging)
	}
	total := 0
	for _, d := range o.Depth {
		total += d
	}
	if len(o.Mixer) == 0 {
		for i := range total {
			o.Mixer = append(o.Mixer, map[bool]string{true: "Conv", false: "Global"}[i < total/2])
		}
	}
	if len(o.Mixer) != total {
		return nil, fmt.Errorf("SVTRNet.mixer: %d entries for %d blocks", len(o.Mixer), total)
	}
	m := &SVTRNet{out: o.OutChannels}
	var err error
	e0 := o.EmbedDim[0]
	if m.Stem[0], err = zoo.NewConvBN(o.InChannels, e0/2, 3, 2, 1, "gelu", r); err != nil {
		return nil, err
	}
	if m.Stem[1], err = zoo.NewConvBN(e0/2, e0, 3, 2, 1, "gelu", r); err != nil {
		return nil, err
	}
	k := 0
	for s := range ns {
		e, heads := o.EmbedDim[s], o.NumHeads[s]
		if heads <= 0 || e%heads != 0 {
			return nil, fmt.Errorf("SVTRNet stage %d: num_heads %d must divide embed_dim %d", s, heads, e)
		}
		var st []*svtrBlock
		for range o.Depth[s] {
			b, err := newSVTRBlock(e, heads, int(float64(e)*o.MLPRatio), o.Mixer[k], r)
			if err != nil {
				return nil, fmt.Errorf("SVTRNet stage %d: %w", s, err)
			}
			st = append(st, b)
			k++
		}
		m.Stages = append(m.Stages, st)
		if s == ns-1 {
			break
		}
		mg := &svtrMerge{}
		if mg.Conv, err = nn.NewConv2D(nn.ConvOptions{InChannels: e, OutChannels: o.EmbedDim[s+1], KernelSize: []int{3},
			Stride: []int{2, 1}, Padding: []int{1}}, r); err != nil {
			return nil, err
		}
		if mg.Norm, err = nn.NewLayerNorm(nn.LayerNormOptions{Shape: []int{o.EmbedDim[s+1]}, Eps: 1e-6}); err != nil {
			return nil, err
		}
		m.Merges = append(m.Merges, mg)
	}
	if m.Norm, err = nn.NewLayerNorm(nn.LayerNormOptions{Shape: []int{o.EmbedDim[ns-1]}, Eps: 1e-6}); err != nil {
		return nil, err
	}
	if m.Last, err = nn.NewConv2D(nn.ConvOptions{InChannels: o.EmbedDim[ns-1], OutChannels: o.OutChannels, KernelSize: []int{1}}, r); err != nil {
		return nil, err
	}
	return m, nil
}

// mixers are the SVTR block mixers: global attention, or a grouped 3x3
// convolution; each builds its part of the block for width e.
var mixers = new(config.Choices[func(b *svtrBlock, e, heads int, r *rand.Rand) error]).
	Add("Global", func(b *svtrBlock, e, heads int, r *rand.Rand) (err error) {
		b.Attn, err = nn.NewMultiHeadAttention(nn.MultiHeadAttentionOptions{EmbedDim: e, NumHeads: heads}, r)
		return err
	}).
	Add("Conv", func(b *svtrBlock, e, heads int, r *rand.Rand) (err error) {
		b.Conv, err = nn.NewConv2D(nn.ConvOptions{InChannels: e, OutChannels: e, KernelSize: []int{3}, Padding: []int{1}, Groups: heads}, r)
		return err
	})

func newSVTRBlock(e, heads, hidden int, mixer string, r *rand.Rand) (*svtrBlock, error) {
	b := &svtrBlock{}
	var err error
	if b.Norm1, err = nn.NewLayerNorm(nn.LayerNormOptions{Shape: []int{e}, Eps: 1e-6}); err != nil {
		return nil, err
	}
	if b.Norm2, err = nn.NewLayerNorm(nn.LayerNormOptions{Shape: []int{e}, Eps: 1e-6}); err != nil {
		return nil, err
	}
	build, ok := mixers.Get(mixer)
	if !ok {
		return nil, fmt.Errorf("mixer %q (known: %s; PaddleOCR's Local is not implemented)", mixer, mixers.Known())
	}
	err = build(b, e, heads, r)
	if err != nil {
		return nil, err
	}
	if b.FC1, err = nn.NewLinear(nn.LinearOptions{In: e, Out: hidden}, r); err != nil {
		return nil, err
	}
	if b.FC2, err = nn.NewLinear(nn.LinearOptions{In: hidden, Out: e}, r); err != nil {
		return nil, err
	}
	return b, nil
}

// Params names stem.<i>, stages.<s>.<j>.{norm1,norm2,attn|conv,fc1,fc2},
// merges.<s>.{conv,norm}, norm, last.
func (m *SVTRNet) Params() []nn.Param {
	ps := nn.Collect("stem.0", m.Stem[0], "stem.1", m.Stem[1])
	for s, st := range m.Stages {
		for j, b := range st {
			p := fmt.Sprintf("stages.%d.%d", s, j)
			ps = append(ps, nn.Prefix(p, nn.Collect("norm1", b.Norm1, "norm2", b.Norm2, "fc1", b.FC1, "fc2", b.FC2))...)
			if b.Attn != nil {
				ps = append(ps, nn.Prefix(p+".attn", b.Attn.Params())...)
			} else {
				ps = append(ps, nn.Prefix(p+".conv", b.Conv.Params())...)
			}
		}
	}
	for s, mg := range m.Merges {
		ps = append(ps, nn.Prefix(fmt.Sprintf("merges.%d", s), nn.Collect("conv", mg.Conv, "norm", mg.Norm))...)
	}
	return append(ps, nn.Collect("norm", m.Norm, "last", m.Last)...)
}

// Buffers returns the stem's batch-norm statistics.
func (m *SVTRNet) Buffers() []nn.Param {
	return nn.CollectBuffers("stem.0", m.Stem[0], "stem.1", m.Stem[1])
}

func (m *SVTRNet) outChannels() int { return m.out }

// toTokens maps x (N, C, H, W) to (N, H·W, C); toImage is its inverse. The
// -1 marks the dimension the dynamic width goes to in an export.
func toTokens(x *ag.Var) *ag.Var {
	s := x.Shape()
	return ag.Transpose(ag.Reshape(x, s[0], s[1], -1), 0, 2, 1)
}

func toImage(t *ag.Var, h int) *ag.Var {
	s := t.Shape()
	return ag.Reshape(ag.Transpose(t, 0, 2, 1), s[0], s[2], h, -1)
}

// Forward maps x (N, C, H, W) to (N, out_channels, 1, W/4).
func (m *SVTRNet) Forward(x *ag.Var, training bool) *ag.Var {
	x = m.Stem[1].Forward(m.Stem[0].Forward(x, training), training) // (N, E0, H/4, W/4)
	h := x.Shape()[2]
	t := toTokens(x) // (N, L, E)
	for s, st := range m.Stages {
		for _, b := range st {
			t = b.forward(t, h, training)
		}
		if s < len(m.Merges) {
			y := m.Merges[s].Conv.Forward(toImage(t, h), training) // (N, E', H/2, W)
			h = y.Shape()[2]
			t = m.Merges[s].Norm.Forward(toTokens(y), training)
		}
	}
	y := ag.Mean(toImage(t, h), []int{2}, true)      // (N, E, 1, W)
	return ag.Hardswish(m.Last.Forward(y, training)) // (N, out, 1, W)
}

// forward is t + mixer(norm1(t)), then + mlp(norm2(·)); t: (N, H·W, E).
func (b *svtrBlock) forward(t *ag.Var, h int, training bool) *ag.Var {
	u := b.Norm1.Forward(t, training)
	if b.Attn != nil {
		u, _ = b.Attn.Forward(u, u, u, nn.AttentionMask{}, training)
	} else {
		u = toTokens(b.Conv.Forward(toImage(u, h), training))
	}
	t = ag.Add(t, u)
	u = b.FC2.Forward(ag.Gelu(b.FC1.Forward(b.Norm2.Forward(t, training), training), false), training)
	return ag.Add(t, u)
}
