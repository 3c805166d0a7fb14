package speech

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	goruntime "runtime"
	"sync"

	"paddle/core/audio"
	"paddle/core/audio/feature"
	"paddle/core/audio/kaldi"
	"paddle/core/data"
	"paddle/core/tensor"
)

// clsFeaturizer turns a whole recording into log-mel frames and cuts the
// model's windows from them. Unlike keyword spotting, a clip's features are
// computed once over the whole file (CMN over the whole file too) and the
// windows are cut from the frames, so features can be cached.
type clsFeaturizer struct {
	rate int
	opts kaldi.Options
	mels int
	win  int // window length in frames
}

func newClsFeaturizer(g KWSGlobal, f FeatureOpts) clsFeaturizer {
	o := f.kaldi(g.SampleRate)
	n := int(math.Round(g.ClipSeconds * float64(g.SampleRate)))
	shift := int(o.SampleFrequency * o.FrameShift / 1000)
	win := int(o.SampleFrequency * o.FrameLength / 1000)
	t := (n + shift/2) / shift
	if o.SnipEdges {
		t = 1 + (n-win)/shift
	}
	return clsFeaturizer{rate: g.SampleRate, opts: o, mels: f.NumMelBins, win: max(t, 1)}
}

// load reads a file as mono at the featurizer's rate.
func (z clsFeaturizer) load(path string) ([]float32, error) {
	a, err := audio.Read(path, nil)
	if err != nil {
		return nil, err
	}
	if a.Rate != z.rate {
		if a, err = a.Resample(z.rate); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return a.Mono(), nil
}

// logmel returns the log-mel frames of x, row-major (frames × mels); dither
// is seeded by seed. A recording shorter than one frame is zero-padded to one.
func (z clsFeaturizer) logmel(x []float32, seed uint64) ([]float32, int, error) {
	wlen := int(z.opts.SampleFrequency * z.opts.FrameLength / 1000)
	s := make([]float64, max(len(x), wlen))
	for i, v := range x {
		s[i] = float64(v) * audio.KaldiScale
	}
	o := z.opts
	o.Seed = seed
	fb, err := kaldi.Fbank(s, o)
	if err != nil {
		return nil, 0, err
	}
	out := make([]float32, 0, len(fb)*z.mels)
	for _, r := range fb {
		for _, v := range r {
			out = append(out, float32(v))
		}
	}
	return out, len(fb), nil
}

// fileFeatures loads path and computes its frames (dither seeded by the
// path, so a file always gives the same features).
func (z clsFeaturizer) fileFeatures(path string) ([]float32, int, error) {
	x, err := z.load(path)
	if err != nil {
		return nil, 0, err
	}
	return z.samplesFeatures(path, x)
}

func (z clsFeaturizer) samplesFeatures(name string, x []float32) ([]float32, int, error) {
	h := fnv.New64a()
	h.Write([]byte(filepath.Base(name)))
	f, n, err := z.logmel(x, h.Sum64())
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", name, err)
	}
	return f, n, nil
}

// windowStarts lists the windows that cover n frames: one (tiled) window
// when n ≤ win, else windows every win/2 frames, the last flush with the end.
func windowStarts(n, win int) []int {
	if n <= win {
		return []int{0}
	}
	hop := max(win/2, 1)
	var out []int
	for at := 0; ; at += hop {
		if at+win >= n {
			out = append(out, n-win)
			return out
		}
		out = append(out, at)
	}
}

// cutWindow copies win frames starting at frame start into dst; a clip
// shorter than the window is repeated (frame (start+i) mod n), which keeps
// the pooled statistics of a short clip those of its own frames.
func cutWindow(dst, feats []float32, n, mels, win, start int) {
	for i := range win {
		j := (start + i) % n
		copy(dst[i*mels:(i+1)*mels], feats[j*mels:(j+1)*mels])
	}
}

// clsFeatureStore holds the frames of every clip of a list, computed once
// and optionally cached on disk.
type clsFeatureStore struct {
	feats [][]float32
	n     []int
}

// loadClsFeatures computes (or reads from cacheDir) the features of items.
func loadClsFeatures(items []clsItem, z clsFeaturizer, cacheDir string) (*clsFeatureStore, error) {
	var cache string
	if cacheDir != "" {
		h := sha256.New()
		fmt.Fprintf(h, "v1 %d %d %+v\n", z.rate, z.mels, z.opts)
		for _, it := range items {
			fmt.Fprintln(h, it.Path)
		}
		cache = filepath.Join(cacheDir, "clsfeat-"+hex.EncodeToString(h.Sum(nil))[:16]+".bin")
		if s, err := readFeatureCache(cache, len(items), z.mels); err == nil {
			return s, nil
		} else if !errors.Is(err, os.ErrNotExist) {
			slog.Warn("feature cache unreadable, recomputing", "file", cache, "err", err)
		}
	}
	s := &clsFeatureStore{feats: make([][]float32, len(items)), n: make([]int, len(items))}
	workers := max(goruntime.GOMAXPROCS(0), 1)
	errs := make([]error, len(items))
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				s.feats[i], s.n[i], errs[i] = z.fileFeatures(items[i].Path)
			}
		}()
	}
	for i := range items {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if cache != "" {
		if err := writeFeatureCache(cache, s); err != nil {
			slog.Warn("feature cache not written", "file", cache, "err", err)
		}
	}
	return s, nil
}

// The cache file: per clip a uint32 frame count and frames×mels float32, little-endian.
func writeFeatureCache(path string, s *clsFeatureStore) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for i, v := range s.feats {
		binary.Write(w, binary.LittleEndian, uint32(s.n[i]))
		binary.Write(w, binary.LittleEndian, v)
	}
	if err := errors.Join(w.Flush(), f.Close()); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}

func readFeatureCache(path string, items, mels int) (*clsFeatureStore, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	s := &clsFeatureStore{feats: make([][]float32, items), n: make([]int, items)}
	for i := range items {
		var n uint32
		if err := binary.Read(r, binary.LittleEndian, &n); err != nil {
			return nil, fmt.Errorf("clip %d: %w", i, err)
		}
		if n == 0 || n > 1<<24 {
			return nil, fmt.Errorf("clip %d: %d frames", i, n)
		}
		s.n[i], s.feats[i] = int(n), make([]float32, int(n)*mels)
		if err := binary.Read(r, binary.LittleEndian, s.feats[i]); err != nil {
			return nil, fmt.Errorf("clip %d: %w", i, err)
		}
	}
	if _, err := r.ReadByte(); err != io.EOF {
		return nil, fmt.Errorf("trailing data")
	}
	return s, nil
}

// ClsSample is one clip's windows (W, 1, T, F) and class.
type ClsSample struct {
	Path  string
	Label int
	X     *tensor.Tensor
}

// ClsBatch is a collated batch: all windows (ΣW, 1, T, F), the clip each
// window belongs to, and one label per clip.
type ClsBatch struct {
	X      *tensor.Tensor
	Owner  []int
	Labels *tensor.Tensor // (N) int64
	Paths  []string
}

// clsDataset serves the clips of a list from their cached features. In
// training each clip gives one window at a random position with
// SpecAugment; in evaluation every window of windowStarts.
type clsDataset struct {
	items []clsItem
	store *clsFeatureStore
	z     clsFeaturizer
	train bool
	spec  *feature.SpecAugmentOptions
}

var _ data.RandDataset[ClsSample] = (*clsDataset)(nil)

func (d *clsDataset) Len() int { return len(d.items) }

// Get returns every window of clip i.
func (d *clsDataset) Get(i int) (ClsSample, error) {
	s, _, err := d.get(i, nil)
	return s, err
}

// GetRand returns one augmented window when training, else Get's windows.
func (d *clsDataset) GetRand(i int, r *rand.Rand) (ClsSample, bool, error) {
	if !d.train {
		r = nil
	}
	return d.get(i, r)
}

func (d *clsDataset) get(i int, r *rand.Rand) (ClsSample, bool, error) {
	it := d.items[i]
	x, err := clsWindows(d.store.feats[i], d.store.n[i], d.z, r, d.spec)
	if err != nil {
		return ClsSample{}, false, fmt.Errorf("%s: %w", it.Path, err)
	}
	return ClsSample{Path: it.Path, Label: it.Label, X: x}, true, nil
}

// clsWindows cuts the windows of one clip: with r, one window at a random
// start (SpecAugment on it when spec is set); without, every window.
func clsWindows(feats []float32, n int, z clsFeaturizer, r *rand.Rand, spec *feature.SpecAugmentOptions) (*tensor.Tensor, error) {
	var starts []int
	if r != nil {
		if n > z.win {
			starts = []int{r.IntN(n - z.win + 1)}
		} else {
			starts = []int{r.IntN(n)}
		}
	} else {
		starts = windowStarts(n, z.win)
	}
	per := z.win * z.mels
	out := tensor.New(tensor.Float32, len(starts), 1, z.win, z.mels)
	v := out.F32()
	for w, st := range starts {
		cutWindow(v[w*per:(w+1)*per], feats, n, z.mels, z.win, st)
	}
	if r != nil && spec != nil {
		rows := make([][]float64, z.win)
		for t := range rows {
			rows[t] = make([]float64, z.mels)
			for j := range rows[t] {
				rows[t][j] = float64(v[t*z.mels+j])
			}
		}
		if err := feature.SpecAugment(rows, *spec, r); err != nil {
			return nil, err
		}
		for t := range rows {
			for j, x := range rows[t] {
				v[t*z.mels+j] = float32(x)
			}
		}
	}
	return out, nil
}

func collateCls(ss []ClsSample) (ClsBatch, error) {
	s0 := ss[0].X.Shape()
	total := 0
	for _, s := range ss {
		sh := s.X.Shape()
		if len(sh) != 4 || sh[1] != s0[1] || sh[2] != s0[2] || sh[3] != s0[3] {
			return ClsBatch{}, fmt.Errorf("%s: windows %v differ from %v in the same batch", s.Path, sh, s0)
		}
		total += sh[0]
	}
	x := tensor.New(tensor.Float32, total, s0[1], s0[2], s0[3])
	y := tensor.New(tensor.Int64, len(ss))
	xv, yv := x.F32(), y.I64()
	b := ClsBatch{X: x, Labels: y, Paths: make([]string, len(ss)), Owner: make([]int, 0, total)}
	off := 0
	for i, s := range ss {
		copy(xv[off:], s.X.F32())
		off += s.X.Len()
		for range s.X.Shape()[0] {
			b.Owner = append(b.Owner, i)
		}
		yv[i] = int64(s.Label)
		b.Paths[i] = s.Path
	}
	return b, nil
}

// clipMeans averages window probabilities (W·k, row-major) per clip.
func clipMeans(probs []float32, owner []int, clips, k int) []float32 {
	out := make([]float32, clips*k)
	cnt := make([]int, clips)
	for w, c := range owner {
		cnt[c]++
		for j := range k {
			out[c*k+j] += probs[w*k+j]
		}
	}
	for c := range clips {
		for j := range k {
			out[c*k+j] /= float32(max(cnt[c], 1))
		}
	}
	return out
}
