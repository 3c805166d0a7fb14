package zoo

import (
	"math/rand/v2"
	"testing"

	"paddle/core/ag"
	"paddle/core/tensor"
)

// STDC gives features at strides 8, 16, 32 with base·4, ·8, ·16 channels,
// and an STDC module's output is the concatenation of its convs (out/2,
// out/4, out/8, out/8 for block_num 4).
func TestSTDCShapes(t *testing.T) {
	m, err := NewSTDCNet(STDCOptions{Base: 16, Layers: []int{1, 2, 1}}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	x := ag.Const(tensor.Rand(rand.New(rand.NewPCG(2, 2)), tensor.Float32, -1, 1, 2, 3, 64, 96))
	feats := m.Features(x, true)
	want := []tensor.Shape{{2, 64, 8, 12}, {2, 128, 4, 6}, {2, 256, 2, 3}}
	for i, f := range feats {
		if !f.T.Shape().Equal(want[i]) {
			t.Errorf("feature %d: %v, want %v", i, f.T.Shape(), want[i])
		}
	}
	if got := m.Channels(); got[0] != 64 || got[1] != 128 || got[2] != 256 {
		t.Errorf("Channels() = %v", got)
	}
	b := m.Stages[1][0]
	if len(b.Convs) != 4 || b.Down == nil || m.Stages[1][1].Down != nil {
		t.Errorf("stage 2: %d convs, first down %v, second down %v", len(b.Convs), b.Down != nil, m.Stages[1][1].Down != nil)
	}
	for i, w := range []int{64, 32, 16, 16} {
		if got := b.Convs[i].Conv.Weight.T.Dim(0); got != w {
			t.Errorf("stage 2 conv %d: %d channels, want %d", i, got, w)
		}
	}
	names := map[string]bool{}
	for _, p := range append(m.Params(), m.Buffers()...) {
		if names[p.Name] {
			t.Errorf("duplicate name %s", p.Name)
		}
		names[p.Name] = true
	}
	if !names["stages.1.0.down.conv.weight"] || !names["stem.0.bn.running_mean"] {
		t.Errorf("missing expected names among %d", len(names))
	}
	if _, err := NewSTDCNet(STDCOptions{Base: 12}, nil); err == nil {
		t.Error("base 12 (not a multiple of 8) accepted")
	}
}
