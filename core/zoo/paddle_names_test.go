package zoo_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"paddle/core/ag"
	"paddle/core/nn"
	"paddle/core/tensor"
	"paddle/core/workflow"
	"paddle/core/zoo"
)

// testdata/pplcnet_x0_25.pdparams is written by scripts/ref/pdparams_ref.py
// under PaddleClas's parameter names and layouts (Linear weights (in, out)),
// from its own reading of PaddleClas's PPLCNet; each tensor holds
// lcnetPattern(the name this package gives it). A wrong name map loads
// another tensor's pattern (or fails on shape), so these tests fail.
const lcnetFixture = "testdata/pplcnet_x0_25.pdparams"

func newLCNet(t *testing.T, classes int, seed uint64) *zoo.PPLCNet {
	t.Helper()
	m, err := zoo.NewPPLCNet(zoo.PPLCNetOptions{Scale: 0.25, InChannels: 3, ClassNum: classes, LastConv: 64}, rand.New(rand.NewPCG(seed, 1)))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// lcnetPattern is the script's lcnet_pattern: 0.5 sin(0.37 i + 0.11 Σ bytes(name)),
// and 1 + |that| for running variances.
func lcnetPattern(name string, shape tensor.Shape) *tensor.Tensor {
	off := 0.0
	for _, b := range []byte(name) {
		off += float64(b)
	}
	off *= 0.11
	v := make([]float32, shape.NumElements())
	for i := range v {
		x := 0.5 * math.Sin(0.37*float64(i)+off)
		if strings.HasSuffix(name, "running_var") {
			x = 1 + math.Abs(x)
		}
		v[i] = float32(x)
	}
	return tensor.FromSlice(v, shape...)
}

func forward(m *zoo.PPLCNet) *tensor.Tensor {
	x := tensor.Rand(rand.New(rand.NewPCG(7, 7)), tensor.Float32, -1, 1, 1, 3, 32, 32)
	return m.Forward(ag.Const(x), false).T
}

func maxDiff(a, b *tensor.Tensor) float64 {
	d := 0.0
	af, bf := a.Contiguous().Float64s(), b.Contiguous().Float64s()
	for i := range af {
		d = max(d, math.Abs(af[i]-bf[i]))
	}
	return d
}

// The Go model given the pattern by its own names, and a second one loaded
// from the Paddle-named file, must hold the same tensors and predict alike.
func TestPPLCNetLoadsPaddleWeights(t *testing.T) {
	want := newLCNet(t, 10, 1)
	for _, p := range append(want.Params(), nn.Buffers(want)...) {
		if !strings.HasSuffix(p.Name, "num_batches_tracked") {
			p.V.T.CopyFrom(lcnetPattern(p.Name, p.V.T.Shape()))
		}
	}
	got := newLCNet(t, 10, 2)
	if _, err := workflow.LoadCheckpoint(lcnetFixture, got, nil); err != nil {
		t.Fatal(err)
	}
	ws := nn.State(want)
	for name, g := range nn.State(got) {
		if d := maxDiff(g, ws[name]); d > 1e-6 {
			t.Fatalf("%s differs from the pattern by %g", name, d)
		}
	}
	if d := maxDiff(forward(got), forward(want)); d > 1e-5 {
		t.Fatalf("predictions differ by %g", d)
	}
}

// As pretrain_weights, a head for another class count keeps its own values.
func TestPPLCNetPretrainedFromPaddle(t *testing.T) {
	m := newLCNet(t, 5, 3)
	before := m.FC.Weight.T.Clone()
	skipped, err := workflow.LoadPretrained(lcnetFixture, m)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(skipped, ",") != "fc.bias,fc.weight" {
		t.Fatalf("skipped %v, want only the head", skipped)
	}
	if maxDiff(m.FC.Weight.T, before) != 0 {
		t.Fatal("fc.weight changed")
	}
	if d := maxDiff(m.Stem.Conv.Weight.T, lcnetPattern("stem.conv.weight", m.Stem.Conv.Weight.T.Shape())); d > 1e-6 {
		t.Fatalf("stem.conv.weight not loaded (off by %g)", d)
	}
}

func TestPaddleWeightsNeedANameMap(t *testing.T) {
	m, err := zoo.NewSTDCNet(zoo.STDCOptions{Base: 16, Layers: []int{1, 2, 1}}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	_, err = workflow.LoadCheckpoint(lcnetFixture, m, nil)
	if err == nil || !strings.Contains(err.Error(), "no map from PaddlePaddle") || !strings.Contains(err.Error(), lcnetFixture) {
		t.Fatalf("err = %v", err)
	}
}
