package coco

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// voc_ref.json comes from PaddleDetection's DetectionMAP (ppdet/metrics/map_utils.py) run on
// voc_fixture.json by scripts/ref/coco_eval_ref.py; "area" is the same file's compute_ap on
// DetectionMAP's precision/recall lists.
func TestVOCAgainstPaddleDetection(t *testing.T) {
	var fx struct {
		NumClasses int `json:"num_classes"`
		Images     []struct {
			GT []struct {
				Box       [4]float64 `json:"box"`
				Label     int        `json:"label"`
				Difficult int        `json:"difficult"`
			} `json:"gt"`
			DT []struct {
				Box   [4]float64 `json:"box"`
				Label int        `json:"label"`
				Score float64    `json:"score"`
			} `json:"dt"`
		} `json:"images"`
	}
	var ref map[string]struct {
		MAP      float64                       `json:"map"`
		PerClass map[string]map[string]float64 `json:"per_class"`
	}
	for name, v := range map[string]any{"voc_fixture.json": &fx, "voc_ref.json": &ref} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatal(err)
		}
	}
	for _, mode := range []string{VOC11Point, VOCIntegral, VOCArea} {
		for _, diff := range []bool{false, true} {
			key := "11point_difficult=" + map[bool]string{false: "False", true: "True"}[diff]
			if mode == VOCIntegral {
				key = "integral" + key[len("11point"):]
			}
			want := ref[key]
			m, err := NewVOC(fx.NumClasses, VOCOptions{Mode: mode, EvaluateDifficult: diff})
			if err != nil {
				t.Fatal(err)
			}
			for _, im := range fx.Images {
				var dets, gts []VOCBox
				for _, g := range im.GT {
					gts = append(gts, VOCBox{Box: g.Box, Label: g.Label, Difficult: g.Difficult != 0})
				}
				for _, d := range im.DT {
					dets = append(dets, VOCBox{Box: d.Box, Label: d.Label, Score: d.Score})
				}
				if err := m.Update(dets, gts); err != nil {
					t.Fatal(err)
				}
			}
			got := m.Result()
			field := "ap"
			if mode == VOCArea {
				field = "area"
			}
			sum, n := 0.0, 0
			for c := range fx.NumClasses {
				w, ok := want.PerClass[strconv.Itoa(c)]
				if !ok {
					if got.AP[c] != -1 {
						t.Errorf("%s %s class %d (no GT): AP = %v, want -1", mode, key, c, got.AP[c])
					}
					continue
				}
				if got.AP[c] != w[field] {
					t.Errorf("%s %s class %d: AP = %.17g, want %.17g", mode, key, c, got.AP[c], w[field])
				}
				sum += w[field]
				n++
			}
			wantMAP := want.MAP
			if mode == VOCArea {
				wantMAP = sum / float64(n)
			}
			if math.Abs(got.MAP-wantMAP) > 1e-15 {
				t.Errorf("%s %s: mAP = %.17g, want %.17g", mode, key, got.MAP, wantMAP)
			}
		}
	}
}

// TestVOCWorked: one class, 2 GTs (one difficult), 3 detections by score:
// D1 on the easy GT (TP), D2 on the difficult GT (ignored unless difficult GTs count),
// D3 a duplicate of the easy GT (FP).
//
// Difficult left out: 1 GT; TP, FP -> precision 1, 1/2 at recall 1, 1:
// 11-point = 1, integral = 1*1 = 1, area = 1.
// Difficult counted: 2 GTs; TP, TP, FP -> recall .5, 1, 1 with precision 1, 1, 2/3:
// 11-point = 1, integral = .5*1 + .5*1 = 1, area = 1.
func TestVOCWorked(t *testing.T) {
	gts := []VOCBox{{Box: [4]float64{0, 0, 9, 9}}, {Box: [4]float64{20, 20, 29, 29}, Difficult: true}}
	dets := []VOCBox{
		{Box: [4]float64{0, 0, 9, 9}, Score: 0.9},
		{Box: [4]float64{20, 20, 29, 29}, Score: 0.8},
		{Box: [4]float64{0, 0, 9, 8}, Score: 0.7},
	}
	for _, diff := range []bool{false, true} {
		for _, mode := range []string{VOC11Point, VOCIntegral, VOCArea} {
			m, _ := NewVOC(1, VOCOptions{Mode: mode, EvaluateDifficult: diff})
			if err := m.Update(dets, gts); err != nil {
				t.Fatal(err)
			}
			if got := m.Result().MAP; math.Abs(got-1) > 1e-15 {
				t.Errorf("difficult=%v %s: mAP = %v, want 1", diff, mode, got)
			}
		}
	}
	// a low-scored FP before any TP: TP order FP, TP -> precision 0, 1/2 at recall 0, 1.
	// 11-point: max precision at recall ≥ j/10 is 1/2 for all 11 points: 0.5.
	// integral: only the TP step has Δrecall 1: 1/2. area: envelope 1/2 over [0, 1]: 0.5.
	gts = []VOCBox{{Box: [4]float64{0, 0, 9, 9}}}
	dets = []VOCBox{{Box: [4]float64{50, 50, 59, 59}, Score: 0.9}, {Box: [4]float64{0, 0, 9, 9}, Score: 0.1}}
	for _, mode := range []string{VOC11Point, VOCIntegral, VOCArea} {
		m, _ := NewVOC(2, VOCOptions{Mode: mode})
		if err := m.Update(dets, gts); err != nil {
			t.Fatal(err)
		}
		r := m.Result()
		if math.Abs(r.MAP-0.5) > 1e-15 || r.AP[1] != -1 {
			t.Errorf("%s: %+v, want mAP 0.5 and class 1 -1", mode, r)
		}
	}
	// +1 pixel: [0,0,9,9] vs [0,0,9,4] overlap 50/100 = 0.5, not > 0.5: FP
	m, _ := NewVOC(1, VOCOptions{})
	_ = m.Update([]VOCBox{{Box: [4]float64{0, 0, 9, 4}, Score: 1}}, []VOCBox{{Box: [4]float64{0, 0, 9, 9}}})
	if r := m.Result(); r.MAP != 0 {
		t.Errorf("IoU exactly 0.5 matched: mAP = %v, want 0", r.MAP)
	}
	if _, err := NewVOC(1, VOCOptions{Mode: "12point"}); err == nil {
		t.Error("unknown mode: want an error")
	}
	if err := m.Update([]VOCBox{{Label: 3}}, nil); err == nil {
		t.Error("label out of range: want an error")
	}
}
