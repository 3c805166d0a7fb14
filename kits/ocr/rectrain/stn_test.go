package rectrain

import (
	"math"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/op"
	"paddle/core/tensor"
	"paddle/core/workflow"
)

// stnSmall are the overrides that make the shipped config (STN_ON in front
// of SVTRNet) the network of ppocr_stn_ref.py's stn_svtr_small: svtr_small's
// backbone behind PaddleOCR's STN_ON rectifying to 32×64.
var stnSmall = append([]string{"Architecture.Transform.tps_outputsize=[32, 64]"}, svtrSmall[1:len(svtrSmall)-2]...)

// stnFixture has ppocr_stn_ref.py (pickle + NumPy, from PaddleOCR's
// stn.py and tps_spatial_transformer.py) write stn_svtr_small into a
// temporary folder: the STN's widths are PaddleOCR's, 7.5 MB, too much to
// commit.
func stnFixture(t *testing.T) (pdparams, logits string) {
	t.Helper()
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import numpy").Run(); err != nil {
		t.Skipf("%s with numpy (Debian python3-numpy) writes the fixture: %v", py, err)
	}
	dir := t.TempDir()
	if out, err := exec.Command(py, "../../../scripts/ref/ppocr_stn_ref.py", dir, "stn_svtr_small").CombinedOutput(); err != nil {
		t.Fatalf("ppocr_stn_ref.py: %v\n%s", err, out)
	}
	return filepath.Join(dir, "stn_svtr_small.pdparams"), filepath.Join(dir, "stn_svtr_small_logits.npy")
}

// TestPaddleOCRSTNPdparams loads PaddleOCR's STN_ON + SVTRNet, named as
// PaddleOCR names them (transform.stn_head.*), into the shipped config and
// matches the NumPy forward's logits on two 48×160 lines (resized to 32×64
// for the localisation, rectified to 32×64 along a bent spline).
func TestPaddleOCRSTNPdparams(t *testing.T) {
	pd, logits := stnFixture(t)
	paddleCheck(t, pdSVTRConfig, pd, logits, crnnInput(2, 3, 48, 160), stnSmall...)
}

// The check is not vacuous: the predicted control points move the grid
// (pinning them to the fixed target points changes the logits), and an
// SVTR checkpoint without transform.* fails the load naming the tensor.
func TestPaddleOCRSTNNotVacuous(t *testing.T) {
	pd, logits := stnFixture(t)
	in := crnnInput(2, 3, 48, 160)
	m := zeroedPaddleModel(t, pdSVTRConfig, stnSmall...)
	if _, err := workflow.LoadCheckpoint(pd, m, nil); err != nil {
		t.Fatal(err)
	}
	stn := m.(*PaddleCRNN).Transform
	w := stn.FC2.Weight.T.Clone()
	stn.FC2.Weight.T.Fill(0)
	if d := crnnDiff(t, m, logits, in); d < 1e-3 {
		t.Errorf("without the predicted offsets the logits change by only %g", d)
	}
	stn.FC2.Weight.T = w
	if d := crnnDiff(t, m, logits, in); d > 1e-4 {
		t.Fatalf("restored model differs by %g", d)
	}
	_, err := workflow.LoadCheckpoint(svtrFixture, zeroedPaddleModel(t, pdSVTRConfig, stnSmall...), nil)
	if err == nil || !strings.Contains(err.Error(), "transform.stn_head.") {
		t.Fatalf("an SVTR checkpoint without STN tensors: got %v", err)
	}
}

// With the predicted points equal to the target points (stn_fc2's weight
// zero, its bias the target points) the spline is the identity, so STN_ON
// is a bilinear align_corners resize to tps_outputsize: checked without
// NumPy, against ag.Resize.
func TestSTNIdentitySplineIsResize(t *testing.T) {
	s, err := NewSTN(STNOpts{TPSOutputSize: []int{8, 12}, NumControlPoints: 6}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	s.FC2.Weight.T.Fill(0)
	b := s.FC2.Bias.T.F32()
	for i, p := range tpsPoints(6, 0.05, 0.05) {
		b[2*i], b[2*i+1] = float32(p[0]), float32(p[1])
	}
	x := ag.Const(tensor.Rand(rand.New(rand.NewPCG(3, 4)), tensor.Float32, -1, 1, 2, 3, 20, 30))
	got := s.Forward(x, false).T.F32()
	want := ag.Resize(x, op.ResizeParams{Mode: "linear", CoordMode: "align_corners", Sizes: []int{8, 12}}).T.F32()
	d := 0.0
	for i := range want {
		d = max(d, math.Abs(float64(got[i]-want[i])))
	}
	if d > 1e-5 {
		t.Fatalf("identity spline: max abs diff from the resize %g", d)
	}
}

// Bad STN_ON keys fail the build naming the key.
func TestSTNRefusals(t *testing.T) {
	for _, tc := range []struct {
		o    STNOpts
		want string
	}{
		{STNOpts{TPSInputSize: []int{64, 64}}, "tps_inputsize [64 64]"},
		{STNOpts{NumControlPoints: 7}, "num_control_points 7"},
		{STNOpts{STNActivation: "tanh"}, `stn_activation "tanh"`},
		{STNOpts{TPSOutputSize: []int{32}}, "tps_outputsize [32]"},
	} {
		if _, err := NewSTN(tc.o, rand.New(rand.NewPCG(1, 2))); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want %q", tc.o, err, tc.want)
		}
	}
}

// The export carries STN_ON (ONNX GridSample): run by core/runtime on two
// 64×256 lines it gives the softmax of the Go model's logits.
func TestPaddleOCRSTNExport(t *testing.T) {
	pd, _ := stnFixture(t)
	cfg, err := config.Load(pdSVTRConfig, stnSmall...)
	if err != nil {
		t.Fatal(err)
	}
	in := crnnInput(2, 3, 64, 256)
	got := exportRun(t, cfg, pd, in)
	m := zeroedPaddleModel(t, pdSVTRConfig, stnSmall...)
	if _, err := workflow.LoadCheckpoint(pd, m, nil); err != nil {
		t.Fatal(err)
	}
	logits := ag.Transpose(m.Forward(ag.Const(in), false), 1, 0, 2) // (N, T, K)
	checkProbs(t, "exported STN_ON + SVTRNet", got, ag.Softmax(logits, -1).T.Float64s())
}

// STN_ON trains: a loss on the rectified image reaches the localisation
// net through grid_sample's grid gradient (stn_fc2 and the first conv get
// non-zero gradients), in training mode (batch statistics).
func TestSTNGradientReachesLocalisation(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	s, err := NewSTN(STNOpts{TPSOutputSize: []int{8, 16}, NumControlPoints: 6}, r)
	if err != nil {
		t.Fatal(err)
	}
	// PaddleOCR starts stn_fc2 at zero, which would leave the rest of the net
	// without a gradient; a small weight makes every layer count
	for i, v := range s.FC2.Weight.T.F32() {
		s.FC2.Weight.T.F32()[i] = v + float32(0.01*r.NormFloat64())
	}
	x := ag.Const(tensor.Rand(r, tensor.Float32, -1, 1, 2, 3, 40, 90))
	y := s.Forward(x, true)
	ag.Sum(ag.Mul(y, ag.Const(tensor.Rand(r, tensor.Float32, -1, 1, y.Shape()...))), nil, false).Backward()
	for name, g := range map[string]*ag.Var{"stn_fc2.weight": s.FC2.Weight, "stn_fc2.bias": s.FC2.Bias, "stn_convnet.0.0.weight": s.Convs[0].Weight} {
		n := 0.0
		if g.Grad != nil {
			for _, v := range g.Grad.Float64s() {
				n += v * v
			}
		}
		if n == 0 || math.IsNaN(n) {
			t.Errorf("%s: gradient norm² %g", name, n)
		}
	}
}
