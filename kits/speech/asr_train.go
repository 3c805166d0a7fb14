package speech

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"paddle/core/ag"
	"paddle/core/audio/feature"
	"paddle/core/metric"
	"paddle/core/nn"
	"paddle/core/optim"
	"paddle/core/tensor"
	"paddle/core/workflow"
)

// asrSet is a manifest with its features computed.
type asrSet struct {
	items []asrItem
	feats [][][]float32
	ids   [][]int64
}

// loadASRSet reads a manifest's audio and computes the features (workers
// files at a time); at most maxClips utterances when maxClips > 0.
func loadASRSet(ctx context.Context, items []asrItem, c *ASRConfig, maxClips, workers int) (*asrSet, error) {
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
				x, err := loadMono(items[i].Path, c.Feature.SampleRate, nil)
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
func (r *recognizer) evaluate(s *asrSet, batch int, hyps func(i int, text string)) ASRReport {
	var e metric.ErrorRates
	for _, b := range s.batches(batch, nil) {
		feats := make([][][]float32, len(b))
		for j, i := range b {
			feats[j] = s.feats[i]
		}
		for j, text := range r.decode(feats) {
			e.Add(s.items[b[j]].Text, text)
			if hyps != nil {
				hyps(b[j], text)
			}
		}
	}
	method := r.cfg.Decoding.DecodingMethod
	if method == "" {
		method = "ctc_greedy_search"
	}
	return ASRReport{CER: round5(e.CER()), WER: round5(e.WER()), CharEdits: e.CharEdits, Chars: e.Chars, WordEdits: e.WordEdits,
		Words: e.Words, Utterances: e.Utterances, SentenceErrors: e.SentenceErrors, Decoding: method}
}

// trainASR trains the config's model on its train manifest, evaluates the
// dev manifest (greedy) after each epoch and saves output_dir/latest (with
// config.yaml). It returns the last evaluation.
func trainASR(ctx context.Context, c *ASRConfig, yml []byte, outDir string, workers int) (ASRReport, error) {
	var rep ASRReport
	trainItems, err := readManifest(c.Data.TrainManifest)
	if err != nil {
		return rep, fmt.Errorf("%s: data.train_manifest: %w", c.file, err)
	}
	devItems, err := readManifest(c.Data.DevManifest)
	if err != nil {
		return rep, fmt.Errorf("%s: data.dev_manifest: %w", c.file, err)
	}
	t0 := time.Now()
	train, err := loadASRSet(ctx, trainItems, c, c.Training.MaxClips, workers)
	if err != nil {
		return rep, err
	}
	dev, err := loadASRSet(ctx, devItems, c, 0, workers)
	if err != nil {
		return rep, err
	}
	slog.Info("asr features", "train", len(train.items), "dev", len(dev.items), "s", time.Since(t0).Seconds())
	model, err := newASRModel(c)
	if err != nil {
		return rep, err
	}
	bs := max(c.Training.BatchSize, 1)
	epochs := max(c.Training.NEpoch, 1)
	steps := (len(train.items) + bs - 1) / bs
	opt, sched, err := optim.Build(c.Training.Optim, model.Params(), epochs, steps)
	if err != nil {
		return rep, fmt.Errorf("%s: training.optim: %w", c.file, err)
	}
	r := rand.New(rand.NewPCG(c.Training.Seed, 0x7a1))
	greedy := *c
	greedy.Decoding.DecodingMethod = "ctc_greedy_search"
	step := 0
	for epoch := range epochs {
		tick, lossSum := time.Now(), 0.0
		for _, b := range train.batches(bs, r) {
			if ctx.Err() != nil {
				return rep, ctx.Err()
			}
			feats, texts := make([][][]float32, len(b)), make([][]int64, len(b))
			for j, i := range b {
				feats[j], texts[j] = train.feats[i], train.ids[i]
				if sa := c.Training.SpecAugment; sa != nil {
					if feats[j], err = specAugment(feats[j], feature.SpecAugmentOptions{FreqMasks: sa.FreqMasks, MaxFreq: sa.F,
						TimeMasks: sa.TimeMasks, MaxTime: sa.T, MaxTimeRatio: 0.2}, r); err != nil {
						return rep, fmt.Errorf("%s: training.spec_augment: %w", c.file, err)
					}
				}
			}
			x, lengths, tg, tl := batchTensors(feats, texts)
			lp, outLens := model.forward(ag.Const(x), lengths, true)
			il := make([]int64, len(outLens))
			for i, v := range outLens {
				il[i] = int64(v)
			}
			loss := nn.CTCLoss(lp, tg, tensor.FromSlice(il, len(il)), tl, nn.CTCOptions{ZeroInfinity: true})
			lv := loss.Item()
			if math.IsNaN(lv) || math.IsInf(lv, 0) {
				return rep, fmt.Errorf("epoch %d step %d: loss is %v; lower the learning rate", epoch+1, step+1, lv)
			}
			loss.Backward()
			opt.SetLR(sched.LR(step))
			opt.Step()
			opt.ZeroGrad()
			lossSum += lv
			step++
		}
		rep = (&recognizer{cfg: &greedy, model: model}).evaluate(dev, 32, nil)
		slog.Info("asr epoch", "epoch", epoch+1, "loss", round5(lossSum/float64(steps)), "dev_cer", rep.CER, "dev_wer", rep.WER,
			"s", math.Round(time.Since(tick).Seconds()))
	}
	if outDir != "" {
		if err := workflow.SaveCheckpoint(filepath.Join(outDir, "latest"), model, opt, workflow.State{Epoch: epochs, Step: step}, yml); err != nil {
			return rep, err
		}
	}
	return rep, nil
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
