package quant

import (
	"fmt"
	"math"
)

// Calibration statistics of one activation and the ways of turning them
// into a uint8 range.

// histBins is the number of bins of an |x| histogram (TensorRT's 2048).
const histBins = 2048

// stats gathers an activation's range (pass one) and, for the methods that
// need it, the histogram of |x| over [0, amax] (pass two).
type stats struct {
	lo, hi float64
	hist   []float64
}

func newStats() *stats { return &stats{lo: math.Inf(1), hi: math.Inf(-1)} }

func (s *stats) observeRange(v []float32) {
	for _, x := range v {
		f := float64(x)
		if f < s.lo {
			s.lo = f
		}
		if f > s.hi {
			s.hi = f
		}
	}
}

func (s *stats) amax() float64 { return max(math.Abs(s.lo), math.Abs(s.hi)) }

func (s *stats) observeHist(v []float32) {
	if s.hist == nil {
		s.hist = make([]float64, histBins)
	}
	a := s.amax()
	if a == 0 {
		s.hist[0] += float64(len(v))
		return
	}
	k := histBins / a
	for _, x := range v {
		i := int(math.Abs(float64(x)) * k)
		s.hist[min(i, histBins-1)]++
	}
}

// Methods are the calibration methods, in the order --method lists them.
var Methods = []string{"minmax", "percentile", "kl", "mse"}

// needsHist reports whether method needs the second, histogram pass.
func needsHist(method string) bool { return method != "minmax" }

// clipRange returns the real range [lo, hi] (lo ≤ 0 ≤ hi) that method
// keeps of the activation: minmax its whole range; the others clip |x| at
// a threshold T chosen on the histogram (percentile: the pct-th
// percentile of |x|; kl: TensorRT's entropy calibration; mse: the least
// expected squared quantization error).
func (s *stats) clipRange(method string, pct float64) (float64, float64, error) {
	lo, hi := min(s.lo, 0), max(s.hi, 0)
	if math.IsInf(s.lo, 1) {
		return 0, 0, fmt.Errorf("never observed")
	}
	if method == "minmax" || s.amax() == 0 {
		return lo, hi, nil
	}
	levels := 256 // one-sided (x ≥ 0): all uint8 steps cover [0, T]
	if s.lo < 0 {
		levels = 128
	}
	var bin int
	switch method {
	case "percentile":
		bin = percentileBin(s.hist, pct)
	case "kl":
		bin = klBin(s.hist, levels)
	case "mse":
		bin = mseBin(s.hist, levels)
	default:
		return 0, 0, fmt.Errorf("method %q: want one of %v", method, Methods)
	}
	t := float64(bin) / histBins * s.amax()
	return max(lo, -t), min(hi, t), nil
}

// percentileBin is the end (exclusive) of the bins holding pct percent of the mass.
func percentileBin(h []float64, pct float64) int {
	total := 0.0
	for _, c := range h {
		total += c
	}
	acc := 0.0
	for i, c := range h {
		acc += c
		if acc >= total*pct/100 {
			return i + 1
		}
	}
	return len(h)
}

// klBin is TensorRT's entropy calibration: the threshold bin i (levels ≤
// i ≤ len(h)) minimising KL(P‖Q), P the histogram cut at i with the
// outliers added to its last bin, Q P quantized to levels bins and
// expanded back over P's non-empty bins.
func klBin(h []float64, levels int) int {
	best, bestKL := len(h), math.Inf(1)
	p := make([]float64, len(h))
	q := make([]float64, len(h))
	for i := levels; i <= len(h); i++ {
		copy(p, h[:i])
		for _, c := range h[i:] {
			p[i-1] += c
		}
		// quantize h[:i] (without the outliers) into levels groups
		for j := range q[:i] {
			q[j] = 0
		}
		for g := range levels {
			a, b := g*i/levels, (g+1)*i/levels
			sum, nz := 0.0, 0
			for j := a; j < b; j++ {
				sum += h[j]
				if h[j] > 0 {
					nz++
				}
			}
			for j := a; j < b; j++ {
				if h[j] > 0 {
					q[j] = sum / float64(nz)
				}
			}
		}
		kl := klDiv(p[:i], q[:i])
		if kl < bestKL {
			best, bestKL = i, kl
		}
	}
	return best
}

// klDiv is KL(p‖q) of the normalised histograms (bins where p is empty
// count nothing; where q is empty and p is not, a large penalty).
func klDiv(p, q []float64) float64 {
	sp, sq := 0.0, 0.0
	for i := range p {
		sp += p[i]
		sq += q[i]
	}
	if sp == 0 || sq == 0 {
		return math.Inf(1)
	}
	d := 0.0
	for i := range p {
		if p[i] == 0 {
			continue
		}
		pi := p[i] / sp
		qi := q[i] / sq
		if qi == 0 {
			qi = 1e-12
		}
		d += pi * math.Log(pi/qi)
	}
	return d
}

// mseBin is the threshold bin minimising the expected squared error of
// quantizing |x| into levels steps on [0, T]: step²/12 inside, the clipped
// distance beyond (bin centres stand for the values).
func mseBin(h []float64, levels int) int {
	best, bestErr := len(h), math.Inf(1)
	for i := 1; i <= len(h); i++ {
		t := float64(i)
		step := t / float64(levels-1)
		err := 0.0
		for j, c := range h {
			if c == 0 {
				continue
			}
			x := float64(j) + 0.5
			if x > t {
				err += c * (x - t) * (x - t)
			} else {
				err += c * step * step / 12
			}
		}
		if err < bestErr {
			best, bestErr = i, err
		}
	}
	return best
}

// uint8Params are the scale and zero point of [lo, hi] (lo ≤ 0 ≤ hi) on uint8.
func uint8Params(lo, hi float64) (scale float64, zero int) {
	if hi-lo <= 0 {
		return 1, 0
	}
	scale = (hi - lo) / 255
	zero = int(math.Round(-lo / scale))
	return scale, min(max(zero, 0), 255)
}
