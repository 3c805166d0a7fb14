package speech

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"paddle/core/audio"
	"paddle/core/audio/feature"
	"paddle/core/audio/kaldi"
	"paddle/core/data"
	"paddle/core/tensor"
)

// kwsItem is one line of a KWS list file.
type kwsItem struct {
	Path  string
	Label int
	Seg   *mfcSegment // a word of a Sphinx .mfc file (kws_mfc.go); nil for audio
	// Key is the path as the list writes it (with a .mfc word's @start-end);
	// Group is its test_groups group (kws_group.go), -1 when there are none.
	Key   string
	Group int
}

// readLabels reads a class list (one name per line, blank lines skipped).
func readLabels(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("label file: %w", err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("label file %s: no classes", path)
	}
	return out, nil
}

// readKWSList reads `<wav> <class>` lines (tab or spaces; the class is the
// last field), paths relative to dataDir (default: the list's folder).
func readKWSList(list, dataDir string, classes []string) ([]kwsItem, error) {
	if dataDir == "" {
		dataDir = filepath.Dir(list)
	}
	classOf := classIndexer(classes)
	var out []kwsItem
	err := eachPair(list, "<wav> <class>", func(path, label string) error {
		raw := path
		path, seg, err := parseMFCPath(path)
		if err != nil {
			return err
		}
		c, err := classOf(label)
		if err != nil {
			return err
		}
		if !filepath.IsAbs(path) {
			path = filepath.Join(dataDir, path)
		}
		out = append(out, kwsItem{Path: path, Label: c, Seg: seg, Key: raw, Group: -1})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list file: %w", err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no clips", list)
	}
	return out, nil
}

// spread keeps n items evenly spread over items (every class stays in).
func spread(items []kwsItem, n int) []kwsItem {
	if n <= 0 || n >= len(items) {
		return items
	}
	out := make([]kwsItem, n)
	for i := range out {
		out[i] = items[i*len(items)/n]
	}
	return out
}

// KWSSample is one clip: its features (1, T, F) and class.
type KWSSample struct {
	Path  string
	Label int
	Group int // the clip's test_groups group (-1: none)
	X     *tensor.Tensor
}

// featurizer turns audio into the model's input.
type featurizer struct {
	raw     *audio.RawFormat // how to read .raw/.pcm files (nil: they are refused)
	rate    int
	samples int // clip length in samples
	opts    kaldi.Options
	smooth  int // cepstral smoothing: keep this many DCT coefficients (0: off)
}

func newFeaturizer(g KWSGlobal, f FeatureOpts) featurizer {
	return featurizer{rate: g.SampleRate, samples: int(math.Round(g.ClipSeconds * float64(g.SampleRate))), opts: f.kaldi(g.SampleRate), smooth: f.CepstralSmoothing}
}

// frames is the number of feature frames of one clip.
func (z featurizer) frames() int {
	n := z.samples
	shift := int(z.opts.SampleFrequency * z.opts.FrameShift / 1000)
	win := int(z.opts.SampleFrequency * z.opts.FrameLength / 1000)
	if z.opts.SnipEdges {
		return 1 + (n-win)/shift
	}
	return (n + shift/2) / shift
}

// load reads a file as mono at the featurizer's rate.
func (z featurizer) load(path string) ([]float32, error) {
	a, err := audio.Read(path, z.raw)
	if err != nil {
		return nil, err
	}
	if a.Rate != z.rate {
		if a, err = a.Resample(z.rate); err != nil {
			return nil, err
		}
	}
	return a.Mono(), nil
}

// fit centres x in a clip of z.samples (cut or zero-padded), moved by
// shift samples (positive: later).
func (z featurizer) fit(x []float32, shift int) []float32 {
	out := make([]float32, z.samples)
	off := (z.samples-len(x))/2 + shift
	for i := range out {
		if j := i - off; j >= 0 && j < len(x) {
			out[i] = x[j]
		}
	}
	return out
}

// features computes the log-mel fbank (1, T, F) of one fitted clip; the
// dither noise is seeded with seed.
func (z featurizer) features(clip []float32, seed uint64, aug *feature.SpecAugmentOptions, r *rand.Rand) (*tensor.Tensor, error) {
	return z.featuresWarped(clip, seed, 1, aug, r)
}

// featuresWarped is features with the mel axis stretched by warp (1: none).
func (z featurizer) featuresWarped(clip []float32, seed uint64, warp float64, aug *feature.SpecAugmentOptions, r *rand.Rand) (*tensor.Tensor, error) {
	x := make([]float64, len(clip))
	for i, v := range clip {
		x[i] = float64(v) * audio.KaldiScale
	}
	o := z.opts
	o.Seed = seed
	o.SubtractMean = false // after the smoothing (both are linear; this keeps one code path)
	fb, err := kaldi.Fbank(x, o)
	if err != nil {
		return nil, err
	}
	if warp != 1 {
		warpRows(fb, warp)
	}
	if z.smooth > 0 {
		cepstralSmooth(fb, z.smooth)
	}
	if z.opts.SubtractMean {
		subtractMean(fb)
	}
	if aug != nil {
		if err := feature.SpecAugment(fb, *aug, r); err != nil {
			return nil, err
		}
	}
	return rowsTensor(fb), nil
}

// warpRows resamples each row at positions (j+0.5)·warp-0.5 (linear
// interpolation, edges held): warp > 1 moves spectral features down.
func warpRows(rows [][]float64, warp float64) {
	if len(rows) == 0 {
		return
	}
	n := len(rows[0])
	tmp := make([]float64, n)
	for _, r := range rows {
		for j := range tmp {
			p := min(max((float64(j)+0.5)*warp-0.5, 0), float64(n-1))
			i := min(int(p), n-2)
			f := p - float64(i)
			tmp[j] = r[i]*(1-f) + r[i+1]*f
		}
		copy(r, tmp)
	}
}

// kwsDataset reads the clips of a list, augmenting when training.
type kwsDataset struct {
	items []kwsItem
	z     featurizer
	train bool
	shift int // max time shift in samples (training)
	spec  *feature.SpecAugmentOptions
	warp  float64    // max relative mel-axis stretch (training)
	noise *noiseBank // background recordings mixed in (training); nil: none
	// testWarps, when set (evaluation), gives each clip's features under
	// each mel-axis warp: X is (len(testWarps), T, F) (kws_tta.go).
	testWarps []float64
}

var _ data.RandDataset[KWSSample] = (*kwsDataset)(nil)

func (d *kwsDataset) Len() int { return len(d.items) }

// Get is the clip without augmentation (dither seeded by the index).
func (d *kwsDataset) Get(i int) (KWSSample, error) {
	s, _, err := d.get(i, nil)
	s.Group = d.items[i].Group
	return s, err
}

// GetRand augments when training.
func (d *kwsDataset) GetRand(i int, r *rand.Rand) (KWSSample, bool, error) {
	if !d.train {
		r = nil
	}
	s, ok, err := d.get(i, r)
	s.Group = d.items[i].Group
	return s, ok, err
}

func (d *kwsDataset) get(i int, r *rand.Rand) (KWSSample, bool, error) {
	it := d.items[i]
	if r == nil && len(d.testWarps) > 0 {
		t, err := d.warped(it, uint64(i))
		return KWSSample{Path: it.Path, Label: it.Label, X: t}, err == nil, err
	}
	if it.Seg != nil {
		t, err := d.z.mfcFeatures(it.Path, it.Seg, 5)
		return KWSSample{Path: it.Path, Label: it.Label, X: t}, err == nil, err
	}
	x, err := d.z.load(it.Path)
	if err != nil {
		return KWSSample{}, false, err
	}
	shift, seed, warp := 0, uint64(i), 1.0
	var spec *feature.SpecAugmentOptions
	if r != nil {
		if d.shift > 0 {
			shift = r.IntN(2*d.shift+1) - d.shift
		}
		seed = r.Uint64()
		if d.warp > 0 {
			warp = 1 + d.warp*(2*r.Float64()-1)
		}
		spec = d.spec
	}
	clip := d.z.fit(x, shift)
	if r != nil && d.noise != nil {
		if err := d.noise.mix(clip, r); err != nil {
			return KWSSample{}, false, err
		}
	}
	t, err := d.z.featuresWarped(clip, seed, warp, spec, r)
	if err != nil {
		return KWSSample{}, false, fmt.Errorf("%s: %w", it.Path, err)
	}
	return KWSSample{Path: it.Path, Label: it.Label, X: t}, true, nil
}

// KWSBatch is a collated batch: features (N, 1, T, F), labels (N) int64.
type KWSBatch struct {
	X      *tensor.Tensor
	Labels *tensor.Tensor
	Paths  []string
	Groups []int // each clip's test_groups group (-1: none)
}

func collateKWS(ss []KWSSample) (KWSBatch, error) {
	s0 := ss[0].X.Shape()
	per := s0.NumElements()
	x := tensor.New(tensor.Float32, append([]int{len(ss)}, s0...)...)
	y := tensor.New(tensor.Int64, len(ss))
	xv, yv := x.F32(), y.I64()
	paths, groups := make([]string, len(ss)), make([]int, len(ss))
	for i, s := range ss {
		if !s.X.Shape().Equal(s0) {
			return KWSBatch{}, fmt.Errorf("%s: features %v differ from %v in the same batch", s.Path, s.X.Shape(), s0)
		}
		copy(xv[i*per:], s.X.F32())
		yv[i] = int64(s.Label)
		paths[i], groups[i] = s.Path, s.Group
	}
	return KWSBatch{X: x, Labels: y, Paths: paths, Groups: groups}, nil
}
