package workflow

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"paddle/core/nn"
)

// twoLayers is a body Linear(2, 3) and a head Linear(3, classes).
func twoLayers(t *testing.T, classes int, seed uint64) *nn.Sequential {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	body, err := nn.NewLinear(nn.LinearOptions{In: 2, Out: 3}, r)
	if err != nil {
		t.Fatal(err)
	}
	head, err := nn.NewLinear(nn.LinearOptions{In: 3, Out: classes}, r)
	if err != nil {
		t.Fatal(err)
	}
	return nn.NewSequential(body, head)
}

func TestLoadPretrained(t *testing.T) {
	dir := t.TempDir()
	src := twoLayers(t, 5, 1)
	if err := SaveCheckpoint(dir, src, nil, State{}, nil); err != nil {
		t.Fatal(err)
	}
	// a model with a 2-class head: the body comes from the checkpoint, the head stays
	dst := twoLayers(t, 2, 2)
	headBefore := slices.Clone(dst.Layers[1].Params()[0].V.T.F32())
	skipped, err := LoadPretrained(dir, dst)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"1.bias", "1.weight"}; !slices.Equal(skipped, want) {
		t.Errorf("skipped %v, want %v", skipped, want)
	}
	for i := range 2 {
		if !slices.Equal(dst.Layers[0].Params()[i].V.T.F32(), src.Layers[0].Params()[i].V.T.F32()) {
			t.Errorf("body %s not loaded", dst.Layers[0].Params()[i].Name)
		}
	}
	if !slices.Equal(dst.Layers[1].Params()[0].V.T.F32(), headBefore) {
		t.Error("mis-shaped head weight was changed")
	}

	// a checkpoint that shares nothing with the model is refused
	other, err := nn.NewLinear(nn.LinearOptions{In: 4, Out: 4}, rand.New(rand.NewPCG(3, 3)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LoadPretrained(dir, other); err == nil || !strings.Contains(err.Error(), "no tensor matches") {
		t.Errorf("err %v, want no tensor matches", err)
	}
	if _, err := LoadPretrained(t.TempDir(), dst); err == nil {
		t.Error("empty folder: want an error")
	}
}
