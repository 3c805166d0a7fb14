package det

import (
	"fmt"
	"math"
	"paddle/core/config"
	"sort"
)

// Post-processing runs in Go after the network: a score threshold, per-class
// candidates capped at nms_top_k, class-aware NMS (greedy, or Matrix NMS
// with linear or gaussian decay), then the keep_top_k best over all classes.

// Det is one detection in some image's pixels.
type Det struct {
	Class int
	Score float64
	Box   [4]float64 // x1, y1, x2, y2
}

// nmsKinds are the nms.name values.
var nmsKinds = config.NameSet("MultiClassNMS", "MatrixNMS")

// withNMSDefaults fills PicoDet's post-processing defaults.
func withNMSDefaults(o NMSOpts) (NMSOpts, error) {
	if o.Name == "" {
		o.Name = "MultiClassNMS"
	}
	if _, ok := nmsKinds.Get(o.Name); !ok {
		return o, fmt.Errorf("nms: %q is not supported (known: %s)", o.Name, nmsKinds.Known())
	}
	o.NMSTopK = cmpOr(o.NMSTopK, 1000)
	o.KeepTopK = cmpOr(o.KeepTopK, 100)
	if o.ScoreThreshold == 0 {
		o.ScoreThreshold = 0.025
	}
	if o.NMSThreshold == 0 {
		o.NMSThreshold = 0.6
	}
	if o.GaussianSigma == 0 {
		o.GaussianSigma = 2
	}
	return o, nil
}

// PostProcess turns one image's class scores (A·K, row-major) and boxes
// (A·4) into detections, best first.
func PostProcess(scores, boxes []float32, k int, o NMSOpts) []Det {
	var out []Det
	a := len(scores) / k
	for c := range k {
		var cand []Det
		for i := range a {
			if s := float64(scores[i*k+c]); s > o.ScoreThreshold {
				b := boxes[i*4 : i*4+4]
				cand = append(cand, Det{Class: c, Score: s, Box: [4]float64{float64(b[0]), float64(b[1]), float64(b[2]), float64(b[3])}})
			}
		}
		sort.SliceStable(cand, func(x, y int) bool { return cand[x].Score > cand[y].Score })
		if o.NMSTopK > 0 && len(cand) > o.NMSTopK {
			cand = cand[:o.NMSTopK]
		}
		if o.Name == "MatrixNMS" {
			out = append(out, matrixNMS(cand, o)...)
		} else {
			out = append(out, NMS(cand, o.NMSThreshold)...)
		}
	}
	sort.SliceStable(out, func(x, y int) bool { return out[x].Score > out[y].Score })
	if o.KeepTopK > 0 && len(out) > o.KeepTopK {
		out = out[:o.KeepTopK]
	}
	return out
}

// NMS is greedy non-maximum suppression over detections sorted by score:
// a detection is dropped when its IoU with a kept one exceeds thresh.
func NMS(ds []Det, thresh float64) []Det {
	var keep []Det
	for _, d := range ds {
		ok := true
		for _, k := range keep {
			if iou(d.Box, k.Box) > thresh {
				ok = false
				break
			}
		}
		if ok {
			keep = append(keep, d)
		}
	}
	return keep
}

// matrixNMS is SOLOv2's Matrix NMS (Wang et al. 2020,
// https://arxiv.org/abs/2003.10152) as PaddleDetection's MatrixNMS runs it on
// boxes: each detection's score decays by the minimum over higher-scored
// ones i of f(IoU_ij) / f(max IoU of i with anything above it), with
// f(u) = exp(-σ·u²) (gaussian) or 1-u (linear); decayed scores at or below
// post_threshold are dropped. ds must be sorted by score.
func matrixNMS(ds []Det, o NMSOpts) []Det {
	n := len(ds)
	comp := make([]float64, n) // max IoU of i with any higher-scored detection
	ious := make([]float64, n*n)
	for j := range n {
		for i := range j {
			u := iou(ds[i].Box, ds[j].Box)
			ious[i*n+j] = u
			comp[j] = max(comp[j], u)
		}
	}
	var out []Det
	for j := range n {
		decay := 1.0
		for i := range j {
			u := ious[i*n+j]
			var d float64
			if o.UseGaussian {
				d = math.Exp((comp[i]*comp[i] - u*u) * o.GaussianSigma)
			} else {
				d = (1 - u) / (1 - comp[i])
			}
			decay = min(decay, d)
		}
		s := ds[j].Score * decay
		if s > o.PostThreshold {
			d := ds[j]
			d.Score = s
			out = append(out, d)
		}
	}
	sort.SliceStable(out, func(x, y int) bool { return out[x].Score > out[y].Score })
	return out
}

// toOriginal maps detections from input pixels to the original image's,
// clipped to it.
func toOriginal(ds []Det, sx, sy float64, w, h int) []Det {
	out := make([]Det, 0, len(ds))
	for _, d := range ds {
		b := d.Box
		b = [4]float64{b[0] / sx, b[1] / sy, b[2] / sx, b[3] / sy}
		b = [4]float64{min(max(b[0], 0), float64(w)), min(max(b[1], 0), float64(h)), min(max(b[2], 0), float64(w)), min(max(b[3], 0), float64(h))}
		if b[2]-b[0] <= 0 || b[3]-b[1] <= 0 {
			continue
		}
		d.Box = b
		out = append(out, d)
	}
	return out
}
