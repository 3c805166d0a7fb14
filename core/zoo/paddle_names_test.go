package zoo_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"paddle/core/ag"
	"paddle/core/nn"
	"paddle/core/tensor"
	"paddle/core/workflow"
	"paddle/core/workflow/pdtest"
	"paddle/core/zoo"
)

// testdata/pplcnet_x0_25.pdparams is written by scripts/ref/pdparams_ref.py
// under PaddleClas's parameter names and layouts (Linear weights (in, out)),
// from its own reading of PaddleClas's PPLCNet; each tensor holds
// pdtest.Pattern(the name this package gives it). A wrong name map loads
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

func forward(m *zoo.PPLCNet) *tensor.Tensor {
	x := tensor.Rand(rand.New(rand.NewPCG(7, 7)), tensor.Float32, -1, 1, 1, 3, 32, 32)
	return m.Forward(ag.Const(x), false).T
}

// The Go model given the pattern by its own names, and a second one loaded
// from the Paddle-named file, must hold the same tensors and predict alike.
func TestPPLCNetLoadsPaddleWeights(t *testing.T) {
	want := newLCNet(t, 10, 1)
	pdtest.SetPattern(want)
	err := pdtest.SamePattern(lcnetFixture, want, newLCNet(t, 10, 2), func(m nn.Module) *tensor.Tensor { return forward(m.(*zoo.PPLCNet)) })
	if err != nil {
		t.Fatal(err)
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
	if pdtest.MaxDiff(m.FC.Weight.T, before) != 0 {
		t.Fatal("fc.weight changed")
	}
	if d := pdtest.MaxDiff(m.Stem.Conv.Weight.T, pdtest.Pattern("stem.conv.weight", m.Stem.Conv.Weight.T.Shape())); d > 1e-6 {
		t.Fatalf("stem.conv.weight not loaded (off by %g)", d)
	}
}

func TestPaddleWeightsNeedANameMap(t *testing.T) {
	m, err := zoo.NewSTDCModule(8, 16, 4, 2, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	_, err = workflow.LoadCheckpoint(lcnetFixture, m, nil)
	if err == nil || !strings.Contains(err.Error(), "no map from PaddlePaddle") || !strings.Contains(err.Error(), lcnetFixture) {
		t.Fatalf("err = %v", err)
	}
}
