package coco

import (
	"fmt"
	"math"
	"paddle/core/metric"
	"slices"
)

// VOC mAP modes.
const (
	VOC11Point  = "11point"  // mean of the best precision at recall ≥ 0, .1, …, 1 (VOC2007)
	VOCIntegral = "integral" // Σ precision·Δrecall at each recall step (PaddleDetection's "integral")
	VOCArea     = "area"     // area under the interpolated curve (VOC2010+, py-faster-rcnn compute_ap)
)

// VOCOptions configure VOC mAP (PaddleDetection's VOCMetric / DetectionMAP).
type VOCOptions struct {
	IoU  float64 // a detection matches when the overlap is strictly above this; 0 means 0.5
	Mode string  // VOC11Point (default), VOCIntegral or VOCArea
	// Normalized says boxes are in [0, 1]; otherwise widths and heights get
	// VOC's +1 pixel (x2 - x1 + 1).
	Normalized bool
	// EvaluateDifficult counts difficult GTs like the others; otherwise they
	// are left out of the GT counts and detections matched to them are ignored.
	EvaluateDifficult bool
}

// VOCBox is a box [x1, y1, x2, y2] with a class index: a detection (Score)
// or a ground-truth object (Difficult).
type VOCBox struct {
	Box       [4]float64
	Label     int
	Score     float64
	Difficult bool
}

// VOC accumulates VOC mAP over images.
type VOC struct {
	opts     VOCOptions
	classes  int
	scorePos [][]scorePos // per class: (score, TP?) in update order
	gtCount  []int
}

type scorePos struct {
	score float64
	tp    bool
}

// VOCResult is VOC mAP with per-class AP (-1 for classes without GT, which
// are left out of the mean).
type VOCResult struct {
	MAP float64
	AP  []float64
}

// NewVOC returns an empty VOC mAP accumulator for numClasses classes.
func NewVOC(numClasses int, o VOCOptions) (*VOC, error) {
	if o.IoU == 0 {
		o.IoU = 0.5
	}
	if o.Mode == "" {
		o.Mode = VOC11Point
	}
	if o.Mode != VOC11Point && o.Mode != VOCIntegral && o.Mode != VOCArea {
		return nil, fmt.Errorf("voc map: unknown mode %q (known: %s, %s, %s)", o.Mode, VOC11Point, VOCIntegral, VOCArea)
	}
	if numClasses < 1 {
		return nil, fmt.Errorf("voc map: %d classes", numClasses)
	}
	m := &VOC{opts: o, classes: numClasses}
	m.Reset()
	return m, nil
}

// Reset clears what Update accumulated.
func (m *VOC) Reset() {
	m.scorePos = make([][]scorePos, m.classes)
	m.gtCount = make([]int, m.classes)
}

// Update adds one image. Detections are matched in descending score order
// (stable), each to the same-class GT of largest overlap (the first one on
// ties); a GT already taken makes it a false positive, as in
// PaddleDetection's DetectionMAP.update on score-sorted (NMS) output.
func (m *VOC) Update(dets, gts []VOCBox) error {
	for i, g := range gts {
		if g.Label < 0 || g.Label >= m.classes {
			return fmt.Errorf("voc map: ground truth %d has label %d, want 0..%d", i, g.Label, m.classes-1)
		}
		if m.opts.EvaluateDifficult || !g.Difficult {
			m.gtCount[g.Label]++
		}
	}
	order := make([]int, len(dets))
	for i, d := range dets {
		if d.Label < 0 || d.Label >= m.classes {
			return fmt.Errorf("voc map: detection %d has label %d, want 0..%d", i, d.Label, m.classes-1)
		}
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case dets[a].Score > dets[b].Score:
			return -1
		case dets[a].Score < dets[b].Score:
			return 1
		}
		return 0
	})
	visited := make([]bool, len(gts))
	for _, i := range order {
		d := dets[i]
		best, bestIdx := -1.0, -1
		for j, g := range gts {
			if g.Label != d.Label {
				continue
			}
			if ov := jaccard(d.Box, g.Box, m.opts.Normalized); ov > best {
				best, bestIdx = ov, j
			}
		}
		switch {
		case best <= m.opts.IoU:
			m.scorePos[d.Label] = append(m.scorePos[d.Label], scorePos{d.Score, false})
		case m.opts.EvaluateDifficult || !gts[bestIdx].Difficult:
			m.scorePos[d.Label] = append(m.scorePos[d.Label], scorePos{d.Score, !visited[bestIdx]})
			visited[bestIdx] = true
		}
		// else: matched to a difficult GT that is not evaluated: ignored
	}
	return nil
}

// vocArea is PaddleDetection's bbox_area: +1 pixel unless normalized.
func vocArea(b [4]float64, normalized bool) float64 {
	norm := 1.0
	if normalized {
		norm = 0
	}
	return float64((b[2] - b[0] + norm) * (b[3] - b[1] + norm))
}

// jaccard is PaddleDetection's jaccard_overlap.
func jaccard(p, g [4]float64, normalized bool) float64 {
	if p[0] >= g[2] || p[2] <= g[0] || p[1] >= g[3] || p[3] <= g[1] {
		return 0
	}
	in := [4]float64{math.Max(p[0], g[0]), math.Max(p[1], g[1]), math.Min(p[2], g[2]), math.Min(p[3], g[3])}
	i := vocArea(in, normalized)
	return i / (vocArea(p, normalized) + vocArea(g, normalized) - i)
}

// Result computes mAP over the classes that have GT (a class with GT and
// no detections has AP 0).
func (m *VOC) Result() VOCResult {
	r := VOCResult{AP: make([]float64, m.classes)}
	sum, valid := 0.0, 0
	for c := range m.classes {
		if m.gtCount[c] == 0 {
			r.AP[c] = -1
			continue
		}
		valid++
		r.AP[c] = m.classAP(c)
		sum += r.AP[c]
	}
	if valid > 0 {
		r.MAP = sum / float64(valid)
	}
	return r
}

func (m *VOC) classAP(c int) float64 {
	sp := slices.Clone(m.scorePos[c])
	if len(sp) == 0 {
		return 0
	}
	slices.SortStableFunc(sp, func(a, b scorePos) int { // sorted(..., reverse=True) keeps ties in order
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return 0
	})
	n := float64(m.gtCount[c])
	prec := make([]float64, len(sp))
	rec := make([]float64, len(sp))
	tp, fp := 0, 0
	for i, s := range sp {
		if s.tp {
			tp++
		} else {
			fp++
		}
		prec[i] = float64(tp) / float64(tp+fp)
		rec[i] = float64(tp) / n
	}
	switch m.opts.Mode {
	case VOCIntegral:
		ap, prev := 0.0, 0.0
		for i := range prec {
			if gap := math.Abs(rec[i] - prev); gap > 1e-6 {
				ap += float64(prec[i] * gap)
				prev = rec[i]
			}
		}
		return ap
	case VOCArea:
		return areaAP(rec, prec)
	}
	// 11 points: the best precision at recall ≥ j/10
	var maxPrec [11]float64
	for i := range prec {
		for j := range 11 {
			if rec[i] >= float64(j)/10 && prec[i] > maxPrec[j] {
				maxPrec[j] = prec[i]
			}
		}
	}
	s := 0.0
	for _, v := range maxPrec {
		s += v
	}
	return s / 11
}

// areaAP is py-faster-rcnn's compute_ap: sentinels (0, 0) and (1, 0), the
// precision envelope from the right, then Σ Δrecall · precision where the
// recall changes (summed pairwise, as np.sum).
func areaAP(rec, prec []float64) float64 {
	mrec := append(append([]float64{0}, rec...), 1)
	mpre := append(append([]float64{0}, prec...), 0)
	for i := len(mpre) - 1; i > 0; i-- {
		mpre[i-1] = math.Max(mpre[i-1], mpre[i])
	}
	var terms []float64
	for i := 0; i+1 < len(mrec); i++ {
		if mrec[i+1] != mrec[i] {
			terms = append(terms, float64((mrec[i+1]-mrec[i])*mpre[i+1]))
		}
	}
	return metric.PairwiseSum(terms)
}
