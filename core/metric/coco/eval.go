package coco

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"paddle/core/parallel"
)

// Params are COCOeval's evaluation parameters (pycocotools Params.setDetParams).
type Params struct {
	IoUThrs    []float64    // IoU thresholds, np.linspace(.5, .95, 10)
	RecThrs    []float64    // recall thresholds, np.linspace(0, 1, 101)
	MaxDets    []int        // detections kept per image and category: 1, 10, 100
	AreaRanges [][2]float64 // closed ranges on the GT area field / detection w*h
	AreaLabels []string     // all, small, medium, large
}

// DefaultParams returns pycocotools' bbox parameters.
func DefaultParams() Params {
	return Params{
		IoUThrs:    Linspace(0.5, 0.95, 10),
		RecThrs:    Linspace(0, 1, 101),
		MaxDets:    []int{1, 10, 100},
		AreaRanges: [][2]float64{{0, 1e10}, {0, 32 * 32}, {32 * 32, 96 * 96}, {96 * 96, 1e10}},
		AreaLabels: []string{"all", "small", "medium", "large"},
	}
}

// Linspace returns num evenly spaced values from start to stop inclusive,
// rounded exactly as numpy's linspace rounds them: y[i] = i*step + start
// with step = (stop-start)/(num-1) in float64, then y[num-1] = stop. So
// Linspace(.5, .95, 10)[8] is 0.8999999999999999, not 0.9.
func Linspace(start, stop float64, num int) []float64 {
	y := make([]float64, num)
	if num == 1 {
		y[0] = start
		return y
	}
	step := (stop - start) / float64(num-1)
	for i := range y {
		// The conversion rounds the product, as numpy does, and stops the
		// compiler from fusing it with the addition into an FMA.
		y[i] = float64(float64(i)*step) + start
	}
	y[num-1] = stop
	return y
}

// Result holds what COCOeval.accumulate and summarize produce.
type Result struct {
	Params Params
	ImgIDs []int64 // sorted GT image ids
	CatIDs []int64 // sorted GT category ids
	// Precision is pycocotools' precision[T][R][K][A][M] in C order; -1 where
	// a (category, area, maxDets) has no non-ignored GT.
	Precision []float64
	// Recall is recall[T][K][A][M] in C order, -1 likewise.
	Recall []float64
	// Stats are the 12 summary numbers in pycocotools' order: AP, AP50, AP75,
	// AP small/medium/large, AR@1, AR@10, AR@100, AR small/medium/large.
	Stats []float64
}

// gtObj and dtObj are one (image, category) cell's objects.
type gtObj struct {
	id    int64
	box   [4]float64
	area  float64
	crowd bool
}

type dtObj struct {
	box   [4]float64
	area  float64
	score float64
}

// cell is one (image, category): its objects and, after evaluation, one
// evalImg per area range (nil when the cell has neither GT nor detections).
type cell struct {
	gts   []gtObj
	dts   []dtObj
	evals []*evalImg
}

// evalImg is pycocotools' evaluateImg result for one area range.
type evalImg struct {
	scores   []float64 // detection scores, sorted descending
	matched  [][]bool  // [t][d]: dtMatches != 0 (matched to a GT whose id is not 0)
	ignored  [][]bool  // [t][d]: dtIgnore
	gtIgnore []bool
}

// Evaluate scores detections against ground truth exactly as pycocotools'
// COCOeval(gt, dt, "bbox") evaluate + accumulate + summarize. Detections of
// categories not in gt.Categories are dropped; a detection on an image not
// in gt.Images is an error (pycocotools asserts).
func Evaluate(gt *Dataset, dts []Detection, p Params) (*Result, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	p.MaxDets = slices.Clone(p.MaxDets)
	slices.Sort(p.MaxDets)
	r := &Result{Params: p}
	imgIdx := map[int64]int{}
	for _, im := range gt.Images {
		imgIdx[im.ID] = 0
	}
	for id := range imgIdx {
		r.ImgIDs = append(r.ImgIDs, id)
	}
	slices.Sort(r.ImgIDs)
	for i, id := range r.ImgIDs {
		imgIdx[id] = i
	}
	catIdx := map[int64]int{}
	for _, c := range gt.Categories {
		catIdx[c.ID] = 0
	}
	for id := range catIdx {
		r.CatIDs = append(r.CatIDs, id)
	}
	slices.Sort(r.CatIDs)
	for k, id := range r.CatIDs {
		catIdx[id] = k
	}
	nI, nK := len(r.ImgIDs), len(r.CatIDs)
	cells := make([]cell, nK*nI)
	for _, a := range gt.Annotations {
		i, okI := imgIdx[a.ImageID]
		k, okK := catIdx[a.CategoryID]
		if !okI || !okK {
			continue // getAnnIds(imgIds, catIds) never returns it
		}
		c := &cells[k*nI+i]
		c.gts = append(c.gts, gtObj{id: a.ID, box: a.BBox, area: a.Area, crowd: a.IsCrowd})
	}
	for n, d := range dts {
		i, ok := imgIdx[d.ImageID]
		if !ok {
			return nil, fmt.Errorf("result [%d]: image_id %d is not an image of the ground truth", n, d.ImageID)
		}
		k, ok := catIdx[d.CategoryID]
		if !ok {
			continue
		}
		c := &cells[k*nI+i]
		// loadRes: area = w*h
		c.dts = append(c.dts, dtObj{box: d.BBox, area: float64(d.BBox[2] * d.BBox[3]), score: d.Score})
	}
	parallel.For(len(cells), 64, func(lo, hi int) {
		for n := lo; n < hi; n++ {
			cells[n].evaluate(&p)
		}
	})
	r.accumulate(cells)
	r.Stats = r.summarize()
	return r, nil
}

func (p *Params) check() error {
	switch {
	case len(p.IoUThrs) == 0 || len(p.RecThrs) == 0:
		return fmt.Errorf("coco params: IoU and recall thresholds must not be empty")
	case len(p.MaxDets) < 3:
		return fmt.Errorf("coco params: want 3 maxDets (the summary uses maxDets[0..2]), got %v", p.MaxDets)
	case len(p.AreaRanges) == 0 || len(p.AreaRanges) != len(p.AreaLabels):
		return fmt.Errorf("coco params: %d area ranges but %d labels", len(p.AreaRanges), len(p.AreaLabels))
	case !sort.Float64sAreSorted(p.RecThrs):
		return fmt.Errorf("coco params: recall thresholds must be sorted")
	}
	for _, m := range p.MaxDets {
		if m < 1 {
			return fmt.Errorf("coco params: maxDets %v must be positive", p.MaxDets)
		}
	}
	return nil
}

// evaluate runs computeIoU and evaluateImg for every area range.
func (c *cell) evaluate(p *Params) {
	if len(c.gts) == 0 && len(c.dts) == 0 {
		return
	}
	// Detections by descending score, stable (np.argsort(-score, kind='mergesort')),
	// keeping the first maxDets[-1].
	slices.SortStableFunc(c.dts, func(a, b dtObj) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return 0
	})
	if maxDet := p.MaxDets[len(p.MaxDets)-1]; len(c.dts) > maxDet {
		c.dts = c.dts[:maxDet]
	}
	ious := make([]float64, len(c.dts)*len(c.gts)) // [d][g], GT in file order
	for d := range c.dts {
		for g := range c.gts {
			ious[d*len(c.gts)+g] = bboxIoU(c.dts[d].box, c.gts[g].box, c.gts[g].crowd)
		}
	}
	c.evals = make([]*evalImg, len(p.AreaRanges))
	for a, rng := range p.AreaRanges {
		c.evals[a] = c.evaluateImg(p, ious, rng)
	}
}

// bboxIoU is maskApi's bbIou for one pair of [x, y, w, h] boxes: for a crowd
// GT the union is the detection's own area. The products are rounded one by
// one (explicit conversions: no FMA), in C's order.
func bboxIoU(d, g [4]float64, crowd bool) float64 {
	ga := float64(g[2] * g[3])
	da := float64(d[2] * d[3])
	w := math.Min(d[2]+d[0], g[2]+g[0]) - math.Max(d[0], g[0])
	if w <= 0 {
		return 0
	}
	h := math.Min(d[3]+d[1], g[3]+g[1]) - math.Max(d[1], g[1])
	if h <= 0 {
		return 0
	}
	i := float64(w * h)
	u := da
	if !crowd {
		u = da + ga - i
	}
	return i / u
}

// evaluateImg is pycocotools' evaluateImg for one area range and maxDets[-1].
func (c *cell) evaluateImg(p *Params, ious []float64, rng [2]float64) *evalImg {
	nG, nD, nT := len(c.gts), len(c.dts), len(p.IoUThrs)
	// GTs: crowds and out-of-range areas are ignored; non-ignored first (stable).
	ign := make([]bool, nG)
	order := make([]int, 0, nG)
	for g, o := range c.gts {
		ign[g] = o.crowd || o.area < rng[0] || o.area > rng[1]
		if !ign[g] {
			order = append(order, g)
		}
	}
	for g := range c.gts {
		if ign[g] {
			order = append(order, g)
		}
	}
	e := &evalImg{scores: make([]float64, nD), gtIgnore: make([]bool, nG),
		matched: make([][]bool, nT), ignored: make([][]bool, nT)}
	for j, g := range order {
		e.gtIgnore[j] = ign[g]
	}
	for d := range c.dts {
		e.scores[d] = c.dts[d].score
	}
	gtTaken := make([]bool, nG)
	for t, thr := range p.IoUThrs {
		e.matched[t] = make([]bool, nD)
		e.ignored[t] = make([]bool, nD)
		clear(gtTaken)
		for d := range c.dts {
			best := math.Min(thr, 1-1e-10)
			m := -1
			for j, g := range order {
				if gtTaken[j] && !c.gts[g].crowd {
					continue
				}
				// a match to a real GT stops at the first ignored one
				if m > -1 && !e.gtIgnore[m] && e.gtIgnore[j] {
					break
				}
				v := ious[d*nG+g]
				if v < best {
					continue
				}
				best, m = v, j // equal IoUs: the later GT wins
			}
			if m == -1 {
				continue
			}
			e.ignored[t][d] = e.gtIgnore[m]
			// dtMatches holds the GT's id, and the id 0 reads as "unmatched"
			// later on, as in pycocotools.
			e.matched[t][d] = c.gts[order[m]].id != 0
			gtTaken[m] = true
		}
		for d, o := range c.dts {
			if !e.matched[t][d] && (o.area < rng[0] || o.area > rng[1]) {
				e.ignored[t][d] = true
			}
		}
	}
	return e
}

// accumulate fills Precision and Recall (COCOeval.accumulate).
func (r *Result) accumulate(cells []cell) {
	p := &r.Params
	nT, nR, nK, nA, nM, nI := len(p.IoUThrs), len(p.RecThrs), len(r.CatIDs), len(p.AreaRanges), len(p.MaxDets), len(r.ImgIDs)
	r.Precision = make([]float64, nT*nR*nK*nA*nM)
	r.Recall = make([]float64, nT*nK*nA*nM)
	for i := range r.Precision {
		r.Precision[i] = -1
	}
	for i := range r.Recall {
		r.Recall[i] = -1
	}
	parallel.For(nK, 1, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			for a := range nA {
				for m, maxDet := range p.MaxDets {
					var es []*evalImg
					for i := range nI {
						if ev := cells[k*nI+i].evals; ev != nil {
							es = append(es, ev[a])
						}
					}
					r.accumulateOne(es, k, a, m, maxDet)
				}
			}
		}
	})
}

// accumulateOne computes one (category, area, maxDets) precision curve per
// IoU threshold from the images' evaluations (in image-id order).
func (r *Result) accumulateOne(es []*evalImg, k, a, m, maxDet int) {
	p := &r.Params
	nT, nR, nK, nA, nM := len(p.IoUThrs), len(p.RecThrs), len(r.CatIDs), len(p.AreaRanges), len(p.MaxDets)
	if len(es) == 0 {
		return
	}
	type ref struct {
		e     *evalImg
		d     int
		score float64
	}
	var dets []ref
	npig := 0
	for _, e := range es {
		for d := range min(maxDet, len(e.scores)) {
			dets = append(dets, ref{e, d, e.scores[d]})
		}
		for _, ig := range e.gtIgnore {
			if !ig {
				npig++
			}
		}
	}
	if npig == 0 {
		return
	}
	// stable sort on -score over the concatenation (image-id order, then rank)
	slices.SortStableFunc(dets, func(x, y ref) int {
		switch {
		case x.score > y.score:
			return -1
		case x.score < y.score:
			return 1
		}
		return 0
	})
	nd := len(dets)
	rc := make([]float64, nd)
	pr := make([]float64, nd)
	eps := math.Nextafter(1, 2) - 1 // np.spacing(1)
	for t := range nT {
		tp, fp := 0.0, 0.0
		for j, x := range dets {
			if !x.e.ignored[t][x.d] {
				if x.e.matched[t][x.d] {
					tp++
				} else {
					fp++
				}
			}
			rc[j] = tp / float64(npig)
			pr[j] = tp / (fp + tp + eps)
		}
		recall := 0.0
		if nd > 0 {
			recall = rc[nd-1]
		}
		r.Recall[((t*nK+k)*nA+a)*nM+m] = recall
		for j := nd - 1; j > 0; j-- {
			if pr[j] > pr[j-1] {
				pr[j-1] = pr[j]
			}
		}
		for ri, thr := range p.RecThrs {
			q := 0.0
			// np.searchsorted(rc, recThrs, side='left'); beyond the curve: 0
			if j := sort.SearchFloat64s(rc, thr); j < nd {
				q = pr[j]
			}
			r.Precision[(((t*nR+ri)*nK+k)*nA+a)*nM+m] = q
		}
	}
}
