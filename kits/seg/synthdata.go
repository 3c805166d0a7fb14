package seg

import (
	"bytes"
	"fmt"
	"image/jpeg"
	"math/rand/v2"
	"sync"

	"paddle/core/config"
	"paddle/core/data"
	"paddle/core/synth"
)

// SynthDatasetOpts configure `SynthDataset` (paddle's own): composites made
// on the fly by core/synth (the compositor of `paddle seg synth`) instead
// of read from a file list. In training every epoch draws new composites
// (new backgrounds crops, placements, poses and occlusions of the same
// objects), so the net never sees one composite twice.
//
// split chooses objects and backgrounds:
//   - train: the compositor's training objects and backgrounds (with
//     holdout: true, minus the validation ones below);
//   - val: a validation split carved from the TRAINING objects and
//     backgrounds by the compositor's own rule (EvalFraction of each class's
//     objects, by a fixed hash of their names), so settings can be chosen on
//     unseen objects without touching the eval split;
//   - eval: the compositor's held-out objects and backgrounds (the images of
//     `seg synth`'s seg_eval.txt for the same size, seed and object counts,
//     up to the JPEG compression).
//
// val and eval are fixed sets (composite i is the same every epoch).
type SynthDatasetOpts struct {
	NumClasses  int                `yaml:"num_classes" check:"min=1"` // background + the class set's classes
	ClassSet    string             `yaml:"class_set"`                 // default (8 classes) | pretrain (22: the 8 first, then 14 more)
	Mode        string             `yaml:"mode"`                      // train | val (accepted for PaddleSeg's layout)
	IgnoreIndex *int               `yaml:"ignore_index"`
	Split       string             `yaml:"split"`   // train (default) | val | eval
	Holdout     bool               `yaml:"holdout"` // split train: leave out the val objects and backgrounds
	Length      int                `yaml:"length"`  // composites per epoch (train) or in the set; default 1000
	Size        int                `yaml:"size"`    // composite side in pixels; default 192
	MinObjects  int                `yaml:"min_objects"`
	MaxObjects  int                `yaml:"max_objects"`  // default 1 and 4, as `seg synth`
	Seed        uint64             `yaml:"seed"`         // compositor seed (val/eval composites; train draws per epoch)
	JPEGQuality int                `yaml:"jpeg_quality"` // JPEG round trip as `seg synth` writes (default 95; -1: none)
	Stamps      string             `yaml:"stamps"`       // default: the cache's Tux Paint stamps
	Backgrounds string             `yaml:"backgrounds"`  // default: the cache's background photos
	Transforms  []config.Component `yaml:"transforms"`
}

// libraries caches loaded compositor libraries by class set, stamp and
// background folder, so train and val splits of one run load the photos
// once.
var libraries struct {
	sync.Mutex
	m map[[3]string]*synthLibs
}

// synthLibs are the compositor's library and the one carved from its
// training half (validation objects and backgrounds as its "eval").
type synthLibs struct {
	full, carved *synth.Library
}

// loadSynthLibs loads the libraries of a class set (synth.ClassSet's
// names: "" or "default", "pretrain").
func loadSynthLibs(classSet, stamps, bgs string) (*synthLibs, error) {
	classes, err := synth.ClassSet(classSet)
	if err != nil {
		return nil, err
	}
	if classSet == "" {
		classSet = "default"
	}
	def, defBg := synth.DefaultPaths()
	if stamps == "" {
		stamps = def
	}
	if bgs == "" {
		bgs = defBg
	}
	libraries.Lock()
	defer libraries.Unlock()
	key := [3]string{classSet, stamps, bgs}
	if l := libraries.m[key]; l != nil {
		return l, nil
	}
	files, err := synth.BackgroundFiles(bgs)
	if err != nil {
		return nil, err
	}
	full, err := synth.LoadLibrary(stamps, classes, files)
	if err != nil {
		return nil, err
	}
	var st []*synth.Stamp
	for _, cl := range full.Stamps[synth.Train] {
		st = append(st, cl...)
	}
	carved, err := synth.NewLibrary(full.Classes, st, full.Backgrounds[synth.Train], full.BgNames[synth.Train])
	if err != nil {
		return nil, fmt.Errorf("carving a validation split from the training objects: %w", err)
	}
	if libraries.m == nil {
		libraries.m = map[[3]string]*synthLibs{}
	}
	l := &synthLibs{full: full, carved: carved}
	libraries.m[key] = l
	return l, nil
}

// synthSet is a SynthDataset: a RandDataset of items made by the compositor.
type synthSet struct {
	lib   *synth.Library
	split synth.Split
	fresh bool // training: a new composite per draw
	n     int
	opts  synth.Options
	jpegQ int
	tr    transform
}

// newSynthSet builds a SynthDataset from its options.
func newSynthSet(c config.Component, numClasses int) (*synthSet, error) {
	o, err := decodeSynthOpts(c)
	if err != nil {
		return nil, err
	}
	libs, err := loadSynthLibs(o.ClassSet, o.Stamps, o.Backgrounds)
	if err != nil {
		return nil, c.Errorf("SynthDataset: %v", err)
	}
	if want := len(libs.full.Classes) + 1; numClasses != want {
		return nil, c.Errorf("SynthDataset: num_classes is %d but class_set %s has %d classes plus background", numClasses, classSetName(o.ClassSet), want-1)
	}
	s := &synthSet{n: o.Length, jpegQ: o.JPEGQuality,
		opts: synth.Options{Size: o.Size, MinObjects: o.MinObjects, MaxObjects: o.MaxObjects, Seed: o.Seed}}
	switch o.Split {
	case "train":
		s.lib, s.split, s.fresh = libs.full, synth.Train, true
		if o.Holdout {
			s.lib = libs.carved
		}
	case "val":
		s.lib, s.split = libs.carved, synth.Eval
	case "eval":
		s.lib, s.split = libs.full, synth.Eval
	}
	if s.tr, err = buildTransforms(o.Transforms); err != nil {
		return nil, err
	}
	return s, nil
}

// decodeSynthOpts decodes and checks a SynthDataset, filling defaults.
func decodeSynthOpts(c config.Component) (SynthDatasetOpts, error) {
	o := SynthDatasetOpts{Split: "train", Length: 1000, Size: 192, MinObjects: 1, MaxObjects: 4, JPEGQuality: 95}
	if err := c.Decode(&o); err != nil {
		return o, err
	}
	switch {
	case o.ClassSet != "" && o.ClassSet != "default" && o.ClassSet != "pretrain":
		return o, c.Errorf("SynthDataset: class_set %q: want default (the 8 classes) or pretrain (22 classes)", o.ClassSet)
	case o.Split != "train" && o.Split != "val" && o.Split != "eval":
		return o, c.Errorf("SynthDataset: split %q: want train, val or eval", o.Split)
	case o.Holdout && o.Split != "train":
		return o, c.Errorf("SynthDataset: holdout applies to split train only (split val is the held-out part)")
	case o.Length < 1 || o.Size < 32:
		return o, c.Errorf("SynthDataset: want length ≥ 1 and size ≥ 32, got %d and %d", o.Length, o.Size)
	case o.MinObjects < 0 || o.MaxObjects < max(o.MinObjects, 1):
		return o, c.Errorf("SynthDataset: min_objects %d max_objects %d: want 0 ≤ min ≤ max, max ≥ 1", o.MinObjects, o.MaxObjects)
	case o.JPEGQuality > 100:
		return o, c.Errorf("SynthDataset: jpeg_quality %d: want 1..100, or -1 for none", o.JPEGQuality)
	}
	if classes, _ := synth.ClassSet(o.ClassSet); o.NumClasses != len(classes)+1 {
		return o, c.Errorf("SynthDataset: num_classes is %d but class_set %s has %d classes plus background (num_classes %d)",
			o.NumClasses, classSetName(o.ClassSet), len(classes), len(classes)+1)
	}
	return o, nil
}

// classSetName is the class set's name for messages.
func classSetName(s string) string {
	if s == "" {
		return "default"
	}
	return s
}

// Len returns the composites per epoch.
func (s *synthSet) Len() int { return s.n }

// Get returns composite i with the transforms of epoch 0.
func (s *synthSet) Get(i int) (item, error) {
	it, _, err := s.GetRand(i, data.SampleRand(0, 0, i))
	return it, err
}

// GetRand composes a sample (a fresh one per call in training, composite i
// otherwise) and applies the transforms.
func (s *synthSet) GetRand(i int, r *rand.Rand) (item, bool, error) {
	idx := i
	if s.fresh {
		idx = r.IntN(1 << 40)
	}
	smp := s.lib.Generate(s.split, idx, s.opts)
	img := smp.Image
	if s.jpegQ > 0 {
		var b bytes.Buffer
		if err := jpeg.Encode(&b, img.ToStd(), &jpeg.Options{Quality: s.jpegQ}); err != nil {
			return item{}, false, fmt.Errorf("synth %s %d: %w", s.split, idx, err)
		}
		m, err := data.Decode(b.Bytes(), data.RGB)
		if err != nil {
			return item{}, false, fmt.Errorf("synth %s %d: %w", s.split, idx, err)
		}
		img = m
	}
	it := item{Path: fmt.Sprintf("synth:%s/%d", s.split, idx), Img: img, Lab: &LabelMap{H: img.H, W: img.W, Pix: smp.Mask}}
	keep, err := s.tr.Apply(&it, r)
	return it, keep, err
}

// decodeDatasetOpts decodes a train_dataset / val_dataset into the parts
// the runner, predict and export need (classes, ignore index, transforms),
// whichever dataset type it is.
func decodeDatasetOpts(c config.Component, dst *DatasetOpts) error {
	if c.Name != "SynthDataset" {
		return c.Decode(dst)
	}
	o, err := decodeSynthOpts(c)
	if err != nil {
		return err
	}
	*dst = DatasetOpts{NumClasses: o.NumClasses, Mode: o.Mode, IgnoreIndex: o.IgnoreIndex, Transforms: o.Transforms}
	return nil
}
