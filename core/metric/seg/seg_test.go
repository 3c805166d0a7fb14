package seg

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"paddle/core/metric"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-15 }

func nearAll(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !near(a[i], b[i]) {
			return false
		}
	}
	return true
}

// Worked by hand: 3 classes, one ignored pixel, class 2 never predicted.
//
//	label 0 0 1 1 255 2
//	pred  0 1 1 1  2  0
//
// scored pixels (label, pred): (0,0) (0,1) (1,1) (1,1) (2,0)
// intersect [1 2 0], pred_area [2 3 0], label_area [2 2 1]
func TestWorkedExample(t *testing.T) {
	c, err := NewConfusion(3, 255)
	if err != nil {
		t.Fatal(err)
	}
	if err := Add(c, []uint8{0, 1, 1, 1, 2, 0}, []uint8{0, 0, 1, 1, 255, 2}); err != nil {
		t.Fatal(err)
	}
	r := c.Result()
	if !slices.Equal(r.Intersect, []int64{1, 2, 0}) || !slices.Equal(r.PredArea, []int64{2, 3, 0}) ||
		!slices.Equal(r.LabelArea, []int64{2, 2, 1}) {
		t.Fatalf("areas %v %v %v", r.Intersect, r.PredArea, r.LabelArea)
	}
	checks := []struct {
		name      string
		got, want []float64
	}{
		// IoU = I / (P + L - I): 1/3, 2/3, 0/1
		{"class_iou", r.ClassIoU, []float64{1.0 / 3, 2.0 / 3, 0}},
		{"miou", []float64{r.MIoU}, []float64{1.0 / 3}},
		// acc = 3 correct of 5 scored pixels
		{"acc", []float64{r.Acc}, []float64{0.6}},
		{"class_precision", r.ClassPrecision, []float64{0.5, 2.0 / 3, 0}},
		{"class_recall", r.ClassRecall, []float64{0.5, 1, 0}},
		// dice = 2I / (P + L): 2/4, 4/5, 0/1
		{"class_dice", r.ClassDice, []float64{0.5, 0.8, 0}},
		{"mdice", []float64{r.MDice}, []float64{1.3 / 3}},
		// po = 3/5, pe = (2·2 + 3·2 + 0·1)/25 = 0.4, kappa = 0.2/0.6
		{"kappa", []float64{r.Kappa}, []float64{1.0 / 3}},
	}
	for _, ch := range checks {
		if !nearAll(ch.got, ch.want) {
			t.Errorf("%s = %v, want %v", ch.name, ch.got, ch.want)
		}
	}
	rep := r.Report(c.Images)
	if rep.Main != "miou" || rep.Count != 1 || rep.MainValue() != r.MIoU || rep.Values["kappa"] != r.Kappa {
		t.Errorf("report %+v", rep)
	}
}

// A class absent from both labels and predictions: IoU 1 and Dice 0, both
// counted in their means (PaddleSeg v2.9+).
func TestAbsentClass(t *testing.T) {
	c, _ := NewConfusion(3, 255)
	if err := Add(c, []int32{0, 1, 1, 0}, []int32{0, 1, 1, 0}); err != nil {
		t.Fatal(err)
	}
	r := c.Result()
	if !slices.Equal(r.ClassIoU, []float64{1, 1, 1}) || r.MIoU != 1 {
		t.Errorf("class_iou %v miou %v, want all 1", r.ClassIoU, r.MIoU)
	}
	if !slices.Equal(r.ClassDice, []float64{1, 1, 0}) || !near(r.MDice, 2.0/3) {
		t.Errorf("class_dice %v mdice %v, want [1 1 0] and 2/3", r.ClassDice, r.MDice)
	}
	// po = 1, pe = (2·2 + 2·2)/16 = 0.5
	if r.Kappa != 1 || r.Acc != 1 {
		t.Errorf("kappa %v acc %v, want 1 and 1", r.Kappa, r.Acc)
	}
}

// Kappa has no epsilon: one class predicted right everywhere gives 0/0.
func TestKappaNaNAndEmpty(t *testing.T) {
	c, _ := NewConfusion(2, 255)
	_ = Add(c, []uint8{0, 0}, []uint8{0, 0})
	if k := c.Result().Kappa; !math.IsNaN(k) {
		t.Errorf("kappa = %v, want NaN (pe = 1)", k)
	}
	e, _ := NewConfusion(2, 255)
	_ = Add(e, []uint8{1, 0}, []uint8{255, 255})
	r := e.Result()
	if !math.IsNaN(r.Acc) || !math.IsNaN(r.Kappa) || r.MIoU != 1 || r.MDice != 0 {
		t.Errorf("no scored pixel: acc %v kappa %v miou %v mdice %v; want NaN NaN 1 0", r.Acc, r.Kappa, r.MIoU, r.MDice)
	}
}

// With the ignore index inside [0, C), PaddleSeg masks predictions but still
// counts label == ignore in label_area (label_i = label == i is not masked).
//
//	label 0 1 1, pred 1 1 0, ignore 0: scored (1,1) (1,0)
//	intersect [0 1], pred_area [1 1], label_area [1 2]
func TestIgnoreInsideClasses(t *testing.T) {
	c, _ := NewConfusion(2, 0)
	if err := Add(c, []uint8{1, 1, 0}, []uint8{0, 1, 1}); err != nil {
		t.Fatal(err)
	}
	i, p, l := c.Areas()
	if !slices.Equal(i, []int64{0, 1}) || !slices.Equal(p, []int64{1, 1}) || !slices.Equal(l, []int64{1, 2}) {
		t.Errorf("areas %v %v %v, want [0 1] [1 1] [1 2]", i, p, l)
	}
}

func TestAddErrors(t *testing.T) {
	c, _ := NewConfusion(3, 255)
	// a prediction out of range on an ignored pixel is fine: it never counts
	if err := Add(c, []uint8{9, 0}, []uint8{255, 0}); err != nil {
		t.Errorf("out-of-range prediction on an ignored pixel: %v", err)
	}
	before := slices.Clone(c.M)
	err := Add(c, []uint8{0, 0, 0, 0}, []uint8{0, 7, 1, 9})
	var ve *ValueError
	if !errors.As(err, &ve) || ve.What != "label" || ve.Value != 7 || ve.Index != 1 || ve.Count != 2 {
		t.Fatalf("err = %#v", err)
	}
	if want := "label value 7 at pixel 1 (and 1 more pixels) is outside [0, 3) and is not the ignore index 255"; err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
	err = Add(c, []int32{0, 3}, []int32{0, 1})
	if !errors.As(err, &ve) || ve.What != "prediction" || ve.Value != 3 || !strings.Contains(err.Error(), "prediction value 3 at pixel 1 is outside [0, 3)") {
		t.Errorf("err = %v", err)
	}
	if err := Add(c, []uint8{0}, []uint8{0, 1}); err == nil || !strings.Contains(err.Error(), "prediction has 1 pixels, label has 2") {
		t.Errorf("length mismatch: %v", err)
	}
	if !slices.Equal(before, c.M) || c.Images != 1 {
		t.Errorf("a failed Add changed the matrix")
	}
	if _, err := NewConfusion(0, 255); err == nil {
		t.Error("NewConfusion(0) did not fail")
	}
	o, _ := NewConfusion(4, 255)
	if err := c.Merge(o); err == nil {
		t.Error("merging a 4-class matrix into a 3-class one did not fail")
	}
}

func TestPairwiseSum(t *testing.T) {
	// numpy 1.24: np.add.reduce(np.full(1000, 0.1)) = 100.00000000000001 (pairwise);
	// a sequential sum gives 99.9999999999986
	a := make([]float64, 1000)
	for i := range a {
		a[i] = 0.1
	}
	if got := metric.PairwiseSum(a); got != 100.00000000000001 {
		t.Errorf("metric.PairwiseSum(1000 x 0.1) = %.17g, want 100.00000000000001", got)
	}
}

type refCase struct {
	Name        string `json:"name"`
	NumClasses  int    `json:"num_classes"`
	IgnoreIndex int    `json:"ignore_index"`
	Areas       bool   `json:"areas"`
	Images      []struct {
		H     int     `json:"h"`
		W     int     `json:"w"`
		Pred  []uint8 `json:"pred"`
		Label []uint8 `json:"label"`
	} `json:"images"`
	Want refResult `json:"want"`
}

type refResult struct {
	Intersect      []int64   `json:"intersect"`
	PredArea       []int64   `json:"pred_area"`
	LabelArea      []int64   `json:"label_area"`
	MIoU           float64   `json:"miou"`
	ClassIoU       []float64 `json:"class_iou"`
	Acc            float64   `json:"acc"`
	ClassPrecision []float64 `json:"class_precision"`
	ClassRecall    []float64 `json:"class_recall"`
	Kappa          float64   `json:"kappa"`
	MDice          float64   `json:"mdice"`
	ClassDice      []float64 `json:"class_dice"`
}

// TestMatchesPaddleSeg compares, bit for bit, with PaddleSeg's real
// metrics.py run by scripts/ref/seg_metrics_ref.py: random maps with ignored
// pixels, classes only in predictions, classes nowhere, 19 classes (numpy's
// 8-way pairwise mean), ignore index 0, and raw areas of 150 classes whose
// Kappa products pass 2^53.
func TestMatchesPaddleSeg(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "seg_ref.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Cases []refCase `json:"cases"`
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Cases) < 6 {
		t.Fatalf("only %d cases", len(ref.Cases))
	}
	for _, tc := range ref.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			w := tc.Want
			var r Result
			if tc.Areas {
				r = FromAreas(w.Intersect, w.PredArea, w.LabelArea)
			} else {
				c, err := NewConfusion(tc.NumClasses, tc.IgnoreIndex)
				if err != nil {
					t.Fatal(err)
				}
				for k, im := range tc.Images {
					if len(im.Pred) != im.H*im.W {
						t.Fatalf("image %d: %d pixels for %dx%d", k, len(im.Pred), im.H, im.W)
					}
					if err := Add(c, im.Pred, im.Label); err != nil {
						t.Fatalf("image %d: %v", k, err)
					}
				}
				r = c.Result()
				if !slices.Equal(r.Intersect, w.Intersect) || !slices.Equal(r.PredArea, w.PredArea) ||
					!slices.Equal(r.LabelArea, w.LabelArea) {
					t.Fatalf("areas\n got %v %v %v\nwant %v %v %v", r.Intersect, r.PredArea, r.LabelArea,
						w.Intersect, w.PredArea, w.LabelArea)
				}
			}
			for _, s := range []struct {
				name      string
				got, want float64
			}{{"miou", r.MIoU, w.MIoU}, {"acc", r.Acc, w.Acc}, {"kappa", r.Kappa, w.Kappa}, {"mdice", r.MDice, w.MDice}} {
				if s.got != s.want {
					t.Errorf("%s = %.17g, want %.17g", s.name, s.got, s.want)
				}
			}
			for _, v := range []struct {
				name      string
				got, want []float64
			}{{"class_iou", r.ClassIoU, w.ClassIoU}, {"class_precision", r.ClassPrecision, w.ClassPrecision},
				{"class_recall", r.ClassRecall, w.ClassRecall}, {"class_dice", r.ClassDice, w.ClassDice}} {
				if !slices.Equal(v.got, v.want) {
					t.Errorf("%s\n got %v\nwant %v", v.name, v.got, v.want)
				}
			}
		})
	}
}

// Accumulating areas is not averaging per image: merging two halves gives
// exactly the single pass.
func TestMerge(t *testing.T) {
	pred := []uint8{0, 1, 2, 2, 1, 0, 0, 255}
	label := []uint8{0, 1, 1, 2, 255, 0, 2, 255}
	all, _ := NewConfusion(3, 255)
	_ = Add(all, pred, label)
	a, _ := NewConfusion(3, 255)
	b, _ := NewConfusion(3, 255)
	_ = Add(a, pred[:3], label[:3])
	_ = Add(b, pred[3:], label[3:])
	if err := a.Merge(b); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.M, all.M) || a.Ignored != all.Ignored || a.Images != 2 {
		t.Errorf("merged %v/%d, single pass %v/%d", a.M, a.Ignored, all.M, all.Ignored)
	}
}
