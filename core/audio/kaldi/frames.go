package kaldi

import (
	"math"
	"math/rand/v2"
)

// epsilon is numeric_limits<float>::epsilon(), the floor Kaldi puts under
// every energy before the log, in float32 and float64 runs alike.
const epsilon = 1.1920928955078125e-07

// numFrames is torchaudio's _get_strided frame count.
func numFrames(n int, g frameGeometry, snip bool) int {
	if snip {
		if n < g.size {
			return 0
		}
		return 1 + (n-g.size)/g.shift
	}
	return (n + g.shift/2) / g.shift
}

// sampleAt returns sample p of the reflect-padded signal torchaudio frames
// when snip_edges is false: pad = size/2 - shift/2 samples mirrored before
// the start (x[pad-1], ..., x[0]) and the reversed signal after the end.
func sampleAt(x []float64, p, pad int) float64 {
	q := p - pad
	n := len(x)
	switch {
	case q < 0:
		return x[-q-1]
	case q < n:
		return x[q]
	default:
		return x[2*n-1-q]
	}
}

// window returns the window function of the given type and size (float64,
// computed as torch does: arange * (2π/(N-1)), cos, scale, offset).
func window(kind string, n int, blackmanCoeff float64) []float64 {
	w := make([]float64, n)
	c := math.Pi * 2 / float64(n-1)
	switch kind {
	case Hanning, Povey:
		for i := range w {
			w[i] = math.Cos(float64(i)*c)*-0.5 + 0.5
			if kind == Povey {
				w[i] = math.Pow(w[i], 0.85)
			}
		}
	case Hamming:
		for i := range w {
			w[i] = math.Cos(float64(i)*c)*-0.46 + 0.54
		}
	case Rectangular:
		for i := range w {
			w[i] = 1
		}
	case Blackman:
		for i := range w {
			fi := float64(i)
			w[i] = blackmanCoeff - 0.5*math.Cos(c*fi) + (0.5-blackmanCoeff)*math.Cos(2*c*fi)
		}
	}
	return w
}

// framer cuts frames and applies dither, DC removal, pre-emphasis and the window.
type framer struct {
	o   *Options
	g   frameGeometry
	win []float64
	rng *rand.Rand
	// logEnergyFloor is log(energy_floor), or -Inf when energy_floor is 0.
	logEnergyFloor float64
}

func newFramer(o *Options, g frameGeometry) *framer {
	f := &framer{o: o, g: g, win: window(o.WindowType, g.size, o.BlackmanCoeff), logEnergyFloor: math.Inf(-1)}
	if o.Dither != 0 {
		f.rng = rand.New(rand.NewPCG(o.Seed, 0x6b616c6469))
	}
	if o.EnergyFloor != 0 {
		f.logEnergyFloor = math.Log(o.EnergyFloor)
	}
	return f
}

// frame fills dst (length g.padded) with frame i of x, processed, and returns
// its log energy (raw or windowed, as raw_energy says).
func (f *framer) frame(dst, x []float64, i int) float64 {
	g, o := f.g, f.o
	fr := dst[:g.size]
	start := i * g.shift
	if o.SnipEdges {
		copy(fr, x[start:start+g.size])
	} else {
		pad := g.size/2 - g.shift/2
		for j := range fr {
			fr[j] = sampleAt(x, start+j, pad)
		}
	}
	if f.rng != nil {
		for j := range fr {
			fr[j] += f.rng.NormFloat64() * o.Dither
		}
	}
	if o.RemoveDCOffset {
		var s float64
		for _, v := range fr {
			s += v
		}
		mean := s / float64(len(fr))
		for j := range fr {
			fr[j] -= mean
		}
	}
	var logE float64
	if o.RawEnergy {
		logE = f.logEnergy(fr)
	}
	if c := o.PreemphasisCoefficient; c != 0 {
		for j := len(fr) - 1; j > 0; j-- {
			fr[j] -= c * fr[j-1]
		}
		fr[0] -= c * fr[0]
	}
	for j := range fr {
		fr[j] *= f.win[j]
	}
	clear(dst[g.size:])
	if !o.RawEnergy {
		logE = f.logEnergy(dst)
	}
	return logE
}

// logEnergy is log(max(sum x², eps)), floored at log(energy_floor).
func (f *framer) logEnergy(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v * v
	}
	return max(math.Log(max(s, epsilon)), f.logEnergyFloor)
}
