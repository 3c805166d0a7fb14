package dettrain

import (
	"fmt"
	"math/rand/v2"

	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/nn"
	"paddle/core/op"
	"paddle/core/zoo"
)

// DBNet is Differentiable Binarization (Liao et al. 2020,
// https://arxiv.org/abs/1911.08947): backbone features at strides 4–32, the
// DBFPN neck fusing them at stride 4, and the DB head.
type DBNet struct {
	Backbone *zoo.PPLCNet
	Neck     *DBFPN
	Head     *DBHead
}

var _ nn.Module = (*DBNet)(nil)

// algorithms are the Architecture.algorithm values this trainer implements.
var algorithms = config.NameSet("DB")

// buildModel assembles a DBNet from the Architecture section.
func buildModel(a ArchOpts, r *rand.Rand) (*DBNet, error) {
	if a.ModelType != "" && a.ModelType != "det" {
		return nil, a.Backbone.Errorf("Architecture.model_type %q: want det", a.ModelType)
	}
	if _, ok := algorithms.Get(a.Algorithm); a.Algorithm != "" && !ok {
		return nil, a.Backbone.Errorf("Architecture.algorithm %q is not implemented (known: %s)", a.Algorithm, algorithms.Known())
	}
	if a.Transform.Name != "" {
		return nil, a.Transform.Errorf("Architecture.Transform %q is not implemented", a.Transform.Name)
	}
	var bo PPLCNetOpts
	if err := decodeNamed(a.Backbone, "PPLCNet", &bo); err != nil {
		return nil, err
	}
	bb, err := zoo.NewPPLCNet(zoo.PPLCNetOptions{Scale: bo.Scale, InChannels: bo.InChannels}, r)
	if err != nil {
		return nil, a.Backbone.Errorf("%v", err)
	}
	no := DBFPNOpts{OutChannels: 256}
	if err := decodeNamed(a.Neck, "DBFPN", &no); err != nil {
		return nil, err
	}
	if no.UseASF {
		return nil, a.Neck.Errorf("DBFPN.use_asf is not implemented")
	}
	if no.OutChannels < 4 || no.OutChannels%4 != 0 {
		return nil, a.Neck.Errorf("DBFPN.out_channels %d: want a positive multiple of 4", no.OutChannels)
	}
	neck, err := NewDBFPN(bb.FeatureChannels(), no.OutChannels, r)
	if err != nil {
		return nil, a.Neck.Errorf("%v", err)
	}
	ho := DBHeadOpts{K: 50}
	if err := decodeNamed(a.Head, "DBHead", &ho); err != nil {
		return nil, err
	}
	head, err := NewDBHead(no.OutChannels, float64(ho.K), r)
	if err != nil {
		return nil, a.Head.Errorf("%v", err)
	}
	return &DBNet{Backbone: bb, Neck: neck, Head: head}, nil
}

// decodeNamed decodes c's options into v when c names want.
func decodeNamed(c config.Component, want string, v any) error {
	if c.Name != want {
		return c.Errorf("unknown %q (known: %s)", c.Name, want)
	}
	return c.Decode(v)
}

// Params lists backbone.*, neck.*, head.*.
func (m *DBNet) Params() []nn.Param {
	return nn.Collect("backbone", m.Backbone, "neck", m.Neck, "head", m.Head)
}

// Buffers lists the batch norms' running statistics.
func (m *DBNet) Buffers() []nn.Param {
	return nn.CollectBuffers("backbone", m.Backbone, "head", m.Head)
}

// Forward maps images x (N, 3, H, W), H and W multiples of 32, to the maps
// (N, 3, H, W) (probability, threshold, binary) when training, else to the
// probability map (N, 1, H, W).
func (m *DBNet) Forward(x *ag.Var, training bool) *ag.Var {
	return m.Head.Forward(m.Neck.Forward(m.Backbone.Features(x, training)), training)
}

// DBFPN is PaddleOCR's DBFPN neck (no normalisation, no activation, no biases).
type DBFPN struct {
	In  [4]*nn.Conv2D // 1×1 lateral convs, strides 4, 8, 16, 32
	Out [4]*nn.Conv2D // 3×3 convs to out/4
}

// NewDBFPN builds the neck for backbone maps with channels in (strides 4..32).
func NewDBFPN(in []int, out int, r *rand.Rand) (*DBFPN, error) {
	if len(in) != 4 {
		return nil, fmt.Errorf("DBFPN: want 4 backbone maps, got %d", len(in))
	}
	f := &DBFPN{}
	var err error
	for i, c := range in {
		if f.In[i], err = nn.NewConv2D(nn.ConvOptions{InChannels: c, OutChannels: out, KernelSize: []int{1}, NoBias: true}, r); err != nil {
			return nil, err
		}
		if f.Out[i], err = nn.NewConv2D(nn.ConvOptions{InChannels: out, OutChannels: out / 4, KernelSize: []int{3}, Padding: []int{1}, NoBias: true}, r); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// Params lists in2..in5 and p2..p5 convs (PaddleOCR's names).
func (f *DBFPN) Params() []nn.Param {
	return nn.Collect("in2_conv", f.In[0], "in3_conv", f.In[1], "in4_conv", f.In[2], "in5_conv", f.In[3],
		"p2_conv", f.Out[0], "p3_conv", f.Out[1], "p4_conv", f.Out[2], "p5_conv", f.Out[3])
}

// up is nearest-neighbour upsampling by s (Paddle's F.upsample, align_mode 1).
func up(x *ag.Var, s float64) *ag.Var {
	return ag.Resize(x, op.ResizeParams{Mode: "nearest", CoordMode: "asymmetric", NearestMode: "floor", Scales: []float64{s, s}})
}

// Forward maps the four backbone maps to (N, out, H/4, W/4).
func (f *DBFPN) Forward(xs []*ag.Var) *ag.Var {
	in2, in3 := f.In[0].Forward(xs[0], false), f.In[1].Forward(xs[1], false)
	in4, in5 := f.In[2].Forward(xs[2], false), f.In[3].Forward(xs[3], false)
	out4 := ag.Add(in4, up(in5, 2))  // 1/16
	out3 := ag.Add(in3, up(out4, 2)) // 1/8
	out2 := ag.Add(in2, up(out3, 2)) // 1/4
	p5 := up(f.Out[3].Forward(in5, false), 8)
	p4 := up(f.Out[2].Forward(out4, false), 4)
	p3 := up(f.Out[1].Forward(out3, false), 2)
	p2 := f.Out[0].Forward(out2, false)
	return ag.Concat(1, p5, p4, p3, p2)
}

// DBHead is PaddleOCR's DBHead: a binarize (probability) and a thresh branch.
type DBHead struct {
	Binarize, Thresh *dbBranch
	K                float64
}

// NewDBHead builds the head over in channels with amplification k.
func NewDBHead(in int, k float64, r *rand.Rand) (*DBHead, error) {
	b, err := newDBBranch(in, r)
	if err != nil {
		return nil, err
	}
	t, err := newDBBranch(in, r)
	if err != nil {
		return nil, err
	}
	return &DBHead{Binarize: b, Thresh: t, K: k}, nil
}

// Params lists binarize.* and thresh.*.
func (h *DBHead) Params() []nn.Param { return nn.Collect("binarize", h.Binarize, "thresh", h.Thresh) }

// Buffers lists the batch norms' running statistics.
func (h *DBHead) Buffers() []nn.Param {
	return nn.CollectBuffers("binarize", h.Binarize, "thresh", h.Thresh)
}

// Forward maps x (N, C, H/4, W/4) to (N, 3, H, W) when training (shrink,
// threshold, binary maps), else to the shrink (probability) map (N, 1, H, W).
func (h *DBHead) Forward(x *ag.Var, training bool) *ag.Var {
	shrink := h.Binarize.Forward(x, training)
	if !training {
		return shrink
	}
	thresh := h.Thresh.Forward(x, training)
	// binary = 1 / (1 + exp(-k (P - T)))
	binary := ag.Sigmoid(ag.MulScalar(ag.Sub(shrink, thresh), h.K))
	return ag.Concat(1, shrink, thresh, binary)
}

// dbBranch is conv3×3(C→C/4)-BN-ReLU, convT2×2(C/4→C/4)-BN-ReLU, convT2×2(C/4→1), sigmoid.
type dbBranch struct {
	Conv1        *nn.Conv2D
	BN1, BN2     *nn.BatchNorm
	Conv2, Conv3 *nn.ConvTranspose2D
}

func newDBBranch(in int, r *rand.Rand) (*dbBranch, error) {
	q := in / 4
	b := &dbBranch{}
	var err error
	if b.Conv1, err = nn.NewConv2D(nn.ConvOptions{InChannels: in, OutChannels: q, KernelSize: []int{3}, Padding: []int{1}, NoBias: true}, r); err != nil {
		return nil, err
	}
	if b.BN1, err = nn.NewBatchNorm2D(nn.BatchNormOptions{NumFeatures: q}); err != nil {
		return nil, err
	}
	if b.Conv2, err = nn.NewConvTranspose2D(nn.ConvOptions{InChannels: q, OutChannels: q, KernelSize: []int{2}, Stride: []int{2}}, r); err != nil {
		return nil, err
	}
	if b.BN2, err = nn.NewBatchNorm2D(nn.BatchNormOptions{NumFeatures: q}); err != nil {
		return nil, err
	}
	if b.Conv3, err = nn.NewConvTranspose2D(nn.ConvOptions{InChannels: q, OutChannels: 1, KernelSize: []int{2}, Stride: []int{2}}, r); err != nil {
		return nil, err
	}
	return b, nil
}

func (b *dbBranch) Params() []nn.Param {
	return nn.Collect("conv1", b.Conv1, "conv_bn1", b.BN1, "conv2", b.Conv2, "conv_bn2", b.BN2, "conv3", b.Conv3)
}

func (b *dbBranch) Buffers() []nn.Param {
	return nn.CollectBuffers("conv_bn1", b.BN1, "conv_bn2", b.BN2)
}

func (b *dbBranch) Forward(x *ag.Var, training bool) *ag.Var {
	x = ag.Relu(b.BN1.Forward(b.Conv1.Forward(x, training), training))
	x = ag.Relu(b.BN2.Forward(b.Conv2.Forward(x, training), training))
	return ag.Sigmoid(b.Conv3.Forward(x, training))
}
