package synth

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"paddle/core/audio"
	"paddle/core/hub"
)

// Options configure Run.
type Options struct {
	Rate    int     // output sample rate (16000)
	Seconds float64 // clip length (1)
	Augment Augment
	Workers int // parallel synthesiser processes (0: 1)
	// Noises are background recordings at Rate for mixing into words;
	// Backgrounds are the non-speech ones _silence_ clips are made of.
	Noises, Backgrounds [][]float32
	// Progress, if set, is called after each clip with the number done.
	Progress func(done, total int)
}

// Run synthesises and augments every clip of the plan into dir
// (dir/<label>/<split>_<index>.wav, 16-bit PCM) and writes the list files
// dir/train.list and dir/val.list (`<label>/<file>.wav<TAB><label>` per
// line, in plan order), dir/labels.txt (the classes) and dir/plan.jsonl.
// Clips whose file already exists are kept (a rerun resumes). The WAVs
// depend only on the plan and the options, not on Workers.
func Run(ctx context.Context, eng Engines, clips []Clip, classes []string, dir string, o Options) error {
	o.Rate = cmpOr(o.Rate, 16000)
	if o.Seconds <= 0 {
		o.Seconds = 1
	}
	n := int(math.Round(o.Seconds * float64(o.Rate)))
	var voices []Voice
	for _, c := range clips {
		if c.Label != Silence {
			voices = append(voices, c.Voice)
		}
	}
	if err := eng.Check(voices); err != nil {
		return err
	}
	for _, cl := range classes {
		if err := os.MkdirAll(filepath.Join(dir, cl), 0o755); err != nil {
			return err
		}
	}
	work := make(chan int)
	errs := make(chan error, len(clips))
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for range max(o.Workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				err := makeClip(ctx, eng, clips[i], filepath.Join(dir, clips[i].Name()), n, o)
				if err != nil {
					errs <- fmt.Errorf("clip %d (%s %q, %s): %w", i, clips[i].Label, clips[i].Text, clips[i].Voice, err)
					if errors.Is(err, ErrNoEngine) {
						cancel()
					}
				}
				mu.Lock()
				done++
				if o.Progress != nil {
					o.Progress(done, len(clips))
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for i := range clips {
		select {
		case work <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	close(errs)
	var all []error
	for e := range errs {
		all = append(all, e)
	}
	sort.Slice(all, func(a, b int) bool { return all[a].Error() < all[b].Error() })
	if len(all) > 5 {
		all = append(all[:5], fmt.Errorf("... and %d more clips failed", len(all)-5))
	}
	if err := errors.Join(all...); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return writeLists(dir, clips, classes)
}

// makeClip writes one clip unless its file exists.
func makeClip(ctx context.Context, eng Engines, c Clip, path string, n int, o Options) error {
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	r := rand.New(rand.NewPCG(c.Seed, uint64(c.Index)))
	var x []float32
	if c.Label == Silence {
		x = Background(n, o.Backgrounds, r)
	} else if c.Phrase != "" {
		w, err := connectedWord(ctx, eng, c, o.Rate)
		if err != nil {
			return err
		}
		if x, err = o.Augment.Apply(w, o.Rate, n, o.Noises, r); err != nil {
			return err
		}
	} else {
		a, err := eng.Say(ctx, c.Text, c.Voice)
		if err != nil {
			return err
		}
		if a, err = a.Resample(o.Rate); err != nil {
			return err
		}
		w := Trim(a.Mono(), -45, o.Rate/100)
		if len(w) == 0 {
			return fmt.Errorf("the synthesiser returned silence")
		}
		if x, err = o.Augment.Apply(w, o.Rate, n, o.Noises, r); err != nil {
			return err
		}
	}
	tmp := path + ".tmp"
	if err := audio.WriteWAV(tmp, &audio.Audio{Rate: o.Rate, Channels: [][]float32{x}}, audio.PCM16); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func writeLists(dir string, clips []Clip, classes []string) error {
	files := map[string]*bufio.Writer{}
	var closers []*os.File
	defer func() {
		for _, f := range closers {
			f.Close()
		}
	}()
	plan, err := os.Create(filepath.Join(dir, "plan.jsonl"))
	if err != nil {
		return err
	}
	closers = append(closers, plan)
	pw := bufio.NewWriter(plan)
	enc := json.NewEncoder(pw)
	for _, c := range clips {
		w := files[c.Split]
		if w == nil {
			f, err := os.Create(filepath.Join(dir, c.Split+".list"))
			if err != nil {
				return err
			}
			closers = append(closers, f)
			w = bufio.NewWriter(f)
			files[c.Split] = w
		}
		fmt.Fprintf(w, "%s\t%s\n", c.Name(), c.Label)
		if err := enc.Encode(c); err != nil {
			return err
		}
	}
	for _, w := range append([]*bufio.Writer{pw}, mapValues(files)...) {
		if err := w.Flush(); err != nil {
			return err
		}
	}
	lf, err := os.Create(filepath.Join(dir, "labels.txt"))
	if err != nil {
		return err
	}
	closers = append(closers, lf)
	for _, c := range classes {
		fmt.Fprintln(lf, c)
	}
	for _, f := range closers {
		if err := f.Sync(); err != nil {
			return err
		}
	}
	return nil
}

func mapValues(m map[string]*bufio.Writer) []*bufio.Writer {
	var out []*bufio.Writer
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// LoadNoises reads background recordings from the speech data cache
// (codec2-examples radio and modem recordings, alsa-utils Noise.wav) at
// rate, and also returns the non-speech subset plus three generated noises
// (white, pink-ish, brown-ish; 10 s, seeded). Files that are not there are
// skipped; dataDir "" means $PADDLE_CACHE/data/speech.
func LoadNoises(dataDir string, rate int) (noises, backgrounds [][]float32, err error) {
	if dataDir == "" {
		dataDir = filepath.Join(hub.CacheDir(), "data", "speech")
	}
	type src struct {
		path   string
		raw    bool
		speech bool
	}
	srcs := []src{
		{"alsa/Noise.wav", false, false},
		{"codec2/raw/ve9qrp.raw", true, true}, {"codec2/raw/vk5qi.raw", true, true}, {"codec2/raw/cq_ref.raw", true, true},
		{"codec2/raw/kristoff.raw", true, true}, {"codec2/wav/david4.wav", false, true}, {"codec2/wav/all.wav", false, true},
		{"codec2/raw/test_datac1_006.raw", true, false}, {"codec2/raw/700d_end_over.raw", true, false},
		{"codec2/raw/sine1k_2Hz_spread.raw", true, false},
	}
	for _, s := range srcs {
		p := filepath.Join(dataDir, s.path)
		if _, err := os.Stat(p); err != nil {
			continue
		}
		var a *audio.Audio
		if s.raw {
			a, err = audio.ReadRaw(p, audio.RawFormat{Rate: 8000, Encoding: audio.PCM16})
		} else {
			a, err = audio.ReadWAV(p)
		}
		if err != nil {
			return nil, nil, err
		}
		if a, err = a.Resample(rate); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", p, err)
		}
		x := a.Mono()
		noises = append(noises, x)
		if !s.speech {
			backgrounds = append(backgrounds, x)
		}
	}
	r := rand.New(rand.NewPCG(7, 7))
	for _, leak := range []float64{0, 0.9, 0.99} {
		x := make([]float32, 10*rate)
		var y float64
		for i := range x {
			y = leak*y + r.NormFloat64()*0.1
			x[i] = float32(y)
		}
		Scale(x, -20-RMSdB(x))
		noises = append(noises, x)
		backgrounds = append(backgrounds, x)
	}
	return noises, backgrounds, nil
}
