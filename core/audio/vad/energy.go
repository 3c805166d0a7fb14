package vad

import (
	"fmt"
	"math"
	"slices"
)

// EnergyOptions configure the energy detector (DefaultEnergyOptions).
type EnergyOptions struct {
	FrameMs float64 // analysis frame length (20)
	HopMs   float64 // frame hop; the decision resolution (10)
	// MarginDB: a frame is active when its log energy exceeds the noise
	// floor by this much (12 dB).
	MarginDB float64
	// MinLevelDB: frames quieter than this (dB re full scale, mean square)
	// are never active (-55), so digital silence and faint hum stay silent.
	MinLevelDB float64
	// HangoverMs keeps speech on this long after the last active frame (150),
	// bridging the weak consonants and short gaps inside words.
	HangoverMs float64
	// FloorPercentile: the noise floor starts at this percentile of the
	// file's frame energies (10).
	FloorPercentile float64
	// Post is the segment post-processing (min speech / silence, padding) run
	// on the frame decisions as on Silero's probabilities.
	Post Options
}

// DefaultEnergyOptions returns the energy detector's defaults, with
// DefaultOptions' post-processing.
func DefaultEnergyOptions() EnergyOptions {
	return EnergyOptions{FrameMs: 20, HopMs: 10, MarginDB: 12, MinLevelDB: -55, HangoverMs: 150, FloorPercentile: 10, Post: DefaultOptions()}
}

// digitalSilenceDB: frames at or below this level are digital silence.
const digitalSilenceDB = -90

// FrameEnergies returns the log energy (dB re full scale: 10·log10 of the
// mean square, floored at -100) of frames of frame samples centred on the
// hop slots [i·hop, (i+1)·hop), one per slot started; samples outside x
// count as zeros.
func FrameEnergies(x []float32, frame, hop int) []float64 {
	n := (len(x) + hop - 1) / hop
	e := make([]float64, n)
	for i := range e {
		var s float64
		lo := i*hop + hop/2 - frame/2
		for _, v := range x[max(0, lo):min(len(x), max(0, lo+frame))] {
			s += float64(v) * float64(v)
		}
		e[i] = math.Max(-100, 10*math.Log10(s/float64(frame)+1e-12))
	}
	return e
}

// Energy finds speech by frame log energy against an adaptive noise floor:
// the floor starts at a low percentile of the file's frame energies and then
// follows the frames judged silent (quickly down, slowly up), so stationary
// noise of any level stays below it; a frame more than MarginDB above the
// floor (and above MinLevelDB) is active, speech continues HangoverMs past
// the last active frame, and the frame decisions go through Timestamps with
// o.Post. Segments are in samples of x.
func Energy(x []float32, rate int, o EnergyOptions) ([]Segment, error) {
	if rate <= 0 {
		return nil, fmt.Errorf("energy vad: sample rate %d", rate)
	}
	frame := int(math.Round(float64(rate) * o.FrameMs / 1000))
	hop := int(math.Round(float64(rate) * o.HopMs / 1000))
	if frame < 1 || hop < 1 {
		return nil, fmt.Errorf("energy vad: frame %g ms / hop %g ms are under one sample at %d Hz", o.FrameMs, o.HopMs, rate)
	}
	e := FrameEnergies(x, frame, hop)
	if len(e) == 0 {
		return nil, nil
	}
	// digital silence (zeros, or dither-free fades) neither sets nor moves
	// the floor: it would hold the floor far below any real background
	var audible []float64
	for _, v := range e {
		if v > digitalSilenceDB {
			audible = append(audible, v)
		}
	}
	if len(audible) == 0 {
		return nil, nil
	}
	slices.Sort(audible)
	floor := audible[min(len(audible)-1, int(o.FloorPercentile/100*float64(len(audible))))]
	hang := int(math.Round(o.HangoverMs / o.HopMs))
	probs := make([]float32, len(e))
	left := 0 // hangover frames left
	for i, v := range e {
		if v > floor+o.MarginDB && v > o.MinLevelDB {
			probs[i] = 1
			left = hang
			continue
		}
		if left > 0 {
			probs[i] = 1
			left--
		}
		// the floor follows silent frames: down fast, up slowly
		if v <= digitalSilenceDB {
			continue
		}
		// (frames between half the margin and the margin above it are
		// neither speech nor noise and leave it alone, so weak speech does not
		// lift the floor over itself)
		switch {
		case v < floor:
			floor += 0.3 * (v - floor)
		case v < floor+o.MarginDB/2:
			floor += 0.02 * (v - floor)
		}
	}
	post := o.Post
	post.Threshold, post.NegThreshold = 0.5, 0.5
	return Timestamps(probs, hop, len(x), rate, post), nil
}
