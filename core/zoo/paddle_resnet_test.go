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

// testdata/resnet50_w2.pdparams is written by scripts/ref/pdparams_ref.py
// (resnet_pdparams) from its own reading of PaddleClas's legendary ResNet50
// (every width 2/64 of Paddle's), each tensor lcnetPattern(this package's
// name for it).
const resnetFixture = "testdata/resnet50_w2.pdparams"

func newResNet50(t *testing.T, seed uint64) *zoo.ResNet {
	t.Helper()
	m, err := zoo.NewResNet(zoo.ResNetOptions{Depth: 50, Width: 2, InChannels: 3, ClassNum: 10}, rand.New(rand.NewPCG(seed, 1)))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func resnetForward(m nn.Module) *tensor.Tensor {
	x := tensor.Rand(rand.New(rand.NewPCG(7, 7)), tensor.Float32, -1, 1, 1, 3, 64, 64)
	return m.(interface {
		Forward(*ag.Var, bool) *ag.Var
	}).Forward(ag.Const(x), false).T
}

func TestResNetLoadsPaddleWeights(t *testing.T) {
	want := newResNet50(t, 1)
	pdtest.SetPattern(want)
	if err := pdtest.SamePattern(resnetFixture, want, newResNet50(t, 2), resnetForward); err != nil {
		t.Fatal(err)
	}
}

// swappedResNet answers Paddle's name of b for a and the reverse: a map
// with two entries exchanged (same shapes, so nothing fails on shape).
type swappedResNet struct {
	*zoo.ResNet
	a, b string
}

func (s swappedResNet) PaddleName(name string) (string, bool) {
	switch name {
	case s.a:
		name = s.b
	case s.b:
		name = s.a
	}
	return s.ResNet.PaddleName(name)
}

// The check must catch a map with two same-shaped entries swapped.
func TestResNetSwappedNameFails(t *testing.T) {
	want := newResNet50(t, 1)
	pdtest.SetPattern(want)
	got := swappedResNet{newResNet50(t, 2), "stages.1.1.conv2.bn.weight", "stages.1.2.conv2.bn.weight"}
	err := pdtest.SamePattern(resnetFixture, want, got, func(m nn.Module) *tensor.Tensor {
		if s, ok := m.(swappedResNet); ok {
			m = s.ResNet
		}
		return resnetForward(m)
	})
	if err == nil || !strings.Contains(err.Error(), "differs from the pattern") {
		t.Fatalf("a swapped entry went unnoticed: %v", err)
	}
}

func TestResNetPaddleNames(t *testing.T) {
	m := newResNet50(t, 1)
	for in, want := range map[string]string{
		"stem.conv.weight":                        "stem.0.conv.weight",
		"stem.bn.running_var":                     "stem.0.bn._variance",
		"stages.0.0.short.bn.running_mean":        "blocks.0.short.bn._mean",
		"stages.1.0.conv1.conv.weight":            "blocks.3.conv0.conv.weight",
		"stages.3.2.conv3.bn.bias":                "blocks.15.conv2.bn.bias",
		"stages.0.0.conv1.bn.num_batches_tracked": "",
	} {
		if got, _ := m.PaddleName(in); got != want {
			t.Errorf("PaddleName(%q) = %q, want %q", in, got, want)
		}
	}
	if _, tr := m.PaddleName("fc.weight"); !tr {
		t.Error("fc.weight is not transposed")
	}
}

// Written back as .pdparams, the patterned models equal the fixtures.
func TestPaddleWeightsWriteTheFixtures(t *testing.T) {
	r := newResNet50(t, 1)
	pdtest.SetPattern(r)
	if err := pdtest.WritesFixture(resnetFixture, t.TempDir(), r); err != nil {
		t.Fatal(err)
	}
	l := newLCNet(t, 10, 1)
	pdtest.SetPattern(l)
	if err := pdtest.WritesFixture(lcnetFixture, t.TempDir(), l); err != nil {
		t.Fatal(err)
	}
}

// PaddleClas's ResNet-18 has a 1x1 shortcut in its first block: with
// first_short_conv the port has it too and loads the weights exactly;
// without it the strict load names the tensors it cannot place.
func TestResNet18FirstShortConv(t *testing.T) {
	const fixture = "testdata/resnet18_w2.pdparams"
	build := func(seed uint64, short bool) *zoo.ResNet {
		m, err := zoo.NewResNet(zoo.ResNetOptions{Depth: 18, Width: 2, InChannels: 3, ClassNum: 10, FirstShortConv: short}, rand.New(rand.NewPCG(seed, 1)))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	want := build(1, true)
	pdtest.SetPattern(want)
	if err := pdtest.SamePattern(fixture, want, build(2, true), resnetForward); err != nil {
		t.Fatal(err)
	}
	if err := pdtest.WritesFixture(fixture, t.TempDir(), want); err != nil {
		t.Fatal(err)
	}
	_, err := workflow.LoadCheckpoint(fixture, build(2, false), nil)
	if err == nil || !strings.Contains(err.Error(), "blocks.0.short") {
		t.Fatalf("without first_short_conv: err = %v", err)
	}
}
