package speech

import (
	"math"
	"sort"
)

// CTC decoding of per-frame log-probabilities (T rows of C classes, blank
// at index blank): greedy best path and prefix beam search (Hannun et al.
// 2014, "First-pass large vocabulary continuous speech recognition using
// bi-directional recurrent DNNs", without a language model).

// ctcGreedy takes the most likely class of each frame, merges repeats and
// drops blanks: the label sequence of the single best path.
func ctcGreedy(logp [][]float32, blank int) []int {
	var out []int
	prev := -1
	for _, row := range logp {
		k := argmax(row)
		if k != prev && k != blank {
			out = append(out, k)
		}
		prev = k
	}
	return out
}

// beamEntry is a prefix's log-probability split by how its paths end: in a
// blank (pb) or in the prefix's last label (pnb).
type beamEntry struct {
	prefix  []int
	pb, pnb float64
}

func (b *beamEntry) total() float64 { return logSumExp(b.pb, b.pnb) }

// ctcPrefixBeam keeps the beam most likely label prefixes frame by frame,
// each scored by the total probability of all paths that collapse to it,
// and returns the best prefix with its log-probability. With beam at least
// the number of distinct prefixes the scores are exact (the test checks
// them against enumerating every path); classes whose log-probability in a
// frame is below pruneLogP are not extended (-Inf: none pruned).
func ctcPrefixBeam(logp [][]float32, blank, beam int, pruneLogP float64) ([]int, float64) {
	beam = max(beam, 1)
	key := func(p []int) string {
		b := make([]byte, 0, 2*len(p))
		for _, v := range p {
			b = append(b, byte(v), byte(v>>8))
		}
		return string(b)
	}
	ninf := math.Inf(-1)
	beams := []*beamEntry{{pb: 0, pnb: ninf}}
	for _, row := range logp {
		next := map[string]*beamEntry{}
		get := func(p []int) *beamEntry {
			k := key(p)
			e, ok := next[k]
			if !ok {
				e = &beamEntry{prefix: p, pb: ninf, pnb: ninf}
				next[k] = e
			}
			return e
		}
		for _, b := range beams {
			tot := b.total()
			for c, lp32 := range row {
				lp := float64(lp32)
				if lp < pruneLogP && c != blank {
					continue
				}
				if c == blank {
					e := get(b.prefix)
					e.pb = logSumExp(e.pb, tot+lp)
					continue
				}
				n := len(b.prefix)
				ext := append(append(make([]int, 0, n+1), b.prefix...), c)
				e := get(ext)
				if n > 0 && b.prefix[n-1] == c {
					// a repeat extends the prefix only after a blank;
					// without one it stays the same prefix
					e.pnb = logSumExp(e.pnb, b.pb+lp)
					s := get(b.prefix)
					s.pnb = logSumExp(s.pnb, b.pnb+lp)
				} else {
					e.pnb = logSumExp(e.pnb, tot+lp)
				}
			}
		}
		beams = beams[:0]
		for _, e := range next {
			beams = append(beams, e)
		}
		sort.Slice(beams, func(i, j int) bool {
			ti, tj := beams[i].total(), beams[j].total()
			if ti != tj {
				return ti > tj
			}
			return key(beams[i].prefix) < key(beams[j].prefix)
		})
		if len(beams) > beam {
			beams = beams[:beam]
		}
	}
	return beams[0].prefix, beams[0].total()
}

func logSumExp(a, b float64) float64 {
	if math.IsInf(a, -1) {
		return b
	}
	if math.IsInf(b, -1) {
		return a
	}
	if a < b {
		a, b = b, a
	}
	return a + math.Log1p(math.Exp(b-a))
}
