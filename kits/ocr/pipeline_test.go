package ocr

import (
	"math"
	"paddle/core/metric"
	"reflect"
	"strconv"
	"testing"

	"paddle/core/imgproc"
	"paddle/core/tensor"
)

// Sizes computed by PaddleOCR's resize_image_type0 logic in Python 3 (round = half to
// even), for both profiles.
func TestDetResizeSize(t *testing.T) {
	cases := []struct {
		h, w     int
		v2h, v2w int
		v3h, v3w int
	}{
		{363, 1280, 256, 960, 352, 1280}, // int(363*0.75) = 272, 272/32 = 8.5 -> 8 (math.Round gives 9)
		{48, 300, 64, 288, 64, 384},      // 48/32 = 1.5 -> 2; 300/32 = 9.375 -> 9
		{20, 40, 32, 32, 64, 128},
		{1000, 1000, 960, 960, 992, 992},
		{961, 100, 960, 96, 960, 96},
		{100, 5000, 32, 960, 64, 4000}, // v3: 5000*0.64 = 3200 -> no cap
		{30, 30, 32, 32, 64, 64},
		{500, 7000, 64, 960, 288, 4000}, // v3: max side 4000 caps the min-64 enlargement
	}
	for _, c := range cases {
		if h, w := DetResizeSize(c.h, c.w, ProfileV2()); h != c.v2h || w != c.v2w {
			t.Errorf("v2 %dx%d: %dx%d, want %dx%d", c.h, c.w, h, w, c.v2h, c.v2w)
		}
		if h, w := DetResizeSize(c.h, c.w, ProfileV3()); h != c.v3h || w != c.v3w {
			t.Errorf("v3 %dx%d: %dx%d, want %dx%d", c.h, c.w, h, w, c.v3h, c.v3w)
		}
	}
}

func TestDetPreprocessPadsTinyImages(t *testing.T) {
	img := imgproc.NewMat8(10, 20, 3)
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	x := DetPreprocess(img, ProfileV2())
	if got := x.Shape(); !reflect.DeepEqual([]int(got), []int{1, 3, 32, 32}) {
		t.Fatalf("shape %v", got)
	}
	// white pixel in channel 0 (B): (1 - 0.485) / 0.229; the zero padding: -0.485/0.229
	d := x.F32()
	white := (float32(float32(255)*detScale) - 0.485) / 0.229
	black := (0 - float32(0.485)) / 0.229
	if d[0] != white || d[31] != black || d[32*31] != black {
		t.Errorf("values %v %v %v, want %v %v", d[0], d[31], d[32*31], white, black)
	}
}

func TestCTCDecode(t *testing.T) {
	chars := []string{"blank", "a", "b", "c", " "}
	// steps (argmax): a a blank a b b blank blank c ' ' -> "aabc "
	steps := []struct {
		k int
		p float32
	}{{1, 0.9}, {1, 0.8}, {0, 0.99}, {1, 0.7}, {2, 0.6}, {2, 0.95}, {0, 0.5}, {0, 0.5}, {3, 0.55}, {4, 0.65}}
	C := len(chars)
	probs := make([]float32, len(steps)*C)
	for i, s := range steps {
		for c := 0; c < C; c++ {
			probs[i*C+c] = (1 - s.p) / float32(C-1)
		}
		probs[i*C+s.k] = s.p
	}
	text, score := CTCDecode(probs, len(steps), C, chars)
	if text != "aabc " {
		t.Errorf("text %q", text)
	}
	// kept steps: 0 (a), 3 (a again after a blank), 4 (b), 8 (c), 9 (space)
	want := float64(float32(float64((((float32(0.9)+0.7)+0.6)+0.55)+0.65) / 5))
	if score != want {
		t.Errorf("score %v, want %v", score, want)
	}
	// all blanks: empty text, score 0
	for i := range probs {
		probs[i] = 0
	}
	for i := 0; i < len(steps); i++ {
		probs[i*C] = 1
	}
	if text, score := CTCDecode(probs, len(steps), C, chars); text != "" || score != 0 {
		t.Errorf("all blank: %q %v", text, score)
	}
	// ties go to the first class, as numpy's argmax
	tie := []float32{0.1, 0.45, 0.45, 0, 0}
	if text, _ := CTCDecode(tie, 1, C, chars); text != "a" {
		t.Errorf("tie: %q", text)
	}
}

// Means computed by numpy 1.24 (np.mean of a float32 array: pairwise sum) for
// a[i] = float32(1/(i+3) + (i%7)*0.1234567); they differ from a float64 sum.
func TestPairwiseMeanMatchesNumpy(t *testing.T) {
	want := map[int]string{5: "0x1.dca80cp-02", 20: "0x1.d87734p-02", 130: "0x1.94a592p-02", 300: "0x1.8a579ep-02", 1000: "0x1.8102c8p-02"}
	for n, w := range want {
		a := make([]float32, n)
		for i := range a {
			a[i] = float32(1.0/float64(i+3) + float64(i%7)*0.1234567)
		}
		m := float32(float64(metric.PairwiseSum(a)) / float64(n))
		if got := strconv.FormatFloat(float64(m), 'x', -1, 64); got != w {
			t.Errorf("n=%d: mean %s, numpy %s", n, got, w)
		}
	}
}

func TestParseDict(t *testing.T) {
	chars := ParseDict([]byte("a\r\n \nb\n\nc"), true)
	want := []string{"blank", "a", " ", "b", "", "c", " "}
	if !reflect.DeepEqual(chars, want) {
		t.Errorf("%q, want %q", chars, want)
	}
}

func TestRecWidths(t *testing.T) {
	// a batch narrower than 320/48 still gets width 320
	if w := RecBatchWidth(2.5); w != 320 {
		t.Errorf("batch width %d", w)
	}
	if w := RecBatchWidth(1000.0 / 48); w != 1000 {
		t.Errorf("batch width %d", w)
	}
	if w := RecBatchWidth(10.3); w != 494 { // int(48*10.3) = int(494.4)
		t.Errorf("batch width %d", w)
	}
	// ceil(48*w/h), capped at the batch width
	for _, c := range [][4]int{{24, 100, 320, 200}, {30, 100, 320, 160}, {31, 100, 320, 155}, {10, 100, 320, 320}, {48, 48, 192, 48}} {
		if got := RecResizeWidth(c[0], c[1], c[2]); got != c[3] {
			t.Errorf("RecResizeWidth(%d, %d, %d) = %d, want %d", c[0], c[1], c[2], got, c[3])
		}
	}
	// padding: columns past the resized width are 0, the rest in [-1, 1]
	crops := []imgproc.Mat8{solid(20, 40, 255), solid(10, 100, 0)}
	x := RecBatchInput(crops)
	if !reflect.DeepEqual([]int(x.Shape()), []int{2, 3, 48, 480}) {
		t.Fatalf("shape %v", x.Shape())
	}
	d := x.F32()
	per := 3 * 48 * 480
	if d[0] != 1 || d[95] != 1 || d[96] != 0 || d[479] != 0 { // first crop: 96 columns of white
		t.Errorf("first crop row: %v %v %v %v", d[0], d[95], d[96], d[479])
	}
	if d[per] != -1 || d[per+479] != -1 { // second crop fills the batch (ratio 10 = max)
		t.Errorf("second crop row: %v %v", d[per], d[per+479])
	}
	// cls: always 192 wide
	if got := ClsBatchInput(crops).Shape(); !reflect.DeepEqual([]int(got), []int{2, 3, 48, 192}) {
		t.Errorf("cls shape %v", got)
	}
}

// A stretched RecShape reads each crop Stretch times wider: the batch width
// and each crop's resized width follow w/h·Stretch; 0 and 1 are PaddleOCR's.
func TestRecStretch(t *testing.T) {
	crops := []imgproc.Mat8{solid(20, 40, 255), solid(10, 100, 0)} // ratios 2 and 10
	for _, c := range []struct {
		stretch float64
		width   int // batch width: int(48·max(320/48, 10·stretch))
		first   int // first crop's columns: ceil(48·2·stretch)
		second  int // second crop's: ceil(48·10·stretch)
	}{{0, 480, 96, 480}, {1, 480, 96, 480}, {1.3, 624, 125, 624}, {0.5, 320, 48, 240}} {
		x := RecShape{Stretch: c.stretch}.BatchInput(crops)
		if !reflect.DeepEqual([]int(x.Shape()), []int{2, 3, 48, c.width}) {
			t.Errorf("stretch %v: shape %v, want width %d", c.stretch, x.Shape(), c.width)
			continue
		}
		d := x.F32()
		if d[c.first-1] != 1 || d[c.first] != 0 {
			t.Errorf("stretch %v: first crop's row ends at %d: %v %v", c.stretch, c.first, d[c.first-1], d[c.first])
		}
		if row := d[3*48*c.width:]; row[c.second-1] != -1 || c.second < c.width && row[c.second] != 0 {
			t.Errorf("stretch %v: second crop's row does not end at %d", c.stretch, c.second)
		}
	}
}

// PredictLine reads a whole image at LineStretch when it is set.
func TestPredictLineStretch(t *testing.T) {
	for _, c := range []struct {
		stretch float64
		width   int
	}{{0, 480}, {1.5, 720}} {
		m := &fakeRec{}
		s := &System{Rec: m, Chars: []string{"blank", "a", "b", "c", "d"}, LineStretch: c.stretch}
		if _, err := s.PredictLine(solid(10, 100, 0)); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(m.widths, [][]int{{1, c.width}}) {
			t.Errorf("line stretch %v: batches %v, want [[1 %d]]", c.stretch, m.widths, c.width)
		}
	}
}

func solid(h, w int, v uint8) imgproc.Mat8 {
	m := imgproc.NewMat8(h, w, 3)
	for i := range m.Pix {
		m.Pix[i] = v
	}
	return m
}

// fakeRec answers each recognition batch with one "character" per crop: the class
// equal to the crop's input width in the batch's padded tensor, at step 0.
type fakeRec struct{ widths [][]int }

func (f *fakeRec) Run(in map[string]*tensor.Tensor) (map[string]*tensor.Tensor, error) {
	x := in["x"]
	n, _, _, w := x.Dims4()
	f.widths = append(f.widths, []int{n, w})
	y := tensor.New(tensor.Float32, n, 2, 5)
	for i := 0; i < n; i++ {
		y.F32()[i*10+1+i%4] = 1 // step 0: class 1..4
		y.F32()[i*10+5] = 1     // step 1: blank
	}
	return map[string]*tensor.Tensor{"out": y}, nil
}

func TestRecognizeBatchesByAspectRatio(t *testing.T) {
	// ratios 8, 1, 4, 12, 2, 3, 6, 10 -> sorted 1 2 3 4 6 8 | 10 12
	var crops []imgproc.Mat8
	for _, w := range []int{80, 10, 40, 120, 20, 30, 60, 100} {
		crops = append(crops, solid(10, w, 128))
	}
	m := &fakeRec{}
	res, err := Recognize(m, crops, []string{"blank", "a", "b", "c", "d"}, 6)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m.widths, [][]int{{6, 384}, {2, 576}}) {
		t.Errorf("batches %v, want [[6 384] [2 576]]", m.widths)
	}
	// sorted position k got class 1+k%4 within its batch; results map back to crop order
	pos := map[int]int{1: 0, 4: 1, 5: 2, 2: 3, 6: 4, 0: 5, 7: 0, 3: 1}
	for i, r := range res {
		if want := string(rune('a' + pos[i]%4)); r.Text != want || r.Score != 1 {
			t.Errorf("crop %d: %q %v, want %q 1", i, r.Text, r.Score, want)
		}
	}
}

func TestSortedBoxesReadingOrder(t *testing.T) {
	// two lines; on each line boxes whose top-left y differ by < 10 are read left to right
	boxes := []Box{
		quad(300, 105), quad(10, 100), quad(150, 98), // line 1 (y 98..105)
		quad(20, 150), quad(5, 158), // line 2
		quad(400, 40), // a header above
	}
	got := imgproc.SortedBoxes(boxes)
	if want := []int{5, 1, 2, 0, 4, 3}; !reflect.DeepEqual(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}

func quad(x, y float64) Box {
	return Box{{X: x, Y: y}, {X: x + 50, Y: y}, {X: x + 50, Y: y + 20}, {X: x, Y: y + 20}}
}

func TestFilterBoxes(t *testing.T) {
	boxes := []Box{
		{{X: 10, Y: 10}, {X: 60, Y: 10}, {X: 60, Y: 30}, {X: 10, Y: 30}},     // kept
		{{X: 60, Y: 30}, {X: 10, Y: 30}, {X: 10, Y: 10}, {X: 60, Y: 10}},     // reordered clockwise
		{{X: -5, Y: 2}, {X: 120, Y: 2}, {X: 120, Y: 50}, {X: -5, Y: 50}},     // clipped to 99x39
		{{X: 10, Y: 10}, {X: 13.9, Y: 10}, {X: 13.9, Y: 30}, {X: 10, Y: 30}}, // 3 px wide: dropped
	}
	got := FilterBoxes(boxes, 100, 40)
	if len(got) != 3 {
		t.Fatalf("%d boxes, want 3: %v", len(got), got)
	}
	if got[1] != boxes[0] {
		t.Errorf("not reordered: %v", got[1])
	}
	want := Box{{X: 0, Y: 2}, {X: 99, Y: 2}, {X: 99, Y: 39}, {X: 0, Y: 39}}
	if got[2] != want {
		t.Errorf("clipped %v, want %v", got[2], want)
	}
}

func TestCropTallBoxIsTurned(t *testing.T) {
	// a 20x60 vertical strip: white left half, black right half; the crop is 60x20 after
	// the 90° counter-clockwise turn, so the black half ends up on top
	img := imgproc.NewMat8(100, 100, 3)
	for y := 20; y < 80; y++ {
		for x := 40; x < 50; x++ {
			for c := 0; c < 3; c++ {
				img.Pix[(y*100+x)*3+c] = 255
			}
		}
	}
	b := Box{{X: 40, Y: 20}, {X: 60, Y: 20}, {X: 60, Y: 80}, {X: 40, Y: 80}}
	crop, ok := imgproc.GetRotateCropImage(img, b)
	if !ok || crop.W != 60 || crop.H != 20 {
		t.Fatalf("crop %dx%d ok=%v", crop.W, crop.H, ok)
	}
	if top, bottom := crop.At(30, 2, 0), crop.At(30, 17, 0); top != 0 || bottom != 255 {
		t.Errorf("top %d bottom %d, want 0 and 255", top, bottom)
	}
}

func TestDBPostprocessSquare(t *testing.T) {
	// a 40x16 block of 0.9 in a 96x64 map: one box, grown by the unclip distance
	// (area*1.5/perimeter = 40*16*1.5/112 ≈ 8.57 around the 39x15 mini box), mapped to a
	// 192x128 image (factor 2)
	pred := imgproc.MatF{H: 64, W: 96, Pix: make([]float32, 96*64)}
	for y := 20; y < 36; y++ {
		for x := 30; x < 70; x++ {
			pred.Pix[y*96+x] = 0.9
		}
	}
	boxes, scores := DBPostprocess(pred, 192, 128, ProfileV2())
	if len(boxes) != 1 {
		t.Fatalf("%d boxes", len(boxes))
	}
	if math.Abs(scores[0]-0.9) > 1e-6 {
		t.Errorf("score %v", scores[0])
	}
	b := boxes[0]
	if b[0].X >= 60 || b[0].X < 40 || b[2].X <= 138 || b[2].X > 160 || b[0].Y >= 40 || b[2].Y <= 70 {
		t.Errorf("box %v not the grown block", b)
	}
	// below box_thresh: nothing
	for i := range pred.Pix {
		if pred.Pix[i] > 0 {
			pred.Pix[i] = 0.5
		}
	}
	if boxes, _ := DBPostprocess(pred, 192, 128, ProfileV2()); len(boxes) != 0 {
		t.Errorf("low-score block kept: %v", boxes)
	}
}

// scribbled wraps a model whose outputs Recycle overwrites with NaN, as a
// runtime.Predictor's next call may, and counts the calls.
type scribbled struct {
	Model
	recycled int
}

func (s *scribbled) Recycle(out map[string]*tensor.Tensor) {
	for _, t := range out {
		for i := range t.F32() {
			t.F32()[i] = float32(math.NaN())
		}
	}
	s.recycled++
}

// Detection and recognition give each output back (Recycler) only once
// they are done with it: the results equal a non-recycling model's.
func TestOutputsRecycledAfterUse(t *testing.T) {
	var crops []imgproc.Mat8
	for _, w := range []int{80, 10, 40, 120, 20, 30, 60, 100} {
		crops = append(crops, solid(10, w, 128))
	}
	chars := []string{"blank", "a", "b", "c", "d"}
	want, err := Recognize(&fakeRec{}, crops, chars, 6)
	if err != nil {
		t.Fatal(err)
	}
	rec := &scribbled{Model: &fakeRec{}}
	got, err := Recognize(rec, crops, chars, 6)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) || rec.recycled != 2 {
		t.Errorf("recognition with recycling: %v, %d batches given back; want %v, 2", got, rec.recycled, want)
	}
	img := solid(200, 300, 200)
	wantBoxes, err := Detect(blockDet{}, img, ProfileV3())
	if err != nil {
		t.Fatal(err)
	}
	det := &scribbled{Model: blockDet{}}
	gotBoxes, err := Detect(det, img, ProfileV3())
	if err != nil {
		t.Fatal(err)
	}
	if len(wantBoxes) == 0 || !reflect.DeepEqual(gotBoxes, wantBoxes) || det.recycled != 1 {
		t.Errorf("detection with recycling: %v, %d given back; want %v, 1", gotBoxes, det.recycled, wantBoxes)
	}
}
