package coco

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// The fixtures and *_ref.json come from scripts/ref/coco_eval_ref.py: the
// real pycocotools COCOeval("bbox") run on them here.
type cocoRef struct {
	Stats         []float64 `json:"stats"`
	Summary       []string  `json:"summary"`
	CatIDs        []int64   `json:"cat_ids"`
	PerCategoryAP []float64 `json:"per_category_ap"`
	Recall        []float64 `json:"recall"`
	PrecisionRSum []float64 `json:"precision_rsum"` // math.fsum over R per (t, k, a, m)
}

func loadRef(t *testing.T, name string) (*Dataset, []Detection, cocoRef) {
	t.Helper()
	gt, err := ReadDataset(filepath.Join("testdata", name+"_gt.json"))
	if err != nil {
		t.Fatal(err)
	}
	dt, err := ReadResults(filepath.Join("testdata", name+"_dt.json"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join("testdata", name+"_ref.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref cocoRef
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	return gt, dt, ref
}

// fsum is an exactly rounded sum (Shewchuk), like Python's math.fsum.
func fsum(xs []float64) float64 {
	var partials []float64
	for _, x := range xs {
		i := 0
		for _, y := range partials {
			if math.Abs(x) < math.Abs(y) {
				x, y = y, x
			}
			hi := x + y
			lo := y - (hi - x)
			if lo != 0 {
				partials[i] = lo
				i++
			}
			x = hi
		}
		partials = append(partials[:i], x)
	}
	s := 0.0
	for _, p := range partials {
		s += p
	}
	return s
}

func TestAgainstPycocotools(t *testing.T) {
	for _, name := range []string{"edge", "random_small", "random_many", "random_wide"} {
		t.Run(name, func(t *testing.T) {
			gt, dt, ref := loadRef(t, name)
			r, err := Evaluate(gt, dt, DefaultParams())
			if err != nil {
				t.Fatal(err)
			}
			exact := 0
			for i, want := range ref.Stats {
				if got := r.Stats[i]; math.Abs(got-want) > 1e-12 {
					t.Errorf("stats[%d] (%s) = %.17g, want %.17g", i, StatNames[i], got, want)
				} else if got == want {
					exact++
				}
			}
			if exact != len(ref.Stats) {
				t.Logf("%d of %d stats bit-identical", exact, len(ref.Stats))
			}
			for i, line := range r.SummaryLines() {
				if line != ref.Summary[i] {
					t.Errorf("summary line %d:\n got %q\nwant %q", i, line, ref.Summary[i])
				}
			}
			for k, want := range ref.PerCategoryAP {
				if r.CatIDs[k] != ref.CatIDs[k] {
					t.Fatalf("CatIDs = %v, want %v", r.CatIDs, ref.CatIDs)
				}
				if got := r.CategoryAP(k); math.Abs(got-want) > 1e-12 {
					t.Errorf("category %d AP = %.17g, want %.17g", ref.CatIDs[k], got, want)
				}
			}
			if len(r.Recall) != len(ref.Recall) {
				t.Fatalf("len(Recall) = %d, want %d", len(r.Recall), len(ref.Recall))
			}
			for i, want := range ref.Recall {
				if r.Recall[i] != want {
					t.Errorf("recall[%d] = %.17g, want %.17g", i, r.Recall[i], want)
				}
			}
			p := r.Params
			nT, nR, nK, nA, nM := len(p.IoUThrs), len(p.RecThrs), len(r.CatIDs), len(p.AreaRanges), len(p.MaxDets)
			i := 0
			for tt := range nT {
				for k := range nK {
					for a := range nA {
						for m := range nM {
							col := make([]float64, nR)
							for ri := range nR {
								col[ri] = r.Precision[(((tt*nR+ri)*nK+k)*nA+a)*nM+m]
							}
							if got, want := fsum(col), ref.PrecisionRSum[i]; got != want {
								t.Errorf("sum of precision[t=%d, :, k=%d, a=%d, m=%d] = %.17g, want %.17g", tt, k, a, m, got, want)
							}
							i++
						}
					}
				}
			}
		})
	}
}
