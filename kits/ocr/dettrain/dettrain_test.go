package dettrain

import (
	"math"
	"math/rand/v2"
	"testing"

	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/imgproc"
	"paddle/core/tensor"
)

func rect(x0, y0, x1, y1 float64) []imgproc.Point {
	return []imgproc.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}
}

// Worked examples of DetectionIoUEvaluator's rules.
func TestEvaluateImageWorkedExamples(t *testing.T) {
	tests := []struct {
		name                string
		gt                  [][]imgproc.Point
		ignore              []bool
		det                 [][]imgproc.Point
		gtCare, detCare, ok int
	}{
		// IoU = 1
		{"exact", [][]imgproc.Point{rect(0, 0, 10, 10)}, []bool{false}, [][]imgproc.Point{rect(0, 0, 10, 10)}, 1, 1, 1},
		// inter 50, union 100+50-50 = 100: IoU 0.5 is not > 0.5
		{"iou exactly 0.5", [][]imgproc.Point{rect(0, 0, 10, 10)}, []bool{false}, [][]imgproc.Point{rect(0, 0, 10, 5)}, 1, 1, 0},
		// inter 60, union 100: IoU 0.6
		{"iou 0.6", [][]imgproc.Point{rect(0, 0, 10, 10)}, []bool{false}, [][]imgproc.Point{rect(0, 0, 10, 6)}, 1, 1, 1},
		// one GT, two detections: only the first (in order) matches
		{"one to one", [][]imgproc.Point{rect(0, 0, 10, 10)}, []bool{false}, [][]imgproc.Point{rect(0, 0, 10, 9), rect(0, 1, 10, 10)}, 1, 2, 1},
		// a detection covering > half its area with a don't-care GT leaves both counts
		{"dont care", [][]imgproc.Point{rect(0, 0, 10, 10), rect(20, 0, 30, 10)}, []bool{false, true},
			[][]imgproc.Point{rect(0, 0, 10, 10), rect(18, 0, 28, 10)}, 1, 1, 1},
		// exactly half inside the don't-care GT: not > 0.5, so it counts (unmatched)
		{"dont care half", [][]imgproc.Point{rect(20, 0, 30, 10)}, []bool{true}, [][]imgproc.Point{rect(15, 0, 25, 10)}, 0, 1, 0},
		// a self-crossing detection is dropped
		{"invalid det", [][]imgproc.Point{rect(0, 0, 10, 10)}, []bool{false},
			[][]imgproc.Point{{{X: 0, Y: 0}, {X: 10, Y: 10}, {X: 10, Y: 0}, {X: 0, Y: 10}}}, 1, 0, 0},
		// a zero-area GT is dropped
		{"degenerate gt", [][]imgproc.Point{rect(0, 0, 10, 0)}, []bool{false}, nil, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, d, k := EvaluateImage(tt.gt, tt.ignore, tt.det)
			if g != tt.gtCare || d != tt.detCare || k != tt.ok {
				t.Errorf("EvaluateImage = (%d, %d, %d), want (%d, %d, %d)", g, d, k, tt.gtCare, tt.detCare, tt.ok)
			}
		})
	}
}

func TestDetMetricResult(t *testing.T) {
	var m DetMetric
	// image 1: 2 GTs, 1 matched of 2 detections; image 2: 1 GT, none detected
	m.Update([][]imgproc.Point{rect(0, 0, 10, 10), rect(20, 0, 30, 10)}, []bool{false, false},
		[][]imgproc.Point{rect(0, 0, 10, 10), rect(50, 50, 60, 60)})
	m.Update([][]imgproc.Point{rect(0, 0, 10, 10)}, []bool{false}, nil)
	rep := m.Result()
	p, r := 1.0/2, 1.0/3
	want := map[string]float64{"precision": p, "recall": r, "hmean": 2 * p * r / (p + r)}
	for k, v := range want {
		if math.Abs(rep.Values[k]-v) > 1e-12 {
			t.Errorf("%s = %v, want %v", k, rep.Values[k], v)
		}
	}
	if rep.Main != "hmean" || rep.Count != 2 {
		t.Errorf("Main %q Count %d, want hmean 2", rep.Main, rep.Count)
	}
}

func TestIntersectionAreaConcave(t *testing.T) {
	// an L shape (area 3) against the unit square at its corner and a square over its notch
	l := []imgproc.Point{{X: 0, Y: 0}, {X: 2, Y: 0}, {X: 2, Y: 1}, {X: 1, Y: 1}, {X: 1, Y: 2}, {X: 0, Y: 2}}
	if a := IntersectionArea(l, rect(0, 0, 1, 1)); math.Abs(a-1) > 1e-12 {
		t.Errorf("corner: %v, want 1", a)
	}
	if a := IntersectionArea(l, rect(0.5, 0.5, 1.5, 1.5)); math.Abs(a-0.75) > 1e-12 {
		t.Errorf("notch: %v, want 0.75", a)
	}
	if a := IntersectionArea(rect(0, 0, 1, 1), rect(2, 2, 3, 3)); a != 0 {
		t.Errorf("apart: %v, want 0", a)
	}
}

func tinyArch(t *testing.T) ArchOpts {
	t.Helper()
	cfg, err := config.Parse("ocr", "a.yaml", []byte(`
Architecture:
  model_type: det
  algorithm: DB
  Backbone: {name: PPLCNet, scale: 0.25}
  Neck: {name: DBFPN, out_channels: 32}
  Head: {name: DBHead, k: 50}
`))
	if err != nil {
		t.Fatal(err)
	}
	var a ArchOpts
	if err := cfg.Decode("Architecture", &a); err != nil {
		t.Fatal(err)
	}
	return a
}

func TestDBNetShapes(t *testing.T) {
	m, err := buildModel(tinyArch(t), rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	x := ag.Const(tensor.Randn(rand.New(rand.NewPCG(3, 4)), tensor.Float32, 0, 1, 2, 3, 64, 96))
	if got := m.Forward(x, true).Shape(); !got.Equal(tensor.Shape{2, 3, 64, 96}) {
		t.Errorf("training maps %v, want (2, 3, 64, 96)", got)
	}
	y := m.Forward(x, false)
	if got := y.Shape(); !got.Equal(tensor.Shape{2, 1, 64, 96}) {
		t.Errorf("eval map %v, want (2, 1, 64, 96)", got)
	}
	for _, v := range y.T.F32() {
		if !(v >= 0 && v <= 1) {
			t.Fatalf("probability %v outside [0, 1]", v)
		}
	}
	if got := m.Backbone.FeatureChannels(); len(got) != 4 || got[0] != 16 || got[3] != 128 {
		t.Errorf("FeatureChannels %v, want [16 32 64 128]", got)
	}
}

func TestDBPostBoxes(t *testing.T) {
	// a 40×10 text kernel at (20, 30) on a 128×64 map; the source image is twice as large
	pred := imgproc.MatF{H: 64, W: 128, Pix: make([]float32, 64*128)}
	for y := 30; y < 40; y++ {
		for x := 20; x < 60; x++ {
			pred.Pix[y*128+x] = 0.9
		}
	}
	p := newDBPost(DBPostProcessOpts{BoxThresh: 0.6, UnclipRatio: 1.5})
	boxes, scores := p.Boxes(pred, 256, 128)
	if len(boxes) != 1 || math.Abs(scores[0]-0.9) > 1e-6 {
		t.Fatalf("boxes %v scores %v, want one box scored 0.9", boxes, scores)
	}
	b := boxes[0]
	// unclip grows by area·1.5/perimeter = 390·1.5/98 ≈ 6 px per side on the 39×9 contour box
	w, h := (b[1].X-b[0].X)/2, (b[3].Y-b[0].Y)/2
	if math.Abs(w-51) > 2 || math.Abs(h-21) > 2 {
		t.Errorf("box %v: %v×%v on the map, want about 51×21", b, w, h)
	}
	if _, s := p.Boxes(imgproc.MatF{H: 64, W: 128, Pix: make([]float32, 64*128)}, 256, 128); len(s) != 0 {
		t.Errorf("empty map gave %d boxes", len(s))
	}
}

func TestAugmentMovesPolygonsWithPixels(t *testing.T) {
	// a white 10×6 block on black; after each step the polygon must still frame the white pixels
	img := imgproc.NewMat8(60, 80, 3)
	for y := 20; y < 26; y++ {
		for x := 30; x < 40; x++ {
			for c := range 3 {
				img.Pix[(y*80+x)*3+c] = 255
			}
		}
	}
	check := func(name string, m imgproc.Mat8, p []imgproc.Point) {
		t.Helper()
		var sx, sy, n float64
		for y := range m.H {
			for x := range m.W {
				if v := float64(m.Pix[(y*m.W+x)*3]); v > 128 {
					sx, sy, n = sx+float64(x)+0.5, sy+float64(y)+0.5, n+1
				}
			}
		}
		var cx, cy float64
		for _, q := range p {
			cx, cy = cx+q.X/4, cy+q.Y/4
		}
		if n == 0 || math.Hypot(sx/n-cx, sy/n-cy) > 1.5 {
			t.Errorf("%s: white centre (%.1f, %.1f), polygon centre (%.1f, %.1f)", name, sx/n, sy/n, cx, cy)
		}
	}
	poly := [][]imgproc.Point{rect(30, 20, 40, 26)}
	m := flipLR(img, poly)
	check("flip", m, poly[0])
	m = rotate(m, poly, 9)
	check("rotate", m, poly[0])
	m = scaleImage(m, poly, 1.7)
	check("scale", m, poly[0])

	s := &Sample{Image: m, Polys: poly, Ignore: []bool{false}}
	eastRandomCrop(s, CropOpts{Size: []int{64, 64}, MaxTries: 50, MinCropSideRatio: 0.1}, rand.New(rand.NewPCG(5, 6)))
	if s.Image.W != 64 || s.Image.H != 64 || len(s.Polys) != 1 {
		t.Fatalf("crop: %dx%d with %d polygons, want 64x64 with 1", s.Image.W, s.Image.H, len(s.Polys))
	}
	check("crop", s.Image, s.Polys[0])
}

func TestCropAreaKeepsTextWhole(t *testing.T) {
	polys := [][]imgproc.Point{rect(10, 10, 50, 20), rect(60, 40, 90, 55)}
	r := rand.New(rand.NewPCG(1, 1))
	for range 200 {
		x, y, w, h := cropArea(100, 80, polys, 0.1, 50, r)
		for _, p := range polys {
			// each crop edge lies outside every polygon's span
			for _, e := range []float64{float64(x), float64(x + w)} {
				if e > p[0].X && e < p[1].X {
					t.Fatalf("crop x edge %v cuts polygon %v", e, p)
				}
			}
			for _, e := range []float64{float64(y), float64(y + h)} {
				if e > p[0].Y && e < p[2].Y {
					t.Fatalf("crop y edge %v cuts polygon %v", e, p)
				}
			}
		}
	}
}

func TestResizeForTest(t *testing.T) {
	tests := []struct {
		h, w   int
		o      DetResizeForTestOpts
		wh, ww int
	}{
		{640, 640, DetResizeForTestOpts{LimitSideLen: 640, LimitType: "max"}, 640, 640},
		{500, 1000, DetResizeForTestOpts{LimitSideLen: 640, LimitType: "max"}, 320, 640},
		{100, 300, DetResizeForTestOpts{LimitSideLen: 736, LimitType: "min"}, 736, 2208},
		{123, 77, DetResizeForTestOpts{ImageShape: []int{96, 64}}, 96, 64},
	}
	for _, tt := range tests {
		if h, w := resizeForTest(tt.h, tt.w, tt.o); h != tt.wh || w != tt.ww {
			t.Errorf("resizeForTest(%d, %d, %+v) = %d, %d, want %d, %d", tt.h, tt.w, tt.o, h, w, tt.wh, tt.ww)
		}
	}
}
