package speech

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"sync"

	"paddle/core/audio/feature"
	"paddle/core/metric"
)

// asrSet is a manifest with its features computed.
type asrSet struct {
	items []asrItem
	feats [][][]float32
	ids   [][]int64
}

// loadASRSet reads a manifest's audio and computes the features (workers
// files at a time); at most maxClips utterances when maxClips > 0.
func loadASRSet(ctx context.Context, items []asrItem, c ASRFeature, maxClips, workers int) (*asrSet, error) {
	if maxClips > 0 && len(items) > maxClips {
		items = items[:maxClips]
	}
	s := &asrSet{items: items, feats: make([][][]float32, len(items)), ids: make([][]int64, len(items))}
	errs := make([]error, len(items))
	var wg sync.WaitGroup
	next := make(chan int)
	for range max(workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				x, err := loadMono(items[i].Path, c.SampleRate, nil)
				if err == nil {
					s.feats[i], err = asrFeatures(x, c)
				}
				if err != nil {
					errs[i] = fmt.Errorf("%s: %w", items[i].Path, err)
				}
				s.ids[i] = encodeText(items[i].Text)
			}
		}()
	}
	for i := range items {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return s, ctx.Err()
}

// batches groups utterance indices by length (similar lengths pad less) into
// batches of size, in a seeded random order.
func (s *asrSet) batches(size int, r *rand.Rand) [][]int {
	idx := make([]int, len(s.items))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return len(s.feats[idx[a]]) < len(s.feats[idx[b]]) })
	var out [][]int
	for lo := 0; lo < len(idx); lo += size {
		out = append(out, idx[lo:min(lo+size, len(idx))])
	}
	if r != nil {
		r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	}
	return out
}

// ASRReport is an ASR evaluation: corpus CER and WER with their counts.
type ASRReport struct {
	CER            float64 `json:"cer"`
	WER            float64 `json:"wer"`
	CharEdits      int     `json:"char_edits"`
	Chars          int     `json:"chars"`
	WordEdits      int     `json:"word_edits"`
	Words          int     `json:"words"`
	Utterances     int     `json:"utterances"`
	SentenceErrors int     `json:"sentence_errors"`
	Decoding       string  `json:"decoding"`
}

func round5(v float64) float64 { return math.Round(v*1e5) / 1e5 }

// evaluate decodes the set and scores it; hyps receives each utterance's text.
func (r *recognizer) evaluate(s *asrSet, batch int, hyps func(i int, text string)) (ASRReport, error) {
	var e metric.ErrorRates
	for _, b := range s.batches(batch, nil) {
		feats := make([][][]float32, len(b))
		for j, i := range b {
			feats[j] = s.feats[i]
		}
		texts, err := r.decode(feats)
		if err != nil {
			return ASRReport{}, err
		}
		for j, text := range texts {
			e.Add(s.items[b[j]].Text, text)
			if hyps != nil {
				hyps(b[j], text)
			}
		}
	}
	return errorReport(&e, r.dec.DecodingMethod), nil
}

// errorReport turns accumulated error counts into a report.
func errorReport(e *metric.ErrorRates, method string) ASRReport {
	if method == "" {
		method = "ctc_greedy_search"
	}
	return ASRReport{CER: round5(e.CER()), WER: round5(e.WER()), CharEdits: e.CharEdits, Chars: e.Chars, WordEdits: e.WordEdits,
		Words: e.Words, Utterances: e.Utterances, SentenceErrors: e.SentenceErrors, Decoding: method}
}

// featureSpecAugment maps the config's masks to feature.SpecAugment's
// options (a time mask covers at most 20 % of the frames).
func featureSpecAugment(sa ASRSpecAugment) feature.SpecAugmentOptions {
	return feature.SpecAugmentOptions{FreqMasks: sa.FreqMasks, MaxFreq: sa.F, TimeMasks: sa.TimeMasks, MaxTime: sa.T, MaxTimeRatio: 0.2}
}

// specAugment returns a masked copy of the features.
func specAugment(f [][]float32, o feature.SpecAugmentOptions, r *rand.Rand) ([][]float32, error) {
	g := make([][]float64, len(f))
	for t, row := range f {
		g[t] = make([]float64, len(row))
		for j, v := range row {
			g[t][j] = float64(v)
		}
	}
	if err := feature.SpecAugment(g, o, r); err != nil {
		return nil, err
	}
	out := make([][]float32, len(g))
	for t, row := range g {
		out[t] = make([]float32, len(row))
		for j, v := range row {
			out[t][j] = float32(v)
		}
	}
	return out, nil
}
