package zoo

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"paddle/core/ag"
	"paddle/core/hub"
	"paddle/core/onnx"
	"paddle/core/op"
	"paddle/core/runtime"
	"paddle/core/tensor"
)

// ppocrv4Det returns the PP-OCRv4 detector's path, skipping without it.
func ppocrv4Det(t *testing.T) string {
	t.Helper()
	dir, ok := hub.Path("ppocrv4")
	if !ok {
		t.Skip("model store: ppocrv4 is not pulled (paddle model pull ppocrv4)")
	}
	return dir + "/ch_PP-OCRv4_det_infer.onnx"
}

// The cut backbone's stage maps equal what the inference runtime computes
// for the same values of the whole imported graph (its own passes and
// kernels: conv fusion, hardswish rewriting), within 1e-4.
func TestImportedBackboneMatchesRuntime(t *testing.T) {
	file := ppocrv4Det(t)
	b, err := ImportBackbone("ppocrv4:ch_PP-OCRv4_det_infer.onnx")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := b.StageChannels(), []int{32, 48, 96, 192, 384}; !slices.Equal(got, want) {
		t.Fatalf("channels %v, want %v (PP-LCNetV3 ×0.75 blocks2..blocks6)", got, want)
	}
	if b.Stage("conv2d_0.w_0") != 0 || b.Stage("conv2d_394.w_0") != 1 || b.Stage("conv2d_396.w_0") != 2 || b.Stage("conv2d_414.w_0") != 5 {
		t.Errorf("stages: stem %d, first dw %d, blocks3's stride-2 dw %d, blocks6's %d; want 0 1 2 5",
			b.Stage("conv2d_0.w_0"), b.Stage("conv2d_394.w_0"), b.Stage("conv2d_396.w_0"), b.Stage("conv2d_414.w_0"))
	}
	g, err := onnx.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]int{}
	for i, name := range b.outputs {
		byName[name] = i
	}
	g.Outputs, g.OutputNames = nil, nil
	for _, n := range g.Nodes {
		for _, v := range n.Out {
			if _, ok := byName[v.Name]; ok {
				g.Outputs = append(g.Outputs, v)
			}
		}
	}
	p, err := runtime.New(g, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	x := tensor.Rand(rand.New(rand.NewPCG(1, 2)), tensor.Float32, -1, 1, 1, 3, 96, 128)
	want, err := p.Run(map[string]*tensor.Tensor{"x": x})
	if err != nil {
		t.Fatal(err)
	}
	got := b.Stages(ag.Const(x), false)
	for i, name := range b.outputs {
		w, gt := want[name], got[i].T
		if !gt.Shape().Equal(w.Shape()) {
			t.Fatalf("stage %d (%s): shape %v, want %v", i+1, name, gt.Shape(), w.Shape())
		}
		if s := gt.Shape(); s[2] != 96>>(i+1) || s[3] != 128>>(i+1) {
			t.Errorf("stage %d: shape %v, want stride %d", i+1, s, 1<<(i+1))
		}
		worst := 0.0
		gv, wv := gt.Float64s(), w.Float64s()
		for j := range gv {
			worst = max(worst, math.Abs(gv[j]-wv[j]))
		}
		if worst > 1e-4 {
			t.Errorf("stage %d (%s): max |diff| %g > 1e-4", i+1, name, worst)
		}
	}
}

// A graph that is not a chain backbone is an error, not a panic.
func TestImportBackboneRejects(t *testing.T) {
	if _, err := ImportBackbone("/nonexistent/model.onnx"); err == nil {
		t.Error("a missing file: no error")
	}
}

// NewImported reverses the stem's input channels for a BGR-trained model
// (the default), so an RGB image gives what the imported model gives the
// same image in BGR; model_channels RGB leaves them.
func TestNewImportedChannelOrder(t *testing.T) {
	ppocrv4Det(t)
	plain, err := ImportBackbone(DefaultImportedModel)
	if err != nil {
		t.Fatal(err)
	}
	rgb, err := NewImported(ImportedOptions{}, "PPLCNetV3")
	if err != nil {
		t.Fatal(err)
	}
	same, err := NewImported(ImportedOptions{ModelChannels: "rgb", FeatureMaps: []int{5}}, "PPLCNetV3")
	if err != nil {
		t.Fatal(err)
	}
	x := tensor.Rand(rand.New(rand.NewPCG(3, 4)), tensor.Float32, -1, 1, 1, 3, 64, 64)
	bgr := op.Concat(1, op.Slice(x, []int{2}, []int{3}, []int{1}, nil), op.Slice(x, []int{1}, []int{2}, []int{1}, nil), op.Slice(x, []int{0}, []int{1}, []int{1}, nil))
	want := plain.Stages(ag.Const(bgr), false)[4].T.Float64s()
	got := rgb.Features(ag.Const(x), false)[2].T.Float64s()
	asIs := same.Features(ag.Const(bgr), false)[0].T.Float64s()
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-4 || math.Abs(asIs[i]-want[i]) > 1e-4 {
			t.Fatalf("element %d: swapped %g, rgb as is %g, want %g", i, got[i], asIs[i], want[i])
		}
	}
	if _, err := NewImported(ImportedOptions{ModelChannels: "HSV"}, "PPLCNetV3"); err == nil || !strings.Contains(err.Error(), "model_channels") {
		t.Errorf("model_channels HSV: %v, want an error naming it", err)
	}
	if _, err := NewImported(ImportedOptions{FeatureMaps: []int{6}}, "PPLCNetV3"); err == nil || !strings.Contains(err.Error(), "feature_maps") {
		t.Errorf("feature_maps [6]: %v, want an error naming it", err)
	}
}
