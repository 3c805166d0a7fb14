package runtime

import (
	"testing"

	"paddle/core/runtime/ppocrtest"
	"paddle/core/tensor"
)

// The PP-OCRv4 golden comparison with every uncleared arena buffer full of
// NaN: an op marked op.Def.Overwrites that skipped an element would turn the
// output NaN (the golden check fails on NaN). Two sizes per model, so the
// second call runs on recycled buffers.
func TestPPOCRv4PoisonedArena(t *testing.T) {
	dir := ppocrtest.Dir(t)
	poisonArena = true
	defer func() { poisonArena = false }()
	comparePPOCR(t, dir, nil, []ppocrtest.Case{
		{Model: "ch_PP-OCRv4_det_infer.onnx", Golden: "det_1x3x160x160", Shape: []int{1, 3, 160, 160}},
		{Model: "ch_PP-OCRv4_det_infer.onnx", Golden: "det_1x3x96x128", Shape: []int{1, 3, 96, 128}},
		{Model: "ch_PP-OCRv4_rec_infer.onnx", Golden: "rec_2x3x48x64", Shape: []int{2, 3, 48, 64}},
		{Model: "ch_ppocr_mobile_v2.0_cls_infer.onnx", Golden: "cls_2x3x48x192", Shape: []int{2, 3, 48, 192}},
	})
}

// The poison itself: uncleared buffers come out NaN, cleared ones zero.
func TestArenaPoison(t *testing.T) {
	poisonArena = true
	defer func() { poisonArena = false }()
	a := newArena()
	x := a.alloc(tensor.Float32, []int{2048}, false)
	if v := x.F32()[2047]; v == v {
		t.Fatalf("fresh uncleared buffer holds %g, want NaN", v)
	}
	a.release(x)
	if v := a.alloc(tensor.Float32, []int{2048}, true).F32()[5]; v != 0 {
		t.Fatalf("cleared buffer holds %g, want 0", v)
	}
}
