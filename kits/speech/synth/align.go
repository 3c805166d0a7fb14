package synth

import (
	"context"
	"fmt"
	"math"

	"paddle/core/audio"
	"paddle/core/audio/kaldi"
)

// Word times for espeak-ng, whose command line reports none: each word is
// also spoken alone by the same voice, and the concatenated isolated words
// are aligned to the phrase by dynamic time warping of their log-mel
// frames (10 ms). A word of the phrase spans the frames aligned to that
// word's frames. The flite test checks the method against flite's own word
// times.

// alignRate is the rate the alignment features are computed at.
const alignRate = 16000

// SayWordsAligned speaks words as one phrase with voice v and finds each
// word's span by aligning the words spoken alone to the phrase (any
// engine; connected clips use it for espeak-ng).
func (e Engines) SayWordsAligned(ctx context.Context, words []string, v Voice) (*audio.Audio, []Span, error) {
	a, err := e.Say(ctx, joinWords(words), v)
	if err != nil {
		return nil, nil, err
	}
	parts := make([][]float32, len(words))
	for i, w := range words {
		b, err := e.Say(ctx, w, v)
		if err != nil {
			return nil, nil, err
		}
		if parts[i], err = monoAt(b, alignRate); err != nil {
			return nil, nil, err
		}
		if parts[i] = Trim(parts[i], -45, 0); len(parts[i]) == 0 {
			return nil, nil, fmt.Errorf("%s %q (%s): silent", v.Engine, w, v)
		}
	}
	x, err := monoAt(a, alignRate)
	if err != nil {
		return nil, nil, err
	}
	spans, err := alignWords(x, parts, alignRate)
	if err != nil {
		return nil, nil, fmt.Errorf("%s %q (%s): %w", v.Engine, joinWords(words), v, err)
	}
	return a, spans, nil
}

func joinWords(w []string) string {
	s := ""
	for i, x := range w {
		if i > 0 {
			s += " "
		}
		s += x
	}
	return s
}

func monoAt(a *audio.Audio, rate int) ([]float32, error) {
	if a.Rate != rate {
		var err error
		if a, err = a.Resample(rate); err != nil {
			return nil, err
		}
	}
	return a.Mono(), nil
}

// alignFeatures are mean-normalised log-mel frames (40 bins, 25 ms every
// 10 ms, no dither).
func alignFeatures(x []float32, rate int) ([][]float64, error) {
	o := kaldi.Defaults()
	o.SampleFrequency = float64(rate)
	o.NumMelBins = 40
	o.Dither = 0
	o.HighFreq = 0
	o.LowFreq = 20
	o.SubtractMean = true
	s := make([]float64, len(x))
	for i, v := range x {
		s[i] = float64(v) * audio.KaldiScale
	}
	return kaldi.Fbank(s, o)
}

// alignWords finds the spans (seconds into x) of parts, the phrase's words
// spoken alone, in phrase x: x is trimmed of its leading and trailing
// silence, the parts' frames (concatenated) are aligned to it by DTW, and
// word i spans the first to the last phrase frame aligned to its frames.
func alignWords(x []float32, parts [][]float32, rate int) ([]Span, error) {
	lo, hi := trimBounds(x, -45)
	if hi-lo < rate/10 {
		return nil, fmt.Errorf("phrase of %d samples is (almost) silent", len(x))
	}
	q, err := alignFeatures(x[lo:hi], rate)
	if err != nil {
		return nil, err
	}
	var ref [][]float64
	var owner []int
	for i, p := range parts {
		f, err := alignFeatures(p, rate)
		if err != nil {
			return nil, err
		}
		if len(f) == 0 {
			return nil, fmt.Errorf("word %d is shorter than a frame", i)
		}
		ref = append(ref, f...)
		for range f {
			owner = append(owner, i)
		}
	}
	if len(q) == 0 {
		return nil, fmt.Errorf("phrase shorter than a frame")
	}
	path := dtw(ref, q)
	first := make([]int, len(parts))
	last := make([]int, len(parts))
	for i := range first {
		first[i], last[i] = -1, -1
	}
	for _, p := range path { // p = (ref frame, phrase frame), in order
		w := owner[p[0]]
		if first[w] < 0 {
			first[w] = p[1]
		}
		last[w] = p[1]
	}
	const shift = 0.01 // frame shift (s)
	off := float64(lo) / float64(rate)
	spans := make([]Span, len(parts))
	for i := range parts {
		st := off + float64(first[i])*shift
		en := off + float64(last[i])*shift + 0.025
		if i > 0 && first[i] == last[i-1] { // a shared frame: split it
			st = off + float64(first[i])*shift + 0.0125
		}
		spans[i] = Span{st, min(en, float64(hi)/float64(rate))}
	}
	for i := 1; i < len(spans); i++ { // word i starts where word i-1 ends
		m := (spans[i-1].End + spans[i].Start) / 2
		spans[i-1].End, spans[i].Start = m, m
	}
	return spans, nil
}

// trimBounds is the sample range Trim(x, thresholdDB, 0) keeps.
func trimBounds(x []float32, thresholdDB float64) (int, int) {
	var peak float64
	for _, v := range x {
		peak = math.Max(peak, math.Abs(float64(v)))
	}
	th := peak * math.Pow(10, thresholdDB/20)
	lo, hi := 0, len(x)
	for lo < hi && math.Abs(float64(x[lo])) < th {
		lo++
	}
	for hi > lo && math.Abs(float64(x[hi-1])) < th {
		hi--
	}
	return lo, hi
}

// dtw aligns a (n frames) to b (m frames) with steps (1,0), (0,1), (1,1)
// under Euclidean frame distance, from (0,0) to (n-1,m-1), and returns the
// path as (i, j) pairs in order.
func dtw(a, b [][]float64) [][2]int {
	n, m := len(a), len(b)
	cost := make([]float64, n*m)
	from := make([]uint8, n*m) // 0 diagonal, 1 from i-1, 2 from j-1
	for i := range n {
		for j := range m {
			var d float64
			for k := range a[i] {
				e := a[i][k] - b[j][k]
				d += e * e
			}
			d = math.Sqrt(d)
			best, dir := 0.0, uint8(0)
			switch {
			case i == 0 && j == 0:
			case i == 0:
				best, dir = cost[j-1], 2
			case j == 0:
				best, dir = cost[(i-1)*m], 1
			default:
				best = cost[(i-1)*m+j-1]
				if c := cost[(i-1)*m+j]; c < best {
					best, dir = c, 1
				}
				if c := cost[i*m+j-1]; c < best {
					best, dir = c, 2
				}
			}
			cost[i*m+j] = best + d
			from[i*m+j] = dir
		}
	}
	var path [][2]int
	i, j := n-1, m-1
	for {
		path = append(path, [2]int{i, j})
		if i == 0 && j == 0 {
			break
		}
		switch from[i*m+j] {
		case 0:
			i, j = i-1, j-1
		case 1:
			i--
		default:
			j--
		}
	}
	for l, r := 0, len(path)-1; l < r; l, r = l+1, r-1 {
		path[l], path[r] = path[r], path[l]
	}
	return path
}
