package coco

import (
	"fmt"
	"paddle/core/metric"
	"strings"
)

// StatNames are short names of the 12 stats, in pycocotools' order.
var StatNames = []string{"AP", "AP50", "AP75", "APs", "APm", "APl", "AR1", "AR10", "AR100", "ARs", "ARm", "ARl"}

// statSpec is one _summarize call: AP or AR, an IoU threshold (hasIoU
// false: all of them), an area label and a maxDets index.
type statSpec struct {
	ap     bool
	hasIoU bool
	iou    float64
	area   string
	maxDet int // index into Params.MaxDets
}

var statSpecs = []statSpec{
	{ap: true, area: "all", maxDet: 2},
	{ap: true, hasIoU: true, iou: .5, area: "all", maxDet: 2},
	{ap: true, hasIoU: true, iou: .75, area: "all", maxDet: 2},
	{ap: true, area: "small", maxDet: 2},
	{ap: true, area: "medium", maxDet: 2},
	{ap: true, area: "large", maxDet: 2},
	{area: "all", maxDet: 0},
	{area: "all", maxDet: 1},
	{area: "all", maxDet: 2},
	{area: "small", maxDet: 2},
	{area: "medium", maxDet: 2},
	{area: "large", maxDet: 2},
}

// summarize computes the 12 stats (COCOeval.summarize's _summarizeDets).
func (r *Result) summarize() []float64 {
	stats := make([]float64, len(statSpecs))
	for i, s := range statSpecs {
		stats[i] = r.stat(s)
	}
	return stats
}

// stat is _summarize: the mean of the valid (> -1) entries of the selected
// slice of precision (T, R, K) or recall (T, K), in C order, or -1.
func (r *Result) stat(s statSpec) float64 {
	p := &r.Params
	nR, nK, nA, nM := len(p.RecThrs), len(r.CatIDs), len(p.AreaRanges), len(p.MaxDets)
	var ts, as []int
	for t, v := range p.IoUThrs {
		if !s.hasIoU || v == s.iou { // np.where(iouThr == p.iouThrs): exact equality
			ts = append(ts, t)
		}
	}
	for a, l := range p.AreaLabels {
		if l == s.area {
			as = append(as, a)
		}
	}
	m := s.maxDet
	var vals []float64
	for _, t := range ts {
		if s.ap {
			for ri := range nR {
				for k := range nK {
					for _, a := range as {
						if v := r.Precision[(((t*nR+ri)*nK+k)*nA+a)*nM+m]; v > -1 {
							vals = append(vals, v)
						}
					}
				}
			}
			continue
		}
		for k := range nK {
			for _, a := range as {
				if v := r.Recall[((t*nK+k)*nA+a)*nM+m]; v > -1 {
					vals = append(vals, v)
				}
			}
		}
	}
	if len(vals) == 0 {
		return -1
	}
	return metric.PairwiseSum(vals) / float64(len(vals))
}

// CategoryAP returns AP@[.5:.95] of the k-th category (of CatIDs) for area
// "all" (the first range) and the largest maxDets, as PaddleDetection's
// classwise table computes it (np.mean of precision[:, :, k, 0, -1] > -1),
// or -1 when the category has no non-ignored GT.
func (r *Result) CategoryAP(k int) float64 {
	p := &r.Params
	nT, nR, nK, nA, nM := len(p.IoUThrs), len(p.RecThrs), len(r.CatIDs), len(p.AreaRanges), len(p.MaxDets)
	var vals []float64
	for t := range nT {
		for ri := range nR {
			if v := r.Precision[(((t*nR+ri)*nK+k)*nA+0)*nM+nM-1]; v > -1 {
				vals = append(vals, v)
			}
		}
	}
	if len(vals) == 0 {
		return -1
	}
	return metric.PairwiseSum(vals) / float64(len(vals))
}

// SummaryLines returns the 12 lines COCOeval.summarize prints, e.g.
// " Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = 0.372".
func (r *Result) SummaryLines() []string {
	p := &r.Params
	lines := make([]string, len(statSpecs))
	for i, s := range statSpecs {
		title, typ := "Average Recall", "(AR)"
		if s.ap {
			title, typ = "Average Precision", "(AP)"
		}
		iou := fmt.Sprintf("%0.2f:%0.2f", p.IoUThrs[0], p.IoUThrs[len(p.IoUThrs)-1])
		if s.hasIoU {
			iou = fmt.Sprintf("%0.2f", s.iou)
		}
		lines[i] = fmt.Sprintf(" %-18s %s @[ IoU=%-9s | area=%6s | maxDets=%3d ] = %0.3f",
			title, typ, iou, s.area, p.MaxDets[s.maxDet], r.Stats[i])
	}
	return lines
}

// Summary is SummaryLines joined with newlines (and a final one).
func (r *Result) Summary() string { return strings.Join(r.SummaryLines(), "\n") + "\n" }
