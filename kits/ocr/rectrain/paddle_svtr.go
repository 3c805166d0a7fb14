package rectrain

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"paddle/core/ag"
	"paddle/core/nn"
	"paddle/core/tensor"
	"paddle/core/zoo"
)

// PaddleSVTRNet is PaddleOCR's SVTRNet (ppocr/modeling/backbones/rec_svtrnet.py)
// layer for layer, built by SVTRNet with paddle_layers: true: a patch
// embedding of two 3×3 stride-2 conv (with bias)-BN-GELU layers, a learnt
// position embedding over the img_size/4 patches, three stages of blocks
// (Local: attention masked to a local_mixer neighbourhood, Global:
// attention, Conv: a grouped local_mixer conv; each followed by an MLP)
// with Conv patch merging (3×3 stride (2, 1) conv, LayerNorm ε 1e-5)
// between them, a final LayerNorm (prenorm false), then
// AdaptiveAvgPool2D([1, out_char_num]), a 1×1 conv without bias, hardswish
// and downscale_in_infer dropout (×(1−last_drop) at inference):
// (N, C, img_size) → (N, out_channels, 1, out_char_num). Its parameters
// carry PaddleOCR's names, so a PaddleOCR checkpoint loads (PaddleName).
type PaddleSVTRNet struct {
	Embed    [2]*zoo.ConvBN
	PosEmbed *ag.Var // (1, H/4·W/4, embed_dim[0])
	Blocks   [3][]*pdSVTRBlock
	Sub      [2]*svtrMerge
	Norm     *nn.LayerNorm // nil with prenorm
	LastConv *nn.Conv2D
	imgSize  [2]int
	hw       [2]int // patches after the embedding
	embed    []int
	outChar  int
	lastDrop float64
	out      int
	r        *rand.Rand
}

// pdSVTRBlock is rec_svtrnet.py's Block over tokens (N, H·W, C).
type pdSVTRBlock struct {
	Norm1, Norm2 *nn.LayerNorm
	QKV, Proj    *nn.Linear     // Local and Global mixers
	Mixer        *nn.Conv2D     // ConvMixer's local_mixer
	mask         *tensor.Tensor // Local: (1, 1, L, L), 0 inside the window, −∞ outside
	heads        int
	hw           [2]int
	FC1, FC2     *nn.Linear
	prenorm      bool
}

// NewPaddleSVTRNet builds PaddleOCR's SVTRNet from o, with PaddleOCR's
// defaults where a key is unset (Local ×6 + Global ×6, local_mixer 7×11,
// img_size [32, 100], out_char_num 25, last_drop 0.1).
func NewPaddleSVTRNet(o SVTRNetOpts, r *rand.Rand) (*PaddleSVTRNet, error) {
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
	if len(o.ImgSize) == 0 {
		o.ImgSize = []int{32, 100}
	}
	if o.OutCharNum == 0 {
		o.OutCharNum = 25
	}
	if len(o.LocalMixer) == 0 {
		o.LocalMixer = [][]int{{7, 11}, {7, 11}, {7, 11}}
	}
	if o.LastDrop == nil {
		d := 0.1
		o.LastDrop = &d
	}
	if len(o.EmbedDim) != 3 || len(o.Depth) != 3 || len(o.NumHeads) != 3 || len(o.LocalMixer) != 3 {
		return nil, fmt.Errorf("SVTRNet (paddle_layers): embed_dim, depth, num_heads and local_mixer need 3 entries (PaddleOCR's blocks1..3), got %d, %d, %d, %d",
			len(o.EmbedDim), len(o.Depth), len(o.NumHeads), len(o.LocalMixer))
	}
	if o.PatchMerging != "" && o.PatchMerging != "Conv" {
		return nil, fmt.Errorf("SVTRNet.patch_merging %q: only Conv is built with paddle_layers", o.PatchMerging)
	}
	if o.LastStage != nil && !*o.LastStage {
		return nil, fmt.Errorf("SVTRNet.last_stage false: only the last stage's (N, C, 1, out_char_num) output is built")
	}
	if len(o.ImgSize) != 2 || o.ImgSize[0] <= 0 || o.ImgSize[0]%16 != 0 || o.ImgSize[1] < 4 {
		return nil, fmt.Errorf("SVTRNet.img_size %v: want [H, W] with H a multiple of 16", o.ImgSize)
	}
	if *o.LastDrop < 0 || *o.LastDrop >= 1 {
		return nil, fmt.Errorf("SVTRNet.last_drop %g: want [0, 1)", *o.LastDrop)
	}
	total := o.Depth[0] + o.Depth[1] + o.Depth[2]
	if len(o.Mixer) == 0 {
		for i := range total {
			o.Mixer = append(o.Mixer, map[bool]string{true: "Local", false: "Global"}[i < total/2])
		}
	}
	if len(o.Mixer) != total {
		return nil, fmt.Errorf("SVTRNet.mixer: %d entries for %d blocks", len(o.Mixer), total)
	}
	m := &PaddleSVTRNet{imgSize: [2]int{o.ImgSize[0], o.ImgSize[1]}, hw: [2]int{o.ImgSize[0] / 4, o.ImgSize[1] / 4},
		embed: o.EmbedDim, outChar: o.OutCharNum, lastDrop: *o.LastDrop, out: o.OutChannels, r: r}
	e0 := o.EmbedDim[0]
	var err error
	if m.Embed[0], err = convBNBias(o.InChannels, e0/2, r); err != nil {
		return nil, err
	}
	if m.Embed[1], err = convBNBias(e0/2, e0, r); err != nil {
		return nil, err
	}
	pos := tensor.New(tensor.Float32, 1, m.hw[0]*m.hw[1], e0)
	for i := range pos.F32() {
		pos.F32()[i] = float32(max(-0.04, min(0.04, 0.02*r.NormFloat64()))) // TruncatedNormal(std 0.02)
	}
	m.PosEmbed = ag.Param(pos)
	hw, k := m.hw, 0
	for s := range 3 {
		e, heads := o.EmbedDim[s], o.NumHeads[s]
		if heads <= 0 || e%heads != 0 {
			return nil, fmt.Errorf("SVTRNet stage %d: num_heads %d must divide embed_dim %d", s, heads, e)
		}
		if lk := o.LocalMixer[s]; len(lk) != 2 || lk[0] <= 0 || lk[1] <= 0 {
			return nil, fmt.Errorf("SVTRNet.local_mixer[%d] %v: want [kh, kw]", s, lk)
		}
		for range o.Depth[s] {
			b, err := newPdSVTRBlock(e, heads, int(float64(e)*o.MLPRatio), o.Mixer[k], o.LocalMixer[s], hw, o.Prenorm != nil && *o.Prenorm, r)
			if err != nil {
				return nil, fmt.Errorf("SVTRNet stage %d: %w", s, err)
			}
			m.Blocks[s] = append(m.Blocks[s], b)
			k++
		}
		if s == 2 {
			break
		}
		mg := &svtrMerge{}
		if mg.Conv, err = nn.NewConv2D(nn.ConvOptions{InChannels: e, OutChannels: o.EmbedDim[s+1], KernelSize: []int{3},
			Stride: []int{2, 1}, Padding: []int{1}}, r); err != nil {
			return nil, err
		}
		if mg.Norm, err = nn.NewLayerNorm(nn.LayerNormOptions{Shape: []int{o.EmbedDim[s+1]}, Eps: 1e-5}); err != nil {
			return nil, err
		}
		m.Sub[s] = mg
		hw[0] = (hw[0]-1)/2 + 1
	}
	if o.Prenorm == nil || !*o.Prenorm {
		if m.Norm, err = nn.NewLayerNorm(nn.LayerNormOptions{Shape: []int{o.EmbedDim[2]}, Eps: 1e-6}); err != nil {
			return nil, err
		}
	}
	if m.LastConv, err = nn.NewConv2D(nn.ConvOptions{InChannels: o.EmbedDim[2], OutChannels: o.OutChannels, KernelSize: []int{1}, NoBias: true}, r); err != nil {
		return nil, err
	}
	return m, nil
}

// convBNBias is PatchEmbed's ConvBNLayer: a 3×3 stride-2 conv with a bias,
// BatchNorm2D and GELU.
func convBNBias(in, out int, r *rand.Rand) (*zoo.ConvBN, error) {
	c, err := zoo.NewConvBN(in, out, 3, 2, 1, "gelu", r)
	if err != nil {
		return nil, err
	}
	if c.Conv, err = nn.NewConv2D(nn.ConvOptions{InChannels: in, OutChannels: out, KernelSize: []int{3}, Stride: []int{2}, Padding: []int{1}}, r); err != nil {
		return nil, err
	}
	return c, nil
}

func newPdSVTRBlock(e, heads, hidden int, mixer string, lk []int, hw [2]int, prenorm bool, r *rand.Rand) (*pdSVTRBlock, error) {
	b := &pdSVTRBlock{heads: heads, hw: hw, prenorm: prenorm}
	var err error
	if b.Norm1, err = nn.NewLayerNorm(nn.LayerNormOptions{Shape: []int{e}, Eps: 1e-6}); err != nil {
		return nil, err
	}
	if b.Norm2, err = nn.NewLayerNorm(nn.LayerNormOptions{Shape: []int{e}, Eps: 1e-6}); err != nil {
		return nil, err
	}
	switch mixer {
	case "Local", "Global":
		if b.QKV, err = nn.NewLinear(nn.LinearOptions{In: e, Out: 3 * e}, r); err != nil {
			return nil, err
		}
		if b.Proj, err = nn.NewLinear(nn.LinearOptions{In: e, Out: e}, r); err != nil {
			return nil, err
		}
		if mixer == "Local" {
			b.mask = localMask(hw[0], hw[1], lk[0], lk[1])
		}
	case "Conv":
		if b.Mixer, err = nn.NewConv2D(nn.ConvOptions{InChannels: e, OutChannels: e, KernelSize: lk,
			Padding: []int{lk[0] / 2, lk[1] / 2}, Groups: heads}, r); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("mixer %q (known: Local, Global, Conv)", mixer)
	}
	if b.FC1, err = nn.NewLinear(nn.LinearOptions{In: e, Out: hidden}, r); err != nil {
		return nil, err
	}
	if b.FC2, err = nn.NewLinear(nn.LinearOptions{In: hidden, Out: e}, r); err != nil {
		return nil, err
	}
	return b, nil
}

// localMask is Attention's Local mask over an h×w grid: patch (i, j) sees
// the patches (i', j') with |i'−i| ≤ kh/2 and |j'−j| ≤ kw/2 (the window
// of PaddleOCR's padded mask, centred); the others get −∞.
func localMask(h, w, kh, kw int) *tensor.Tensor {
	l := h * w
	t := tensor.New(tensor.Float32, 1, 1, l, l)
	v, inf := t.F32(), float32(math.Inf(-1))
	for p := range l {
		for q := range l {
			// PaddleOCR zeroes rows h..h+kh−1 of the padded grid for query
			// row h, then crops kh/2: key row i' is seen when
			// h ≤ i' + kh/2 ≤ h + kh − 1 (likewise the columns).
			di, dj := q/w+kh/2-p/w, q%w+kw/2-p%w
			if di < 0 || di > kh-1 || dj < 0 || dj > kw-1 {
				v[p*l+q] = inf
			}
		}
	}
	return t
}

// Params names PaddleOCR's tensors: patch_embed.proj.<i>.conv|bn (bn is
// PaddleOCR's norm), pos_embed, blocks<s>.<i>.norm1|mixer.qkv|mixer.proj|
// mixer.local_mixer|norm2|mlp.fc1|mlp.fc2, sub_sample<s>.conv|norm, norm,
// last_conv.
func (m *PaddleSVTRNet) Params() []nn.Param {
	ps := nn.Collect("patch_embed.proj.0", m.Embed[0], "patch_embed.proj.1", m.Embed[1], "pos_embed", m.PosEmbed)
	for s, st := range m.Blocks {
		for i, b := range st {
			ps = append(ps, nn.Prefix(fmt.Sprintf("blocks%d.%d", s+1, i), nn.Collect("norm1", b.Norm1,
				"mixer.qkv", b.QKV, "mixer.proj", b.Proj, "mixer.local_mixer", b.Mixer,
				"norm2", b.Norm2, "mlp.fc1", b.FC1, "mlp.fc2", b.FC2))...)
		}
		if s < 2 {
			ps = append(ps, nn.Prefix(fmt.Sprintf("sub_sample%d", s+1), nn.Collect("conv", m.Sub[s].Conv, "norm", m.Sub[s].Norm))...)
		}
	}
	return append(ps, nn.Collect("norm", m.Norm, "last_conv", m.LastConv)...)
}

// Buffers returns the patch embedding's batch-norm statistics.
func (m *PaddleSVTRNet) Buffers() []nn.Param {
	return nn.CollectBuffers("patch_embed.proj.0", m.Embed[0], "patch_embed.proj.1", m.Embed[1])
}

func (m *PaddleSVTRNet) outChannels() int { return m.out }

// PaddleName maps a parameter or buffer name to PaddleOCR's: the patch
// embedding's bn is norm (statistics _mean, _variance); Linear weights are
// (in, out) in Paddle, so transposed.
func (m *PaddleSVTRNet) PaddleName(name string) (string, bool) {
	if strings.HasPrefix(name, "patch_embed.") {
		return zoo.PaddleBN(strings.Replace(name, ".bn.", ".norm.", 1)), false
	}
	linear := strings.Contains(name, ".mixer.qkv.") || strings.Contains(name, ".mixer.proj.") || strings.Contains(name, ".mlp.fc")
	return name, linear && strings.HasSuffix(name, ".weight")
}

// Forward maps x (N, C, img_size) to (N, out_channels, 1, out_char_num).
// As PaddleOCR's PatchEmbed asserts, the input must be img_size: the
// position embedding and the Local masks are fixed to it.
func (m *PaddleSVTRNet) Forward(x *ag.Var, training bool) *ag.Var {
	if s := x.Shape(); s[2] != m.imgSize[0] || s[3] != m.imgSize[1] {
		panic(fmt.Sprintf("SVTRNet (paddle_layers): input %d×%d, the model's img_size is %d×%d", s[2], s[3], m.imgSize[0], m.imgSize[1]))
	}
	x = m.Embed[1].Forward(m.Embed[0].Forward(x, training), training)
	t := ag.Add(toTokens(x), m.PosEmbed)
	h := m.hw[0]
	for s, st := range m.Blocks {
		for _, b := range st {
			t = b.forward(t, training)
		}
		if s < 2 {
			y := m.Sub[s].Conv.Forward(toImage(t, h), training)
			h = y.Shape()[2]
			t = m.Sub[s].Norm.Forward(toTokens(y), training)
		}
	}
	if m.Norm != nil {
		t = m.Norm.Forward(t, training)
	}
	y := ag.Mean(toImage(t, h), []int{2}, true) // (N, E, 1, W/4)
	if w := y.Shape()[3]; w != m.outChar {
		// AdaptiveAvgPool2D's bins [⌊j·W/n⌋, ⌈(j+1)·W/n⌉), as slices and
		// means (the width is fixed), which export as they are
		bins := make([]*ag.Var, m.outChar)
		for j := range bins {
			w0, w1 := j*w/m.outChar, ((j+1)*w+m.outChar-1)/m.outChar
			bins[j] = ag.Mean(ag.Slice(y, []int{w0}, []int{w1}, []int{3}, nil), []int{3}, true)
		}
		y = ag.Concat(3, bins...)
	}
	y = ag.Hardswish(m.LastConv.Forward(y, training))
	// Dropout downscale_in_infer: a bare mask in training, ×(1−p) at inference.
	return ag.MulScalar(ag.Dropout(y, m.lastDrop, training, m.r), 1-m.lastDrop)
}

// forward is PaddleOCR's Block: with prenorm false t + mixer(norm1(t)),
// then + mlp(norm2(·)); with prenorm true norm1(t + mixer(t)), then
// norm2(· + mlp(·)).
func (b *pdSVTRBlock) forward(t *ag.Var, training bool) *ag.Var {
	mlp := func(u *ag.Var) *ag.Var {
		return b.FC2.Forward(ag.Gelu(b.FC1.Forward(u, training), false), training)
	}
	if b.prenorm {
		t = b.Norm1.Forward(ag.Add(t, b.mix(t, training)), training)
		return b.Norm2.Forward(ag.Add(t, mlp(t)), training)
	}
	t = ag.Add(t, b.mix(b.Norm1.Forward(t, training), training))
	return ag.Add(t, mlp(b.Norm2.Forward(t, training)))
}

// mix is the block's mixer over tokens t (N, L, C).
func (b *pdSVTRBlock) mix(t *ag.Var, training bool) *ag.Var {
	if b.Mixer != nil {
		return toTokens(b.Mixer.Forward(toImage(t, b.hw[0]), training))
	}
	s := t.Shape()
	n, l, c := s[0], s[1], s[2]
	hd := c / b.heads
	qkv := ag.Transpose(ag.Reshape(b.QKV.Forward(t, training), n, l, 3, b.heads, hd), 2, 0, 3, 1, 4) // (3, N, heads, L, hd)
	part := func(i int) *ag.Var { return ag.Squeeze(ag.Slice(qkv, []int{i}, []int{i + 1}, []int{0}, nil), 0) }
	q := ag.MulScalar(part(0), 1/math.Sqrt(float64(hd)))
	a := ag.MatMul(q, part(1), false, true) // (N, heads, L, L)
	if b.mask != nil {
		a = ag.Add(a, ag.Const(b.mask))
	}
	a = ag.Softmax(a, -1)
	u := ag.Reshape(ag.Transpose(ag.MatMul(a, part(2), false, false), 0, 2, 1, 3), n, l, c)
	return b.Proj.Forward(u, training)
}
