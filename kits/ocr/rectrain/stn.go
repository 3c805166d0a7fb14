package rectrain

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"paddle/core/ag"
	"paddle/core/nn"
	"paddle/core/op"
	"paddle/core/tensor"
	"paddle/core/zoo"
)

// STNOpts configure Architecture.Transform STN_ON, PaddleOCR's names
// (ppocr/modeling/transforms/stn.py).
type STNOpts struct {
	InChannels       int       `yaml:"in_channels"`        // default 3
	TPSInputSize     []int     `yaml:"tps_inputsize"`      // the localisation net's input [h, w], default [32, 64]
	TPSOutputSize    []int     `yaml:"tps_outputsize"`     // the rectified image [h, w], default [32, 100]
	NumControlPoints int       `yaml:"num_control_points"` // default 20
	TPSMargins       []float64 `yaml:"tps_margins"`        // [x, y], default [0.05, 0.05]
	STNActivation    string    `yaml:"stn_activation"`     // none (default) or sigmoid
}

// STN is PaddleOCR's STN_ON (stn.py + tps_spatial_transformer.py, from
// ASTER): the image, bilinearly resized (align_corners) to tps_inputsize,
// goes through the localisation net stn_head (six conv3×3 (with bias)-BN-
// ReLU blocks of 32, 64, 128, 256, 256, 256 channels with 2×2 max pools
// between them, flattened to 2·256 features, stn_fc1 Linear-BN1D-ReLU to
// 512, stn_fc2 on 0.1·those to num_control_points (x, y) pairs, sigmoid
// with stn_activation sigmoid); a thin-plate spline through those source
// points and the fixed target points (num_control_points/2 along the top
// and the bottom, tps_margins inside the border) maps every pixel of the
// tps_outputsize output to a source coordinate in [0, 1] (clipped), and
// the image is sampled there bilinearly (grid_sample, align_corners, zero
// padding): (N, C, H, W) of any size → (N, C, tps_outputsize). The spline's
// kernel is inverted once at build time; PaddleOCR keeps its matrices as
// plain attributes, so a checkpoint holds only transform.stn_head.*.
type STN struct {
	Convs   [6]*nn.Conv2D
	BNs     [6]*nn.BatchNorm
	FC1     *nn.Linear
	BN1     *nn.BatchNorm
	FC2     *nn.Linear
	in      [2]int
	out     [2]int
	k       int
	sigmoid bool
	coord   *tensor.Tensor // (out h·w, k): the source coordinates are coord · control points
}

// NewSTN builds STN_ON from o with PaddleOCR's defaults where a key is unset.
func NewSTN(o STNOpts, r *rand.Rand) (*STN, error) {
	if o.InChannels == 0 {
		o.InChannels = 3
	}
	if o.TPSInputSize == nil {
		o.TPSInputSize = []int{32, 64}
	}
	if o.TPSOutputSize == nil {
		o.TPSOutputSize = []int{32, 100}
	}
	if o.NumControlPoints == 0 {
		o.NumControlPoints = 20
	}
	if o.TPSMargins == nil {
		o.TPSMargins = []float64{0.05, 0.05}
	}
	if len(o.TPSInputSize) != 2 || len(o.TPSOutputSize) != 2 || o.TPSOutputSize[0] < 2 || o.TPSOutputSize[1] < 2 {
		return nil, fmt.Errorf("STN_ON: tps_inputsize %v and tps_outputsize %v want [h, w] (the output at least 2×2)", o.TPSInputSize, o.TPSOutputSize)
	}
	// five 2×2 pools (floor) must leave 1×2: stn_fc1 takes 2·256 features
	if ph, pw := o.TPSInputSize[0]>>5, o.TPSInputSize[1]>>5; ph*pw != 2 {
		return nil, fmt.Errorf("STN_ON.tps_inputsize %v: PaddleOCR's stn_fc1 takes 2·256 features, so five 2×2 pools must leave 1×2 (e.g. [32, 64]), got %d×%d", o.TPSInputSize, ph, pw)
	}
	k := o.NumControlPoints
	if k < 4 || k%2 != 0 {
		return nil, fmt.Errorf("STN_ON.num_control_points %d: want an even number ≥ 4", k)
	}
	if len(o.TPSMargins) != 2 {
		return nil, fmt.Errorf("STN_ON.tps_margins %v: want [x, y]", o.TPSMargins)
	}
	if o.STNActivation != "" && o.STNActivation != "none" && o.STNActivation != "sigmoid" {
		return nil, fmt.Errorf("STN_ON.stn_activation %q: want none or sigmoid", o.STNActivation)
	}
	s := &STN{in: [2]int{o.TPSInputSize[0], o.TPSInputSize[1]}, out: [2]int{o.TPSOutputSize[0], o.TPSOutputSize[1]},
		k: k, sigmoid: o.STNActivation == "sigmoid"}
	cin := o.InChannels
	var err error
	for i, c := range []int{32, 64, 128, 256, 256, 256} {
		if s.Convs[i], err = nn.NewConv2D(nn.ConvOptions{InChannels: cin, OutChannels: c, KernelSize: []int{3}, Padding: []int{1}}, r); err != nil {
			return nil, err
		}
		if s.BNs[i], err = nn.NewBatchNorm2D(nn.BatchNormOptions{NumFeatures: c}); err != nil {
			return nil, err
		}
		cin = c
	}
	if s.FC1, err = nn.NewLinear(nn.LinearOptions{In: 2 * 256, Out: 512}, r); err != nil {
		return nil, err
	}
	if s.BN1, err = nn.NewBatchNorm1D(nn.BatchNormOptions{NumFeatures: 512}); err != nil {
		return nil, err
	}
	if s.FC2, err = nn.NewLinear(nn.LinearOptions{In: 512, Out: 2 * k}, r); err != nil {
		return nil, err
	}
	// PaddleOCR's start: weight 0, bias the points at margin 0.01 (logits with sigmoid)
	s.FC2.Weight.T.Fill(0)
	b := s.FC2.Bias.T.F32()
	for i, p := range tpsPoints(k, 0.01, 0.01) {
		for j, v := range p {
			if s.sigmoid {
				v = -math.Log(1/v - 1)
			}
			b[2*i+j] = float32(v)
		}
	}
	if s.coord, err = tpsCoord(tpsPoints(k, o.TPSMargins[0], o.TPSMargins[1]), s.out[0], s.out[1]); err != nil {
		return nil, fmt.Errorf("STN_ON: %v", err)
	}
	return s, nil
}

// tpsPoints are k control points (x, y): k/2 evenly from mx to 1−mx along
// y = my, then the same along y = 1−my.
func tpsPoints(k int, mx, my float64) [][2]float64 {
	n := k / 2
	pts := make([][2]float64, k)
	for i := range n {
		x := mx + (1-2*mx)*float64(i)/float64(n-1)
		pts[i], pts[n+i] = [2]float64{x, my}, [2]float64{x, 1 - my}
	}
	return pts
}

// tpsU is the spline's radial term: ½·d²·log d² (0 at d = 0).
func tpsU(p, q [2]float64) float64 {
	d := (p[0]-q[0])*(p[0]-q[0]) + (p[1]-q[1])*(p[1]-q[1])
	if d == 0 {
		return 0
	}
	return 0.5 * d * math.Log(d)
}

// tpsCoord is the (h·w, k) matrix that maps source control points (k, 2)
// to the source coordinates of the h×w output's pixels (row-major, pixel
// (i, j) at (j/(w−1), i/(h−1))): each pixel's [U(p, t₁..t_k), 1, x, y]
// times the first k columns of the inverse of the padded kernel
// [[U(tᵢ, tⱼ), 1, t], [1ᵀ, 0, 0], [tᵀ, 0, 0]] (the rows of the spline's
// right-hand side past k are zeros).
func tpsCoord(t [][2]float64, h, w int) (*tensor.Tensor, error) {
	k := len(t)
	kern := mat.NewDense(k+3, k+3, nil)
	for i := range k {
		for j := range k {
			kern.Set(i, j, tpsU(t[i], t[j]))
		}
		kern.Set(i, k, 1)
		kern.Set(k, i, 1)
		for c := range 2 {
			kern.Set(i, k+1+c, t[i][c])
			kern.Set(k+1+c, i, t[i][c])
		}
	}
	var inv mat.Dense
	if err := inv.Inverse(kern); err != nil {
		return nil, fmt.Errorf("the TPS kernel of %d control points is singular: %v", k, err)
	}
	out := tensor.New(tensor.Float32, h*w, k)
	o := out.F32()
	row := make([]float64, k+3)
	for i := range h {
		for j := range w {
			p := [2]float64{float64(j) / float64(w-1), float64(i) / float64(h-1)}
			for c := range k {
				row[c] = tpsU(p, t[c])
			}
			row[k], row[k+1], row[k+2] = 1, p[0], p[1]
			for c := range k {
				s := 0.0
				for m := range k + 3 {
					s += row[m] * inv.At(m, c)
				}
				o[(i*w+j)*k+c] = float32(s)
			}
		}
	}
	return out, nil
}

// Params are PaddleOCR's stn_head.stn_convnet.<2i>.0 (conv) and .1 (bn),
// stn_head.stn_fc1.0 (linear) and .1 (bn), stn_head.stn_fc2.
func (s *STN) Params() []nn.Param {
	var ps []nn.Param
	for i := range s.Convs {
		ps = append(ps, nn.Collect(fmt.Sprintf("stn_head.stn_convnet.%d.0", 2*i), s.Convs[i], fmt.Sprintf("stn_head.stn_convnet.%d.1", 2*i), s.BNs[i])...)
	}
	return append(ps, nn.Collect("stn_head.stn_fc1.0", s.FC1, "stn_head.stn_fc1.1", s.BN1, "stn_head.stn_fc2", s.FC2)...)
}

// Buffers are the batch norms' statistics.
func (s *STN) Buffers() []nn.Param {
	var ps []nn.Param
	for i := range s.BNs {
		ps = append(ps, nn.CollectBuffers(fmt.Sprintf("stn_head.stn_convnet.%d.1", 2*i), s.BNs[i])...)
	}
	return append(ps, nn.CollectBuffers("stn_head.stn_fc1.1", s.BN1)...)
}

// PaddleName maps a name to PaddleOCR's (the same, with Paddle's batch-norm
// statistics names); Linear weights are (in, out) in Paddle: transposed.
func (s *STN) PaddleName(name string) (string, bool) {
	return zoo.PaddleBN(name), name == "stn_head.stn_fc1.0.weight" || name == "stn_head.stn_fc2.weight"
}

// OutputSize is the rectified image's [h, w].
func (s *STN) OutputSize() [2]int { return s.out }

// Forward rectifies x (N, C, H, W) to (N, C, tps_outputsize).
func (s *STN) Forward(x *ag.Var, training bool) *ag.Var {
	ctrl := s.controlPoints(x, training)                    // (N, k, 2)
	src := ag.MatMul(ag.Const(s.coord), ctrl, false, false) // (N, h·w, 2)
	n := x.Shape()[0]
	grid := ag.AddScalar(ag.MulScalar(ag.Clip(ag.Reshape(src, n, s.out[0], s.out[1], 2), 0, 1), 2), -1)
	return ag.GridSample(x, grid, op.GridSampleParams{AlignCorners: true})
}

// controlPoints is stn_head: the predicted source control points (N, k, 2).
func (s *STN) controlPoints(x *ag.Var, training bool) *ag.Var {
	y := ag.Resize(x, op.ResizeParams{Mode: "linear", CoordMode: "align_corners", Sizes: []int{s.in[0], s.in[1]}})
	for i := range s.Convs {
		if i > 0 {
			y = ag.MaxPool2D(y, op.PoolParams{Kernel: []int{2, 2}, Strides: []int{2, 2}})
		}
		y = ag.Relu(s.BNs[i].Forward(s.Convs[i].Forward(y, training), training))
	}
	n := x.Shape()[0]
	feat := ag.Relu(s.BN1.Forward(s.FC1.Forward(ag.Reshape(y, n, 2*256), training), training))
	c := s.FC2.Forward(ag.MulScalar(feat, 0.1), training)
	if s.sigmoid {
		c = ag.Sigmoid(c)
	}
	return ag.Reshape(c, n, s.k, 2)
}
