package det

import (
	"fmt"
	"math"

	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/tensor"
)

// lossConfig is the head's loss setup, resolved from PicoHeadOpts.
type lossConfig struct {
	vflAlpha, vflGamma float64 // varifocal loss (0.75, 2)
	wCls, wDFL, wBox   float64 // term weights (1, 0.5, 2.5 as PicoDet)
	assigner           AssignerOpts
}

// The loss kinds PicoHeadV2's loss_class, loss_dfl and loss_bbox accept.
var (
	lossClasses = config.NameSet("VarifocalLoss")
	lossDFLs    = config.NameSet("DistributionFocalLoss")
	lossBBoxes  = config.NameSet("GIoULoss")
)

// assigners are the assigner kinds, each with its defaults.
var assigners = new(config.Choices[func(*AssignerOpts)]).
	Add("TaskAlignedAssigner", func(a *AssignerOpts) {
		a.TopK = cmpOr(a.TopK, 13)
		if a.Alpha == 0 {
			a.Alpha = 1
		}
		if a.Beta == 0 {
			a.Beta = 6
		}
	}).
	Add("SimOTAAssigner", func(a *AssignerOpts) {
		a.CandidateK = cmpOr(a.CandidateK, 10)
		if a.CenterRadius == 0 {
			a.CenterRadius = 2.5
		}
		if a.IoUWeight == 0 {
			a.IoUWeight = 3
		}
		if a.ClsWeight == 0 {
			a.ClsWeight = 1
		}
	})

func newLossConfig(o PicoHeadOpts) (lossConfig, error) {
	lc := lossConfig{vflAlpha: 0.75, vflGamma: 2, wCls: 1, wDFL: 0.5, wBox: 2.5, assigner: o.Assigner}
	for _, l := range []struct {
		key, name string
		known     *config.Choices[struct{}]
	}{{"loss_class", o.LossClass.Name, lossClasses}, {"loss_dfl", o.LossDFL.Name, lossDFLs}, {"loss_bbox", o.LossBBox.Name, lossBBoxes}} {
		if _, ok := l.known.Get(l.name); l.name != "" && !ok {
			return lc, fmt.Errorf("%s: %q is not supported (known: %s)", l.key, l.name, l.known.Known())
		}
	}
	if o.LossClass.Alpha != 0 {
		lc.vflAlpha = o.LossClass.Alpha
	}
	if o.LossClass.Gamma != 0 {
		lc.vflGamma = o.LossClass.Gamma
	}
	for _, p := range []struct {
		dst *float64
		v   float64
	}{{&lc.wCls, o.LossClass.LossWeight}, {&lc.wDFL, o.LossDFL.LossWeight}, {&lc.wBox, o.LossBBox.LossWeight}} {
		if p.v != 0 {
			*p.dst = p.v
		}
	}
	a := &lc.assigner
	if a.Name == "" {
		a.Name = "TaskAlignedAssigner"
	}
	defaults, ok := assigners.Get(a.Name)
	if !ok {
		return lc, fmt.Errorf("assigner: %q is not supported (known: %s)", a.Name, assigners.Known())
	}
	defaults(a)
	return lc, nil
}

func cmpOr(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// LossParts are the weighted loss terms of a batch, for logs.
type LossParts struct {
	Cls, Box, DFL float64
	Positives     int
}

// Loss is the GFL-style loss of a batch: varifocal classification against
// the assigner's soft targets, GIoU and distribution focal loss on the
// positive anchors, each normalised by the sum of the soft targets. gts and
// classes are each image's boxes (input pixels) and class indices.
func (h *PicoHead) Loss(out Output, anc Anchors, gts [][][4]float64, classes [][]int, lc lossConfig) (*ag.Var, LossParts) {
	s := out.Cls.Shape()
	n, na, k := s[0], s[1], s[2]
	r := h.RegMax + 1
	var probs []float32
	var boxes []float32
	ag.NoGrad(func() {
		probs = ag.Sigmoid(out.Cls).T.Contiguous().Cast(tensor.Float32).F32()
		boxes = h.Decode(ag.Const(out.Reg.T), anc).T.Contiguous().Cast(tensor.Float32).F32()
	})
	q := make([]float32, n*na*k) // soft targets
	w := make([]float32, n*na*k) // varifocal weights
	var pos []int64              // flattened n·A + a
	var posGT [][4]float64       // their GT boxes
	var posW []float32           // their soft targets
	for b := range n {
		pb := make([][4]float64, na)
		for a := range na {
			o := (b*na + a) * 4
			pb[a] = [4]float64{float64(boxes[o]), float64(boxes[o+1]), float64(boxes[o+2]), float64(boxes[o+3])}
		}
		in := assignInput{scores: probs[b*na*k : (b+1)*na*k], boxes: pb, anchors: anc, gt: gts[b], classes: classes[b], k: k}
		var as Assignment
		if lc.assigner.Name == "SimOTAAssigner" {
			as = simOTA(in, lc.assigner.CandidateK, lc.assigner.CenterRadius, lc.assigner.IoUWeight, lc.assigner.ClsWeight)
		} else {
			as = taskAligned(in, lc.assigner.TopK, lc.assigner.Alpha, lc.assigner.Beta)
		}
		for a := range na {
			o := (b*na + a) * k
			j := as.GT[a]
			for c := range k {
				p := float64(probs[o+c])
				w[o+c] = float32(lc.vflAlpha * math.Pow(p, lc.vflGamma))
			}
			if j >= 0 {
				c := classes[b][j]
				q[o+c], w[o+c] = as.Score[a], as.Score[a]
				pos = append(pos, int64(b*na+a))
				posGT = append(posGT, gts[b][j])
				posW = append(posW, as.Score[a])
			}
		}
	}
	norm := 0.0
	for _, v := range posW {
		norm += float64(v)
	}
	norm = max(norm, 1)
	dt := out.Cls.DType()
	qv := ag.Const(tensor.FromSlice(q, n, na, k).Cast(dt))
	wv := ag.Const(tensor.FromSlice(w, n, na, k).Cast(dt))
	// BCE with logits: softplus(x) - x·q.
	bce := ag.Sub(ag.Softplus(out.Cls, 1, 20), ag.Mul(out.Cls, qv))
	lossCls := ag.MulScalar(ag.Sum(ag.Mul(bce, wv), nil, false), lc.wCls/norm)
	parts := LossParts{Cls: lossCls.Item(), Positives: len(pos)}
	if len(pos) == 0 {
		return lossCls, parts
	}
	p := len(pos)
	idx := ag.Const(tensor.FromSlice(pos, p))
	reg := ag.Gather(ag.Reshape(out.Reg, n*na, 4*r), idx, 0) // (P, 4r)
	// Predicted boxes of the positives.
	logits := ag.Reshape(reg, p*4, r)
	proj := tensor.Arange(dt, 0, float64(r), 1).Reshape(r, 1)
	dist := ag.Reshape(ag.MatMul(ag.Softmax(logits, -1), ag.Const(proj), false, false), p, 4)
	sign := make([]float32, 0, 4*p)
	ctr := make([]float32, 0, 4*p)
	gt := make([]float32, 0, 4*p)
	dflW := make([]float32, p*4*r)
	for i, fi := range pos {
		a := int(fi) % na
		st, cx, cy := anc.Stride[a], anc.CX[a], anc.CY[a]
		sign = append(sign, -st, -st, st, st)
		ctr = append(ctr, cx, cy, cx, cy)
		g := posGT[i]
		gt = append(gt, float32(g[0]), float32(g[1]), float32(g[2]), float32(g[3]))
		// DFL targets: side distances in strides, clipped into the bins.
		d := [4]float64{(float64(cx) - g[0]) / float64(st), (float64(cy) - g[1]) / float64(st),
			(g[2] - float64(cx)) / float64(st), (g[3] - float64(cy)) / float64(st)}
		for side, t := range d {
			t = min(max(t, 0), float64(h.RegMax)-0.01)
			l := int(t)
			row := (i*4 + side) * r
			wt := float64(posW[i]) / 4
			dflW[row+l] = float32((float64(l+1) - t) * wt)
			dflW[row+l+1] = float32((t - float64(l)) * wt)
		}
	}
	pred := ag.Add(ag.Mul(dist, ag.Const(tensor.FromSlice(sign, p, 4).Cast(dt))), ag.Const(tensor.FromSlice(ctr, p, 4).Cast(dt)))
	giou := GIoU(pred, tensor.FromSlice(gt, p, 4).Cast(dt))
	pw := ag.Const(tensor.FromSlice(posW, p).Cast(dt))
	lossBox := ag.MulScalar(ag.Sum(ag.Mul(ag.Sub(ag.Scalar(giou, 1), giou), pw), nil, false), lc.wBox/norm)
	lossDFL := ag.MulScalar(ag.Sum(ag.Mul(ag.LogSoftmax(logits, -1), ag.Const(tensor.FromSlice(dflW, p*4, r).Cast(dt))), nil, false), -lc.wDFL/norm)
	parts.Box, parts.DFL = lossBox.Item(), lossDFL.Item()
	return ag.Add(ag.Add(lossCls, lossBox), lossDFL), parts
}

// GIoU returns the generalized IoU (Rezatofighi et al. 2019,
// https://arxiv.org/abs/1902.09630) of predicted boxes (P, 4) with target
// boxes (P, 4), both x1, y1, x2, y2; predicted boxes must have x2 ≥ x1 and
// y2 ≥ y1 (distance decoding guarantees it).
func GIoU(pred *ag.Var, target *tensor.Tensor) *ag.Var {
	pc := ag.Split(pred, 1, 1, 1, 1, 1)
	tc := ag.Split(ag.Const(target), 1, 1, 1, 1, 1)
	const eps = 1e-9
	iw := ag.ClipMin(ag.Sub(ag.Minimum(pc[2], tc[2]), ag.Maximum(pc[0], tc[0])), 0)
	ih := ag.ClipMin(ag.Sub(ag.Minimum(pc[3], tc[3]), ag.Maximum(pc[1], tc[1])), 0)
	inter := ag.Mul(iw, ih)
	ap := ag.Mul(ag.Sub(pc[2], pc[0]), ag.Sub(pc[3], pc[1]))
	at := ag.Mul(ag.Sub(tc[2], tc[0]), ag.Sub(tc[3], tc[1]))
	union := ag.AddScalar(ag.Sub(ag.Add(ap, at), inter), eps)
	u := ag.Div(inter, union)
	ew := ag.Sub(ag.Maximum(pc[2], tc[2]), ag.Minimum(pc[0], tc[0]))
	eh := ag.Sub(ag.Maximum(pc[3], tc[3]), ag.Minimum(pc[1], tc[1]))
	enc := ag.AddScalar(ag.Mul(ew, eh), eps)
	g := ag.Sub(u, ag.Div(ag.Sub(enc, union), enc))
	return ag.Reshape(g, pred.Shape()[0])
}
