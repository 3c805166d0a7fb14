package dettrain

import (
	"encoding/json"
	"math"
	"os"
	"slices"
	"testing"

	"paddle/core/ag"
	"paddle/core/imgproc"
	"paddle/core/tensor"
)

// refData is testdata/det_ref.json, written by scripts/ref/ocr_det_ref.py
// (pyclipper, shapely and cv2 from Debian).
type refData struct {
	Shrink []struct {
		Poly     [][2]float64 `json:"poly"`
		Distance float64      `json:"distance"`
		Shrunk   [][][2]int   `json:"shrunk"`
		Padded   [][][2]int   `json:"padded"`
	} `json:"shrink"`
	Maps []struct {
		H, W        int
		Polys       [][][2]float64 `json:"polys"`
		Ignore      []bool         `json:"ignore"`
		ThreshMap   []float64      `json:"thresh_map"`
		ThreshMask  []int          `json:"thresh_mask"`
		ShrinkMap   []int          `json:"shrink_map"`
		ShrinkMask  []int          `json:"shrink_mask"`
		IgnoreAfter []bool         `json:"ignore_after"`
	} `json:"maps"`
	Metric []struct {
		GT      [][][2]float64 `json:"gt"`
		Ignore  []bool         `json:"ignore"`
		Det     [][][2]float64 `json:"det"`
		GTCare  int            `json:"gt_care"`
		DetCare int            `json:"det_care"`
		Matched int            `json:"matched"`
		IoU     [][]float64    `json:"iou"`
	} `json:"metric"`
}

func loadRef(t *testing.T) refData {
	t.Helper()
	b, err := os.ReadFile("testdata/det_ref.json")
	if err != nil {
		t.Fatal(err)
	}
	var r refData
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

func pts(p [][2]float64) []imgproc.Point {
	out := make([]imgproc.Point, len(p))
	for i, q := range p {
		out[i] = imgproc.Point{X: q[0], Y: q[1]}
	}
	return out
}

// sameRing reports whether two integer rings have the same vertices in the same cyclic order (either direction).
func sameRing(a []imgproc.IPoint, b [][2]int) bool {
	if len(a) != len(b) {
		return false
	}
	n := len(a)
	for dir := -1; dir <= 1; dir += 2 {
		for s := range n {
			ok := true
			for i := range n {
				q := a[((s+dir*i)%n+n)%n]
				if q.X != b[i][0] || q.Y != b[i][1] {
					ok = false
					break
				}
			}
			if ok {
				return true
			}
		}
	}
	return false
}

func TestShrinkAndPadMatchPyclipper(t *testing.T) {
	r := loadRef(t)
	for i, c := range r.Shrink {
		p := pts(c.Poly)
		if d := imgproc.PolygonArea(p) * (1 - 0.16) / imgproc.PolygonLength(p); math.Abs(d-c.Distance) > 1e-9 {
			t.Errorf("case %d: distance %v, want %v", i, d, c.Distance)
		}
		got := imgproc.Shrink(p, 0.4)
		if len(got) != len(c.Shrunk) || len(got) == 1 && !sameRing(got[0], c.Shrunk[0]) {
			t.Errorf("case %d %v: Shrink = %v, want %v", i, c.Poly, got, c.Shrunk)
		}
		pad := imgproc.Pad(p, 0.4)
		if len(pad) != 1 || len(c.Padded) != 1 || !sameRing(pad[0], c.Padded[0]) {
			t.Errorf("case %d %v: Pad = %v, want %v", i, c.Poly, pad, c.Padded)
		}
	}
}

func TestLabelMapsMatchReference(t *testing.T) {
	r := loadRef(t)
	for k, c := range r.Maps {
		polys := make([][]imgproc.Point, len(c.Polys))
		for i, p := range c.Polys {
			polys[i] = pts(p)
		}
		ignore := slices.Clone(c.Ignore)
		tm, tk := MakeBorderMap(polys, ignore, c.H, c.W, BorderMapOpts{ShrinkRatio: 0.4, ThreshMin: 0.3, ThreshMax: 0.7})
		sm, sk := MakeShrinkMap(polys, ignore, c.H, c.W, ShrinkMapOpts{ShrinkRatio: 0.4, MinTextSize: 8})
		bad := 0
		for i := range tm {
			if math.Abs(float64(tm[i])-c.ThreshMap[i]) > 1e-5 || int(tk[i]) != c.ThreshMask[i] ||
				int(sm[i]) != c.ShrinkMap[i] || int(sk[i]) != c.ShrinkMask[i] {
				if bad < 5 {
					t.Errorf("page %d pixel (%d, %d): thresh %v/%v mask %v/%v shrink %v/%v mask %v/%v", k, i%c.W, i/c.W,
						tm[i], c.ThreshMap[i], tk[i], c.ThreshMask[i], sm[i], c.ShrinkMap[i], sk[i], c.ShrinkMask[i])
				}
				bad++
			}
		}
		if bad > 0 {
			t.Errorf("page %d: %d of %d pixels differ", k, bad, len(tm))
		}
		if !slices.Equal(ignore, c.IgnoreAfter) {
			t.Errorf("page %d: ignore after = %v, want %v", k, ignore, c.IgnoreAfter)
		}
	}
}

func TestDetMetricMatchesShapelyEvaluation(t *testing.T) {
	r := loadRef(t)
	var m DetMetric
	var gc, dc, mt int
	for k, c := range r.Metric {
		gt := make([][]imgproc.Point, len(c.GT))
		for i, p := range c.GT {
			gt[i] = pts(p)
		}
		det := make([][]imgproc.Point, len(c.Det))
		for i, p := range c.Det {
			det[i] = pts(p)
		}
		g, d, n := EvaluateImage(gt, c.Ignore, det)
		if g != c.GTCare || d != c.DetCare || n != c.Matched {
			t.Errorf("image %d: (gtCare, detCare, matched) = (%d, %d, %d), want (%d, %d, %d)", k, g, d, n, c.GTCare, c.DetCare, c.Matched)
		}
		// IoU of every valid pair (the reference lists valid GTs × valid detections)
		var vg, vd [][]imgproc.Point
		for _, p := range gt {
			if ValidPolygon(p) {
				vg = append(vg, p)
			}
		}
		for _, p := range det {
			if ValidPolygon(p) {
				vd = append(vd, p)
			}
		}
		for gi := range c.IoU {
			for di, want := range c.IoU[gi] {
				if got := IoU(vd[di], vg[gi]); math.Abs(got-want) > 1e-9 {
					t.Errorf("image %d: IoU(det %d, gt %d) = %v, want %v", k, di, gi, got, want)
				}
			}
		}
		m.Update(gt, c.Ignore, det)
		gc, dc, mt = gc+c.GTCare, dc+c.DetCare, mt+c.Matched
	}
	rep := m.Result()
	p, rc := float64(mt)/float64(dc), float64(mt)/float64(gc)
	if h := 2 * p * rc / (p + rc); math.Abs(rep.Values["hmean"]-h) > 1e-12 || rep.Main != "hmean" {
		t.Errorf("Result = %v, want hmean %v", rep, h)
	}
}

func TestDBLossMatchesNumpy(t *testing.T) {
	b, err := os.ReadFile("testdata/det_ref.json")
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Loss []struct {
			Maps       []float32          `json:"maps"`
			ShrinkMap  []float32          `json:"shrink_map"`
			ShrinkMask []float32          `json:"shrink_mask"`
			ThreshMap  []float32          `json:"thresh_map"`
			ThreshMask []float32          `json:"thresh_mask"`
			BCE        map[string]float64 `json:"bce"`
			Dice       map[string]float64 `json:"dice"`
		} `json:"loss"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	for k, c := range r.Loss {
		y := Labels{
			ShrinkMap: tensor.FromSlice(c.ShrinkMap, 2, 8, 8), ShrinkMask: tensor.FromSlice(c.ShrinkMask, 2, 8, 8),
			ThreshMap: tensor.FromSlice(c.ThreshMap, 2, 8, 8), ThreshMask: tensor.FromSlice(c.ThreshMask, 2, 8, 8),
		}
		for _, tt := range []struct {
			typ  string
			want map[string]float64
		}{{"BCELoss", c.BCE}, {"DiceLoss", c.Dice}} {
			l := newDBLoss(DBLossOpts{MainLossType: tt.typ})
			maps := ag.Param(tensor.FromSlice(slices.Clone(c.Maps), 2, 3, 8, 8))
			total, parts := l.Loss(maps, y)
			sum := 0.0
			for name, want := range tt.want {
				if got := parts[name]; math.Abs(got-want) > 1e-5*max(1, math.Abs(want)) {
					t.Errorf("case %d %s: %s = %v, want %v", k, tt.typ, name, got, want)
				}
				sum += want
			}
			if got := total.Item(); math.Abs(got-sum) > 1e-4 {
				t.Errorf("case %d %s: total %v, want %v", k, tt.typ, got, sum)
			}
			total.Backward()
			if maps.Grad == nil {
				t.Fatalf("case %d %s: no gradient reached the maps", k, tt.typ)
			}
		}
	}
}
