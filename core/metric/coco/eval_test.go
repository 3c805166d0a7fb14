package coco

import (
	"math"
	"paddle/core/metric"
	"strings"
	"testing"
)

// set builds a one-category ground truth over images 1..nImg.
type set struct {
	gt  Dataset
	dts []Detection
}

func newSet(nImg int, cats ...int64) *set {
	s := &set{}
	for i := 1; i <= nImg; i++ {
		s.gt.Images = append(s.gt.Images, Image{ID: int64(i), Width: 1000, Height: 1000})
	}
	for _, c := range cats {
		s.gt.Categories = append(s.gt.Categories, Category{ID: c, Name: "c"})
	}
	return s
}

func (s *set) addGT(img, cat int64, box [4]float64, crowd bool) {
	s.gt.Annotations = append(s.gt.Annotations, Annotation{ID: int64(len(s.gt.Annotations) + 1), ImageID: img,
		CategoryID: cat, BBox: box, Area: box[2] * box[3], IsCrowd: crowd})
}

func (s *set) addDT(img, cat int64, box [4]float64, score float64) {
	s.dts = append(s.dts, Detection{ImageID: img, CategoryID: cat, BBox: box, Score: score})
}

func (s *set) eval(t *testing.T) *Result {
	t.Helper()
	r, err := Evaluate(&s.gt, s.dts, DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func checkStats(t *testing.T, got, want []float64) {
	t.Helper()
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Errorf("stats[%d] (%s) = %.17g, want %.17g", i, StatNames[i], got[i], want[i])
		}
	}
}

func TestLinspaceLikeNumpy(t *testing.T) {
	iou := Linspace(0.5, 0.95, 10)
	rec := Linspace(0, 1, 101)
	// values printed by numpy 1.24's np.linspace
	if iou[7] != 0.85 || iou[8] != 0.8999999999999999 || iou[9] != 0.95 {
		t.Errorf("iouThrs = %v", iou)
	}
	if rec[35] != 0.35000000000000003 || rec[70] != 0.7000000000000001 || rec[50] != 0.5 || rec[100] != 1 {
		t.Errorf("recThrs[35,50,70,100] = %v %v %v %v", rec[35], rec[50], rec[70], rec[100])
	}
}

// TestWorkedExample: two large GTs, three detections.
//
//	D1 .9 = A exactly (IoU 1); D2 .8 covers half of B (IoU 0.5, area 5000: medium);
//	D3 .7 hits nothing (area 100: small).
//
// IoU .50: TP TP FP -> precision 1 at every recall threshold up to 1: AP 1, recall 1.
// IoU .55 to .95: TP FP FP -> recall .5, precision 1 for the 51 thresholds 0..0.5, 0 above:
// AP 51/101, recall .5. AP = (1 + 9*51/101)/10 = 560/1010; AR@100 = (1 + 9*.5)/10 = .55;
// AR@1 keeps D1 only: .5. Small and medium have no GT: -1. Large: D3 (and D2 where unmatched)
// lie outside the range and are ignored, D2 matched at .5 counts: same numbers as "all".
func TestWorkedExample(t *testing.T) {
	s := newSet(1, 1)
	s.addGT(1, 1, [4]float64{0, 0, 100, 100}, false)
	s.addGT(1, 1, [4]float64{200, 0, 100, 100}, false)
	s.addDT(1, 1, [4]float64{0, 0, 100, 100}, 0.9)
	s.addDT(1, 1, [4]float64{200, 0, 100, 50}, 0.8)
	s.addDT(1, 1, [4]float64{400, 400, 10, 10}, 0.7)
	r := s.eval(t)
	ap := 560.0 / 1010
	checkStats(t, r.Stats, []float64{ap, 1, 51.0 / 101, -1, -1, ap, 0.5, 0.55, 0.55, -1, -1, 0.55})
	if got := r.CategoryAP(0); math.Abs(got-ap) > 1e-12 {
		t.Errorf("CategoryAP = %v, want %v", got, ap)
	}
	want := " Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = 0.554"
	if l := r.SummaryLines()[0]; l != want {
		t.Errorf("summary line 0:\n got %q\nwant %q", l, want)
	}
	if l := r.SummaryLines()[3]; !strings.HasSuffix(l, "area= small | maxDets=100 ] = -1.000") {
		t.Errorf("summary line 3 = %q", l)
	}
}

// TestCrowdAbsorbs: three detections inside a crowd region are ignored (neither TP nor FP);
// the real GT is found: AP 1 and AR 1 at every threshold. If the crowd could be matched only
// once, two of them would be FPs ranked above the TP.
func TestCrowdAbsorbs(t *testing.T) {
	s := newSet(1, 1)
	s.addGT(1, 1, [4]float64{0, 0, 100, 100}, true)
	s.addGT(1, 1, [4]float64{200, 200, 50, 50}, false)
	s.addDT(1, 1, [4]float64{10, 10, 20, 20}, 0.9)
	s.addDT(1, 1, [4]float64{50, 10, 20, 20}, 0.8)
	s.addDT(1, 1, [4]float64{10, 50, 20, 20}, 0.7)
	s.addDT(1, 1, [4]float64{200, 200, 50, 50}, 0.6)
	r := s.eval(t)
	// the GT (area 2500) is medium; the crowd detections (area 400, small) are ignored
	// there as unmatched out-of-range, and absorbed elsewhere. Large has no GT. AR@1 keeps
	// only the top detection, absorbed by the crowd: 0.
	checkStats(t, r.Stats, []float64{1, 1, 1, -1, 1, -1, 0, 1, 1, -1, 1, -1})
}

// TestRecallThresholdTrap: 20 GTs, detections TP x7, FP, TP (all exact boxes, so every IoU
// threshold agrees). Recall after 7 TPs is 7/20 = 0.35 < recThrs[35] = 0.35000000000000003,
// so that threshold takes the next TP's interpolated precision 8/9 (not 1). Thresholds 0..0.34
// (35 of them) give 1, 0.35..0.40 (6) give 8/9, the rest 0: AP = (35 + 6*8/9)/101 = 363/909.
func TestRecallThresholdTrap(t *testing.T) {
	s := newSet(1, 1)
	for j := range 20 {
		s.addGT(1, 1, [4]float64{float64(20 * j), 0, 10, 10}, false)
	}
	for j := range 7 {
		s.addDT(1, 1, [4]float64{float64(20 * j), 0, 10, 10}, 0.9-0.01*float64(j))
	}
	s.addDT(1, 1, [4]float64{500, 500, 10, 10}, 0.5)
	s.addDT(1, 1, [4]float64{140, 0, 10, 10}, 0.4)
	r := s.eval(t)
	ap := 363.0 / 909
	// all boxes are small (area 100); AR@1 = 1/20, AR@10 = AR@100 = 8/20
	checkStats(t, r.Stats, []float64{ap, ap, ap, ap, -1, -1, 0.05, 0.4, 0.4, 0.4, -1, -1})
}

// TestMaxDetsPerImageAndCategory: 150 FPs ranked above each category's TP push it past
// maxDets=100 (AP 0, recall 0), while 63 detections in each of 4 categories on one image
// (252 in all) keep every TP (recall 1).
func TestMaxDetsPerImageAndCategory(t *testing.T) {
	s := newSet(1, 1, 2)
	for c := int64(1); c <= 2; c++ {
		s.addGT(1, c, [4]float64{0, 0, 200, 200}, false)
		for j := range 150 {
			s.addDT(1, c, [4]float64{300 + float64(j), 300, 5, 5}, 0.9)
		}
		s.addDT(1, c, [4]float64{0, 0, 200, 200}, 0.1)
	}
	r := s.eval(t)
	if r.Stats[0] != 0 || r.Stats[8] != 0 {
		t.Errorf("150 higher FPs: AP = %v, AR@100 = %v, want 0 and 0", r.Stats[0], r.Stats[8])
	}

	s = newSet(1, 1, 2, 3, 4)
	for c := int64(1); c <= 4; c++ {
		s.addGT(1, c, [4]float64{0, 0, 200, 200}, false)
		for j := range 62 {
			s.addDT(1, c, [4]float64{300 + float64(j), 300, 5, 5}, 0.9)
		}
		s.addDT(1, c, [4]float64{0, 0, 200, 200}, 0.1)
	}
	r = s.eval(t)
	if r.Stats[8] != 1 {
		t.Errorf("252 detections over 4 categories: AR@100 = %v, want 1", r.Stats[8])
	}
}

// TestGTIDZero: pycocotools stores the matched GT's id in dtMatches and reads 0 as
// "unmatched", so a detection matched to a GT with id 0 is a false positive there too.
func TestGTIDZero(t *testing.T) {
	s := newSet(1, 1)
	s.addGT(1, 1, [4]float64{0, 0, 100, 100}, false)
	s.gt.Annotations[0].ID = 0
	s.addDT(1, 1, [4]float64{0, 0, 100, 100}, 0.9)
	r := s.eval(t)
	if r.Stats[0] != 0 || r.Stats[8] != 0 {
		t.Errorf("GT id 0: AP = %v, AR = %v, want 0 and 0 (as pycocotools)", r.Stats[0], r.Stats[8])
	}
}

// TestNoDetections: pycocotools crashes on an empty results list; here every category with
// GT scores 0, and the categories without GT stay out of the mean.
func TestNoDetections(t *testing.T) {
	s := newSet(2, 1, 2)
	s.addGT(1, 1, [4]float64{0, 0, 100, 100}, false)
	r := s.eval(t)
	checkStats(t, r.Stats, []float64{0, 0, 0, -1, -1, 0, 0, 0, 0, -1, -1, 0})
	if r.CategoryAP(1) != -1 {
		t.Errorf("category without GT: AP = %v, want -1", r.CategoryAP(1))
	}
}

func TestEvaluateErrors(t *testing.T) {
	s := newSet(1, 1)
	s.addDT(9, 1, [4]float64{0, 0, 1, 1}, 0.5)
	if _, err := Evaluate(&s.gt, s.dts, DefaultParams()); err == nil || !strings.Contains(err.Error(), "image_id 9") {
		t.Errorf("detection on an unknown image: err = %v", err)
	}
	p := DefaultParams()
	p.MaxDets = []int{100}
	if _, err := Evaluate(&s.gt, nil, p); err == nil {
		t.Error("one maxDets value: want an error")
	}
}

func TestPairwiseSum(t *testing.T) {
	// numpy 1.24: np.add.reduce(np.full(1000, 0.1)) = 100.00000000000001 (pairwise);
	// a sequential loop gives 99.9999999999986.
	a := make([]float64, 1000)
	for i := range a {
		a[i] = 0.1
	}
	if got := metric.PairwiseSum(a); got != 100.00000000000001 {
		t.Errorf("metric.PairwiseSum(1000 x 0.1) = %.17g, want 100.00000000000001", got)
	}
}
