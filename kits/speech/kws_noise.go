package speech

import (
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"paddle/core/audio"
)

// noiseBank holds background recordings at the model's rate, loaded on
// first use (every data worker shares them).
type noiseBank struct {
	o    KWSNoiseOpts
	z    featurizer
	once sync.Once
	clip [][]float32
	err  error
}

// files lists the bank's audio files, sorted, spread to max_files.
func (b *noiseBank) files() ([]string, error) {
	var out []string
	dir := b.o.Dir
	if rest, ok := strings.CutPrefix(dir, "~/"); ok { // configs name the cache as ~/.cache/paddle/...
		if home, err := os.UserHomeDir(); err == nil {
			dir = filepath.Join(home, rest)
		}
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if b.o.Exclude != "" && strings.Contains(p, b.o.Exclude) {
			return nil
		}
		if slices.Contains(audio.Exts, strings.ToLower(filepath.Ext(p))) {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("noise.dir: %w\nhint: scripts/fetch_tuxpaint_sounds.sh fetches the Tux Paint sounds", err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("noise.dir %s: no audio files", dir)
	}
	slices.Sort(out)
	if n := b.o.MaxFiles; n > 0 && n < len(out) {
		picked := make([]string, n)
		for i := range picked {
			picked[i] = out[i*len(out)/n]
		}
		out = picked
	}
	return out, nil
}

func (b *noiseBank) load() error {
	b.once.Do(func() {
		files, err := b.files()
		if err != nil {
			b.err = err
			return
		}
		for _, f := range files {
			x, err := b.z.load(f)
			if err != nil {
				continue // a damaged file is not worth stopping training for
			}
			if power(x) > 1e-8 {
				b.clip = append(b.clip, x)
			}
		}
		if len(b.clip) == 0 {
			b.err = fmt.Errorf("noise.dir %s: no readable non-silent audio", b.o.Dir)
		}
	})
	return b.err
}

// mix adds noise to x in place, with probability prob.
func (b *noiseBank) mix(x []float32, r *rand.Rand) error {
	if r.Float64() >= b.o.Prob {
		return nil
	}
	if err := b.load(); err != nil {
		return err
	}
	n := b.clip[r.IntN(len(b.clip))]
	snr := b.o.SNRdB[0] + (b.o.SNRdB[1]-b.o.SNRdB[0])*r.Float64()
	off := r.IntN(len(n))
	seg := make([]float32, len(x))
	for i := range seg { // loop short recordings
		seg[i] = n[(off+i)%len(n)]
	}
	ps, pn := power(x), power(seg)
	if ps == 0 || pn == 0 {
		return nil
	}
	g := float32(math.Sqrt(ps / pn / math.Pow(10, snr/10)))
	for i := range x {
		x[i] += g * seg[i]
	}
	return nil
}

// power is the mean square of x.
func power(x []float32) float64 {
	s := 0.0
	for _, v := range x {
		s += float64(v) * float64(v)
	}
	return s / float64(max(len(x), 1))
}
