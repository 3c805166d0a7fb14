package det

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sync"

	"paddle/core/config"
	"paddle/core/data"
	"paddle/core/synth"
)

// SynthDataSetOpts describe a SynthDataSet: training images composited on
// the fly by core/synth (the `det synth` compositor) from the training
// objects and backgrounds, a new composition of every image each epoch.
// Zero values take the compositor's defaults.
type SynthDataSetOpts struct {
	StampsDir      string `yaml:"stamps_dir"`      // Tux Paint stamps root; default: the cache (scripts/fetch_det_data.sh)
	BackgroundsDir string `yaml:"backgrounds_dir"` // default: the cache
	// Samples is the number of images an epoch has; default 4000.
	Samples int `yaml:"samples"`
	// Validation trains on the training objects and backgrounds less the
	// validation share (synth.Library.Validation), for choosing settings
	// on a validation set (the Eval split of that library, written with
	// synth.Write) without looking at the eval objects.
	Validation bool `yaml:"validation"`
	// ClassSet names the classes (synth.ClassSet): "default" (or empty)
	// for the 8 evaluated classes, "pretrain" for those 8 followed by 14
	// more Tux Paint photo folders (22 classes), to pretrain a detector
	// whose weights a fine-tuning config then loads with pretrain_weights.
	// Its training split of the first 8 classes is the default one, so
	// pretraining never sees an eval object or background.
	ClassSet     string  `yaml:"class_set"`
	Size         int     `yaml:"size"`
	MinObjects   int     `yaml:"min_objects"`
	MaxObjects   int     `yaml:"max_objects"`
	MinScale     float64 `yaml:"min_scale"`
	MaxScale     float64 `yaml:"max_scale"`
	MaxRotate    float64 `yaml:"max_rotate"`
	MaxOcclusion float64 `yaml:"max_occlusion"`
	Brightness   float64 `yaml:"brightness"`
	Contrast     float64 `yaml:"contrast"`
	Saturation   float64 `yaml:"saturation"`
	Stretch      float64 `yaml:"stretch"`
	Blur         float64 `yaml:"blur"`
	// The COCODataSet keys are accepted and unused, so a config can turn a
	// base config's COCO training set into a SynthDataSet by its name.
	DatasetDir string   `yaml:"dataset_dir"`
	ImageDir   string   `yaml:"image_dir"`
	AnnoPath   string   `yaml:"anno_path"`
	DataFields []string `yaml:"data_fields"`
}

func (o SynthDataSetOpts) options() synth.Options {
	return synth.Options{Size: o.Size, MinObjects: o.MinObjects, MaxObjects: o.MaxObjects, MinScale: o.MinScale,
		MaxScale: o.MaxScale, MaxRotate: o.MaxRotate, MaxOcclusion: o.MaxOcclusion, Brightness: o.Brightness,
		Contrast: o.Contrast, Saturation: o.Saturation, Stretch: o.Stretch, Blur: o.Blur}
}

// synthClasses returns the classes of a SynthDataSet component's class_set,
// with an error naming the component's key.
func synthClasses(c config.Component, o SynthDataSetOpts) ([]synth.Class, error) {
	cs, err := synth.ClassSet(o.ClassSet)
	if err != nil {
		return nil, c.Errorf("class_set: %w", err)
	}
	return cs, nil
}

// synthClassNames are the class names of a SynthDataSet component (the
// data set's classes).
func synthClassNames(c config.Component) ([]string, error) {
	var o SynthDataSetOpts
	if err := c.Decode(&o); err != nil {
		return nil, err
	}
	cs, err := synthClasses(c, o)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Name
	}
	return out, nil
}

// libraries caches loaded stamp libraries by folder pair and class set:
// loading decodes a few hundred PNGs and the photos (~2 s).
var libraries sync.Map // [3]string -> *synth.Library

func loadSynthLibrary(o SynthDataSetOpts, classes []synth.Class) (*synth.Library, error) {
	stamps, bgDir := synth.DefaultPaths()
	if o.StampsDir != "" {
		stamps = o.StampsDir
	}
	if o.BackgroundsDir != "" {
		bgDir = o.BackgroundsDir
	}
	key := [3]string{filepath.Clean(stamps), filepath.Clean(bgDir), o.ClassSet}
	if key[2] == "" {
		key[2] = "default"
	}
	if l, ok := libraries.Load(key); ok {
		return l.(*synth.Library), nil
	}
	bgs, err := synth.BackgroundFiles(bgDir)
	if err != nil {
		return nil, err
	}
	l, err := synth.LoadLibrary(stamps, classes, bgs)
	if err != nil {
		return nil, err
	}
	libraries.Store(key, l)
	return l, nil
}

// synthSource composites training samples on the fly.
type synthSource struct {
	lib *synth.Library
	o   synth.Options
	n   int
	p   *pipeline
}

// newSynthSource reads a SynthDataSet component.
func newSynthSource(c config.Component, p *pipeline) (*synthSource, error) {
	var o SynthDataSetOpts
	if err := c.Decode(&o); err != nil {
		return nil, err
	}
	if p.mosaic != nil {
		return nil, c.Errorf("Mosaic is not supported with SynthDataSet")
	}
	classes, err := synthClasses(c, o)
	if err != nil {
		return nil, err
	}
	lib, err := loadSynthLibrary(o, classes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Path, err)
	}
	if o.Validation {
		if lib, err = lib.Validation(); err != nil {
			return nil, fmt.Errorf("%s: %w", c.Path, err)
		}
	}
	n := o.Samples
	if n <= 0 {
		n = 4000
	}
	return &synthSource{lib: lib, o: o.options(), n: n, p: p}, nil
}

func (s *synthSource) Len() int { return s.n }

func (s *synthSource) Get(i int) (Sample, error) {
	smp, _, err := s.GetRand(i, data.SampleRand(0, 0, i))
	return smp, err
}

// GetRand composites image i with a seed drawn from r (the loader's
// per-epoch, per-position RNG), so every epoch shows new compositions.
func (s *synthSource) GetRand(i int, r *rand.Rand) (Sample, bool, error) {
	o := s.o
	o.Seed = r.Uint64()
	g := s.lib.Generate(synth.Train, i, o)
	rec := &Record{Image: fmt.Sprintf("synth:%d", i), ID: int64(i + 1), Width: g.Image.W, Height: g.Image.H}
	smp := Sample{Rec: rec, Path: rec.Image, Img: g.Image, SX: 1, SY: 1}
	for _, ob := range g.Objects {
		rec.Objects = append(rec.Objects, Object{Box: ob.Box, Class: ob.Class})
		smp.Boxes, smp.Classes = append(smp.Boxes, ob.Box), append(smp.Classes, ob.Class)
	}
	if err := s.p.apply(&smp, r); err != nil {
		return smp, false, err
	}
	return smp, true, nil
}
