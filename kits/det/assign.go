package det

import (
	"math"
	"sort"
)

// Label assignment runs in plain Go on float data, outside the graph.

// Assignment is one image's targets per anchor.
type Assignment struct {
	GT    []int     // assigned ground-truth index per anchor, -1 for background
	Score []float32 // target quality (soft label) of the assigned class per anchor
}

// Positives returns the anchors with a ground truth.
func (a Assignment) Positives() []int {
	var p []int
	for i, g := range a.GT {
		if g >= 0 {
			p = append(p, i)
		}
	}
	return p
}

// iou returns the IoU of boxes a and b (x1, y1, x2, y2).
func iou(a, b [4]float64) float64 {
	iw := min(a[2], b[2]) - max(a[0], b[0])
	ih := min(a[3], b[3]) - max(a[1], b[1])
	if iw <= 0 || ih <= 0 {
		return 0
	}
	inter := iw * ih
	u := (a[2]-a[0])*(a[3]-a[1]) + (b[2]-b[0])*(b[3]-b[1]) - inter
	if u <= 0 {
		return 0
	}
	return inter / u
}

// assignInput is what an assigner sees of one image.
type assignInput struct {
	scores  []float32    // (A, K) predicted probabilities, row-major
	boxes   [][4]float64 // (A) predicted boxes in input pixels
	anchors Anchors
	gt      [][4]float64
	classes []int
	k       int // classes
}

// taskAligned is TOOD's task-aligned assigner (Feng et al. 2021,
// https://arxiv.org/abs/2108.07755) as PP-YOLOE / PicoDet use it: for each
// ground truth, the top-k anchors whose centres lie inside it by the
// alignment metric s^alpha·IoU^beta (s the predicted score of the GT's
// class); an anchor claimed by several GTs goes to the one it overlaps most;
// the soft target is the metric normalised per GT by its largest metric and
// scaled by its largest IoU. A GT with no anchor centre inside gets its
// nearest anchor (force matching), so no object is left without a target.
func taskAligned(in assignInput, topk int, alpha, beta float64) Assignment {
	n, g := in.anchors.Len(), len(in.gt)
	out := Assignment{GT: make([]int, n), Score: make([]float32, n)}
	for i := range out.GT {
		out.GT[i] = -1
	}
	if g == 0 {
		return out
	}
	ious := make([][]float64, g)
	metric := make([][]float64, g)
	claimIoU := make([]float64, n) // best IoU of the GT currently holding each anchor
	cand := make([]int, 0, 64)
	for j, b := range in.gt {
		ious[j] = make([]float64, n)
		metric[j] = make([]float64, n)
		cand = cand[:0]
		for a := range n {
			cx, cy := float64(in.anchors.CX[a]), float64(in.anchors.CY[a])
			if cx <= b[0] || cx >= b[2] || cy <= b[1] || cy >= b[3] {
				continue
			}
			u := iou(in.boxes[a], b)
			ious[j][a] = u
			s := float64(in.scores[a*in.k+in.classes[j]])
			metric[j][a] = math.Pow(s, alpha) * math.Pow(u, beta)
			cand = append(cand, a)
		}
		if len(cand) == 0 { // force matching: the anchor whose centre is nearest the box centre
			mx, my := (b[0]+b[2])/2, (b[1]+b[3])/2
			best, bd := 0, math.Inf(1)
			for a := range n {
				dx, dy := float64(in.anchors.CX[a])-mx, float64(in.anchors.CY[a])-my
				if d := dx*dx + dy*dy; d < bd {
					best, bd = a, d
				}
			}
			u := iou(in.boxes[best], b)
			ious[j][best] = u
			metric[j][best] = math.Max(math.Pow(float64(in.scores[best*in.k+in.classes[j]]), alpha)*math.Pow(u, beta), 1e-9)
			cand = append(cand, best)
		}
		sort.SliceStable(cand, func(x, y int) bool { return metric[j][cand[x]] > metric[j][cand[y]] })
		if len(cand) > topk {
			cand = cand[:topk]
		}
		for _, a := range cand {
			if out.GT[a] < 0 || ious[j][a] > claimIoU[a] {
				out.GT[a], claimIoU[a] = j, ious[j][a]
			}
		}
	}
	maxMetric := make([]float64, g)
	maxIoU := make([]float64, g)
	for a, j := range out.GT {
		if j >= 0 {
			maxMetric[j] = max(maxMetric[j], metric[j][a])
			maxIoU[j] = max(maxIoU[j], ious[j][a])
		}
	}
	for a, j := range out.GT {
		if j >= 0 {
			out.Score[a] = float32(metric[j][a] / (maxMetric[j] + 1e-9) * maxIoU[j])
		}
	}
	return out
}

// simOTA is YOLOX's SimOTA (Ge et al. 2021, https://arxiv.org/abs/2107.08430):
// candidates are anchors whose centre is inside a GT or within radius strides
// of its centre; cost = class BCE + iouWeight·(-log IoU) (+1e5 outside both
// regions); each GT takes its dynamic k = Σ of its top-candK IoUs (≥ 1)
// cheapest anchors; an anchor wanted by several GTs keeps the cheapest. The
// soft target is the IoU with the assigned GT.
func simOTA(in assignInput, candK int, radius, iouWeight, clsWeight float64) Assignment {
	n, g := in.anchors.Len(), len(in.gt)
	out := Assignment{GT: make([]int, n), Score: make([]float32, n)}
	for i := range out.GT {
		out.GT[i] = -1
	}
	if g == 0 {
		return out
	}
	bestCost := make([]float64, n)
	ious := make([][]float64, g)
	type ac struct {
		a    int
		cost float64
	}
	for j, b := range in.gt {
		ious[j] = make([]float64, n)
		mx, my := (b[0]+b[2])/2, (b[1]+b[3])/2
		var cands []ac
		var cIoU []float64
		for a := range n {
			cx, cy, s := float64(in.anchors.CX[a]), float64(in.anchors.CY[a]), float64(in.anchors.Stride[a])
			inBox := cx > b[0] && cx < b[2] && cy > b[1] && cy < b[3]
			inCtr := math.Abs(cx-mx) < radius*s && math.Abs(cy-my) < radius*s
			if !inBox && !inCtr {
				continue
			}
			u := iou(in.boxes[a], b)
			ious[j][a] = u
			p := min(max(float64(in.scores[a*in.k+in.classes[j]]), 1e-6), 1-1e-6)
			// BCE against the IoU-quality target, as YOLOX's cls cost with sqrt(score·obj) ≈ score.
			cls := -(u*math.Log(p) + (1-u)*math.Log(1-p))
			cost := clsWeight*cls + iouWeight*(-math.Log(u+1e-8))
			if !(inBox && inCtr) {
				cost += 1e5
			}
			cands = append(cands, ac{a, cost})
			cIoU = append(cIoU, u)
		}
		if len(cands) == 0 {
			continue
		}
		sort.Sort(sort.Reverse(sort.Float64Slice(cIoU)))
		sum := 0.0
		for _, u := range cIoU[:min(candK, len(cIoU))] {
			sum += u
		}
		k := max(int(sum), 1)
		sort.SliceStable(cands, func(x, y int) bool { return cands[x].cost < cands[y].cost })
		for _, c := range cands[:min(k, len(cands))] {
			if out.GT[c.a] < 0 || c.cost < bestCost[c.a] {
				out.GT[c.a], bestCost[c.a] = j, c.cost
			}
		}
	}
	for a, j := range out.GT {
		if j >= 0 {
			out.Score[a] = float32(ious[j][a])
		}
	}
	return out
}
