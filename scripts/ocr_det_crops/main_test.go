package main

import (
	"reflect"
	"testing"

	"paddle/kits/ocr"
	"paddle/kits/ocr/rectrain"
)

func rect(x0, y0, x1, y1 float64) [][2]float64 {
	return [][2]float64{{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}}
}

func box(x0, y0, x1, y1 float64) ocr.Box {
	var b ocr.Box
	for i, p := range rect(x0, y0, x1, y1) {
		b[i].X, b[i].Y = p[0], p[1]
	}
	return b
}

// Each label gets the detected box it overlaps most, one to one, above the
// IoU bound; ignored labels and weak overlaps get none.
func TestMatch(t *testing.T) {
	labels := []rectrain.DetBox{
		{Text: "a", Points: rect(0, 0, 100, 20)},
		{Text: "b", Points: rect(0, 30, 100, 50)},
		{Text: "###", Points: rect(0, 60, 100, 80), Ignore: true},
		{Text: "c", Points: rect(0, 90, 100, 110)},
	}
	dets := []ocr.Box{
		box(0, 60, 100, 80),  // the ignored region
		box(2, 31, 100, 50),  // b (IoU 0.93)
		box(0, 0, 100, 21),   // a (IoU 0.95)
		box(0, 0, 60, 20),    // a's left part (IoU 0.6): a is taken
		box(0, 90, 100, 125), // c, but IoU 20/35 = 0.57 < 0.7
	}
	got := match(labels, dets, 0.7)
	want := []pair{{0, 2, 0}, {1, 1, 0}}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want labels/dets %+v", got, want)
	}
	for i := range got {
		got[i].iou = 0
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if got := match(labels, dets, 0.5); len(got) != 3 || got[2].label != 3 || got[2].det != 4 {
		t.Errorf("IoU ≥ 0.5: %+v, want c matched to box 4 too", got)
	}
}
