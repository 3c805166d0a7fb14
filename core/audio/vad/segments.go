// Package vad finds the speech in a recording (voice activity detection):
// the Silero VAD ONNX models run through core/runtime (Silero), an
// energy-based detector with an adaptive noise floor (Energy) for when no
// model is at hand, and Silero's post-processing of per-window speech
// probabilities into segments (Timestamps, as silero-vad's
// get_speech_timestamps).
//
// Where things are:
//
//	segments.go  Options, Segment, Timestamps (the post-processing)
//	silero.go    Silero: window loop with context samples and recurrent state
//	energy.go    Energy: frame log-energy, noise floor, hangover
package vad

import (
	"math"
	"slices"
)

// Segment is a stretch of speech, in samples at the rate the detector ran at:
// [Start, End).
type Segment struct {
	Start, End int
}

// Options are the post-processing parameters of silero-vad's
// get_speech_timestamps, with its names and defaults (DefaultOptions).
type Options struct {
	// Threshold: a window with probability >= Threshold is speech.
	Threshold float64
	// NegThreshold: inside speech, a window below it counts as silence;
	// 0 means max(Threshold-0.15, 0.01).
	NegThreshold float64
	// MinSpeechMs: shorter segments are dropped (the comparison is strict,
	// as upstream's: a segment must be longer than this).
	MinSpeechMs float64
	// MaxSpeechS: longer segments are split at the longest silence longer
	// than MinSilenceAtMaxSpeechMs, else cut just before; 0 means no limit.
	MaxSpeechS float64
	// MinSilenceMs: silence shorter than this does not end a segment.
	MinSilenceMs float64
	// SpeechPadMs pads each segment on both sides (halving the gap when two
	// segments are closer than twice the pad).
	SpeechPadMs float64
	// MinSilenceAtMaxSpeechMs: the shortest silence a MaxSpeechS split may use.
	MinSilenceAtMaxSpeechMs float64
}

// DefaultOptions returns get_speech_timestamps' defaults: threshold 0.5,
// neg_threshold threshold-0.15, min_speech_duration_ms 250, no maximum,
// min_silence_duration_ms 100, speech_pad_ms 30, min_silence_at_max_speech 98.
func DefaultOptions() Options {
	return Options{Threshold: 0.5, MinSpeechMs: 250, MinSilenceMs: 100, SpeechPadMs: 30, MinSilenceAtMaxSpeechMs: 98}
}

// negThreshold is the effective exit threshold.
func (o Options) negThreshold() float64 {
	if o.NegThreshold > 0 {
		return o.NegThreshold
	}
	return max(o.Threshold-0.15, 0.01)
}

// Timestamps turns per-window speech probabilities (window i covers samples
// [i·window, (i+1)·window) of a signal of n samples at rate Hz) into speech
// segments, step for step as silero-vad's get_speech_timestamps (v5.1, with
// its max_speech_duration_s split on the longest silence).
func Timestamps(probs []float32, window, n, rate int, o Options) []Segment {
	sr := float64(rate)
	minSpeech := sr * o.MinSpeechMs / 1000
	pad := sr * o.SpeechPadMs / 1000
	maxSpeech := math.Inf(1)
	if o.MaxSpeechS > 0 {
		maxSpeech = sr*o.MaxSpeechS - float64(window) - 2*pad
	}
	minSilence := sr * o.MinSilenceMs / 1000
	minSilenceAtMax := sr * o.MinSilenceAtMaxSpeechMs / 1000
	thr, neg := o.Threshold, o.negThreshold()

	type possible struct{ end, dur int }
	var (
		speeches         []Segment
		triggered        bool
		cur              Segment
		have             bool // cur has a start (upstream's non-empty current_speech)
		tempEnd, prevEnd int
		nextStart        int
		possibleEnds     []possible
	)
	for i, pf := range probs {
		p := float64(pf)
		at := window * i
		if p >= thr && tempEnd != 0 {
			if sil := at - tempEnd; float64(sil) > minSilenceAtMax {
				possibleEnds = append(possibleEnds, possible{tempEnd, sil})
			}
			tempEnd = 0
			if nextStart < prevEnd {
				nextStart = at
			}
		}
		if p >= thr && !triggered {
			triggered = true
			cur, have = Segment{Start: at}, true
			continue
		}
		if triggered && float64(at-cur.Start) > maxSpeech {
			if len(possibleEnds) > 0 {
				best := possibleEnds[0]
				for _, pe := range possibleEnds[1:] {
					if pe.dur > best.dur { // first of the longest, as Python's max
						best = pe
					}
				}
				prevEnd = best.end
				cur.End = prevEnd
				speeches = append(speeches, cur)
				cur, have = Segment{}, false
				nextStart = prevEnd + best.dur
				if nextStart < prevEnd+at {
					cur, have = Segment{Start: nextStart}, true
				} else {
					triggered = false
				}
				possibleEnds = slices.DeleteFunc(possibleEnds, func(pe possible) bool { return pe.end <= nextStart })
				prevEnd, nextStart, tempEnd = 0, 0, 0
			} else {
				cur.End = at
				speeches = append(speeches, cur)
				cur, have = Segment{}, false
				prevEnd, nextStart, tempEnd = 0, 0, 0
				triggered = false
				possibleEnds = nil
				continue
			}
		}
		if p < neg && triggered {
			if tempEnd == 0 {
				tempEnd = at
			}
			if float64(at-tempEnd) < minSilence {
				continue
			}
			cur.End = tempEnd
			if float64(cur.End-cur.Start) > minSpeech {
				speeches = append(speeches, cur)
			}
			cur, have = Segment{}, false
			prevEnd, nextStart, tempEnd = 0, 0, 0
			triggered = false
			possibleEnds = nil
			continue
		}
	}
	if have && float64(n-cur.Start) > minSpeech {
		cur.End = n
		speeches = append(speeches, cur)
	}
	// padding: int() truncation of float sums, as upstream
	for i := range speeches {
		s := &speeches[i]
		if i == 0 {
			s.Start = int(math.Max(0, float64(s.Start)-pad))
		}
		if i != len(speeches)-1 {
			next := &speeches[i+1]
			gap := next.Start - s.End
			if float64(gap) < 2*pad {
				half := floorDiv(gap, 2)
				s.End += half
				next.Start = max(0, next.Start-half)
			} else {
				s.End = int(math.Min(float64(n), float64(s.End)+pad))
				next.Start = int(math.Max(0, float64(next.Start)-pad))
			}
		} else {
			s.End = int(math.Min(float64(n), float64(s.End)+pad))
		}
	}
	return speeches
}

// floorDiv is Python's a // b for b > 0.
func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}
