// Package synth composites real photo cut-outs (RGBA stamps) onto real
// photo backgrounds to make detection and segmentation data sets: boxes come
// from the visible alpha, per-pixel masks hold class ids (0 background, 255
// on anti-aliased edges), and objects and backgrounds are split between
// train and eval so eval never shows a training object or background.
// Generation is deterministic for a seed and runs in parallel.
//
// Where things are:
//
//	library.go  classes, stamps and backgrounds, the fixed train/eval split
//	compose.go  Generate: one composite (placement, warp, occlusion, boxes, mask)
//	write.go    Write: COCO json, VOC xml + lists, PaddleSeg lists + labels.txt
package synth

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"image"
	"image/draw"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"paddle/core/data"
	"paddle/core/hub"
)

// Split is train or eval.
type Split int

// The two splits.
const (
	Train Split = iota
	Eval
)

// String returns "train" or "eval", the split's folder and file-name part.
func (s Split) String() string {
	if s == Eval {
		return "eval"
	}
	return "train"
}

// Class is an object class and the stamp folders (relative to the stamps
// root, searched recursively, "cartoon" sub-folders skipped) it takes from.
type Class struct {
	Name string
	Dirs []string
}

// DefaultClasses are 8 classes of real photo stamps from Debian's
// tuxpaint-stamps-default (usr/share/tuxpaint/stamps).
var DefaultClasses = []Class{
	{"mammal", []string{"animals/mammals"}},
	{"bird", []string{"animals/birds"}},
	{"insect", []string{"animals/insects"}},
	{"fish", []string{"animals/fish"}},
	{"fruit", []string{"food/fruit"}},
	{"vegetable", []string{"food/vegetables"}},
	{"flower", []string{"plants/flowers"}},
	{"vehicle", []string{"vehicles"}},
}

// PretrainClasses are DefaultClasses (first, in the same order) plus 14
// classes from the other photo folders of tuxpaint-stamps-default: a wider
// set to pretrain backbones on before fine-tuning on DefaultClasses, as
// PaddleDetection pretrains on ImageNet or Objects365 (none can be had
// here). Drawn glyphs (alphabets, maths, shapes) are left out. Its Train
// split holds exactly DefaultClasses' training objects and backgrounds
// (the split hashes names per class), so pretraining on it never shows an
// eval object or background of DefaultClasses.
var PretrainClasses = append(slices.Clone(DefaultClasses), []Class{
	{"other-animal", []string{"animals/amphibians", "animals/lizards", "animals/marsupials", "animals/shellfish"}},
	{"clothes", []string{"clothes"}},
	{"food-other", []string{"food/nuts", "food/spices"}},
	{"music", []string{"hobbies"}},
	{"household", []string{"household"}},
	{"misc", []string{"medical", "military", "people", "naturalforces"}},
	{"plant-other", []string{"plants/mushrooms", "plants/trees"}},
	{"seasonal", []string{"seasonal"}},
	{"space", []string{"space"}},
	{"sports", []string{"sports"}},
	{"chess", []string{"symbols/chess"}},
	{"coin", []string{"symbols/money"}},
	{"roadsign", []string{"town/roadsigns"}},
	{"flag", []string{"town/flags", "town/monuments"}},
}...)

// ClassSet returns the classes a config names: "default" (or "") for
// DefaultClasses, "pretrain" for PretrainClasses.
func ClassSet(name string) ([]Class, error) {
	switch name {
	case "", "default":
		return DefaultClasses, nil
	case "pretrain":
		return PretrainClasses, nil
	}
	return nil, fmt.Errorf("class set %q: want default or pretrain", name)
}

// skipStamps are files under the class folders that are not objects of the class.
var skipStamps = map[string]bool{"7spoke256": true}

// Stamp is one object cut-out: premultiplied RGBA in [0, 1], W×H×4.
type Stamp struct {
	Class int
	Name  string // object identity: file name without extension and "_mirror"
	W, H  int
	Pix   []float32
}

// Library holds the stamps and backgrounds of both splits.
type Library struct {
	Classes     []string
	Stamps      [2][][]*Stamp // [split][class] stamps
	Backgrounds [2][]*data.Image
	BgNames     [2][]string
}

// maxStampSide bounds stored stamps (larger ones are downscaled on load):
// objects are at most 0.6 of a 320–640 image side.
const maxStampSide = 384

// maxBackgroundSide bounds stored backgrounds (wallpapers are downscaled on
// load): crops of them are resized to the output size anyway.
const maxBackgroundSide = 1024

// EvalFraction is the share of objects (per class) and backgrounds held out
// for eval, at least one of each.
const EvalFraction = 0.2

// LoadLibrary reads stamp PNGs for the classes from stampsRoot and
// background images (PNG/JPEG, RGB) from bgFiles, then splits them as
// NewLibrary does.
func LoadLibrary(stampsRoot string, classes []Class, bgFiles []string) (*Library, error) {
	var names []string
	var stamps []*Stamp
	for c, cl := range classes {
		names = append(names, cl.Name)
		var files []string
		for _, d := range cl.Dirs {
			root := filepath.Join(stampsRoot, d)
			err := filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
				if err != nil {
					return err
				}
				if e.IsDir() && e.Name() == "cartoon" {
					return filepath.SkipDir
				}
				if !e.IsDir() && strings.HasSuffix(e.Name(), ".png") && !skipStamps[strings.TrimSuffix(e.Name(), ".png")] {
					files = append(files, p)
				}
				return nil
			})
			if err != nil {
				return nil, fmt.Errorf("class %s: %w (hint: run scripts/fetch_det_data.sh)", cl.Name, err)
			}
		}
		slices.Sort(files)
		for _, f := range files {
			st, err := loadStamp(f)
			if err != nil {
				return nil, err
			}
			st.Class = c
			stamps = append(stamps, st)
		}
	}
	bgFiles = slices.Sorted(slices.Values(bgFiles))
	bgs := make([]*data.Image, len(bgFiles))
	for i, f := range bgFiles {
		m, err := data.DecodeFile(f, data.RGB)
		if err != nil {
			return nil, err
		}
		if long := max(m.W, m.H); long > maxBackgroundSide {
			s := float64(maxBackgroundSide) / float64(long)
			m = shrink(m, max(1, int(float64(m.W)*s)), max(1, int(float64(m.H)*s)))
		}
		bgs[i] = m
	}
	return NewLibrary(names, stamps, bgs, bgFiles)
}

// NewLibrary splits stamps and backgrounds between train and eval by a
// fixed hash of their names (the same split for every seed): per class,
// EvalFraction of the objects (a stamp and its "_mirror" twin share a
// name) go to eval, and EvalFraction of the backgrounds. Every class needs
// at least 2 objects and there must be at least 2 backgrounds.
func NewLibrary(classes []string, stamps []*Stamp, bgs []*data.Image, bgNames []string) (*Library, error) {
	l := &Library{Classes: classes}
	for s := range 2 {
		l.Stamps[s] = make([][]*Stamp, len(classes))
	}
	for c, name := range classes {
		objs := map[string]bool{}
		for _, st := range stamps {
			if st.Class == c {
				objs[st.Name] = true
			}
		}
		if len(objs) < 2 {
			return nil, fmt.Errorf("class %s: %d objects, want at least 2 (hint: run scripts/fetch_det_data.sh)", name, len(objs))
		}
		ev := heldOut(keys(objs))
		for _, st := range stamps {
			if st.Class != c {
				continue
			}
			s := Train
			if ev[st.Name] {
				s = Eval
			}
			l.Stamps[s][c] = append(l.Stamps[s][c], st)
		}
	}
	if len(bgs) < 2 || len(bgs) != len(bgNames) {
		return nil, fmt.Errorf("%d backgrounds (%d names), want at least 2 (hint: run scripts/fetch_det_data.sh)", len(bgs), len(bgNames))
	}
	ev := heldOut(bgNames)
	for i, m := range bgs {
		s := Train
		if ev[bgNames[i]] {
			s = Eval
		}
		l.Backgrounds[s] = append(l.Backgrounds[s], m)
		l.BgNames[s] = append(l.BgNames[s], bgNames[i])
	}
	return l, nil
}

// Validation returns a library for choosing settings without looking at
// the eval split: its Train split is l's training objects and backgrounds
// less a held-out share, and its Eval split is that share (EvalFraction of
// each class's training objects and of the training backgrounds, picked by
// the same fixed hash as NewLibrary). l's eval objects and backgrounds are
// in neither.
func (l *Library) Validation() (*Library, error) {
	var stamps []*Stamp
	for _, cs := range l.Stamps[Train] {
		stamps = append(stamps, cs...)
	}
	v, err := NewLibrary(l.Classes, stamps, l.Backgrounds[Train], l.BgNames[Train])
	if err != nil {
		return nil, fmt.Errorf("validation split of the training objects: %w", err)
	}
	return v, nil
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// heldOut picks ceil(EvalFraction·n) names (at least 1, at most n-1) in
// the order of a hash of their base names: a split that does not depend on
// the seed, the folder the data sits in, or which other names exist.
func heldOut(names []string) map[string]bool {
	h := func(s string) uint64 {
		f := fnv.New64a()
		f.Write([]byte(filepath.Base(s)))
		return f.Sum64()
	}
	sorted := slices.Clone(names)
	slices.SortFunc(sorted, func(a, b string) int {
		ha, hb := h(a), h(b)
		switch {
		case ha < hb:
			return -1
		case ha > hb:
			return 1
		}
		return strings.Compare(a, b)
	})
	n := min(max(int(math.Ceil(EvalFraction*float64(len(names)))), 1), len(names)-1)
	out := map[string]bool{}
	for _, s := range sorted[:n] {
		out[s] = true
	}
	return out
}

// loadStamp decodes an RGBA PNG into premultiplied float RGBA, downscaled
// (area average) so its longer side is at most maxStampSide.
func loadStamp(path string) (*Stamp, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	bounds := img.Bounds()
	nrgba := image.NewNRGBA(image.Rect(0, 0, bounds.Dx(), bounds.Dy()))
	draw.Draw(nrgba, nrgba.Rect, img, bounds.Min, draw.Src)
	w, h := bounds.Dx(), bounds.Dy()
	st := &Stamp{W: w, H: h, Pix: make([]float32, w*h*4)}
	for i := range w * h {
		p := nrgba.Pix[i*4 : i*4+4]
		a := float32(p[3]) / 255
		st.Pix[i*4+0] = float32(p[0]) / 255 * a
		st.Pix[i*4+1] = float32(p[1]) / 255 * a
		st.Pix[i*4+2] = float32(p[2]) / 255 * a
		st.Pix[i*4+3] = a
	}
	name := strings.TrimSuffix(filepath.Base(path), ".png")
	st.Name = strings.TrimSuffix(strings.TrimSuffix(name, "_mirror"), "-mirror")
	if s := max(w, h); s > maxStampSide {
		f := float64(maxStampSide) / float64(s)
		nw, nh := max(1, int(math.Round(float64(w)*f))), max(1, int(math.Round(float64(h)*f)))
		st.Pix = resizeArea(st.Pix, w, h, 4, nw, nh)
		st.W, st.H = nw, nh
	}
	return st, nil
}

// resizeArea resamples a W×H×C float image to nw×nh by area averaging
// (each output pixel is the mean of the input area it covers; works for
// up- and downscaling).
func resizeArea(src []float32, w, h, c, nw, nh int) []float32 {
	// separable: rows first, then columns
	tmp := make([]float32, nw*h*c)
	wx := areaWeights(w, nw)
	for y := range h {
		for x, taps := range wx {
			for _, t := range taps {
				for k := range c {
					tmp[(y*nw+x)*c+k] += t.w * src[(y*w+t.i)*c+k]
				}
			}
		}
	}
	out := make([]float32, nw*nh*c)
	wy := areaWeights(h, nh)
	for y, taps := range wy {
		for _, t := range taps {
			row := tmp[t.i*nw*c : (t.i+1)*nw*c]
			dst := out[y*nw*c : (y+1)*nw*c]
			for i, v := range row {
				dst[i] += t.w * v
			}
		}
	}
	return out
}

// shrink resizes an RGB image down to w×h by area averaging.
func shrink(m *data.Image, w, h int) *data.Image {
	f := make([]float32, len(m.Pix))
	for i, v := range m.Pix {
		f[i] = float32(v)
	}
	g := resizeArea(f, m.W, m.H, m.C, w, h)
	out := data.NewImage(h, w, m.C)
	for i, v := range g {
		out.Pix[i] = uint8(min(max(v+0.5, 0), 255))
	}
	return out
}

type tap struct {
	i int
	w float32
}

// areaWeights returns, for each of n output cells, the input cells (of m)
// it overlaps and the overlap fractions (summing to 1).
func areaWeights(m, n int) [][]tap {
	out := make([][]tap, n)
	scale := float64(m) / float64(n)
	for j := range n {
		lo, hi := float64(j)*scale, float64(j+1)*scale
		for i := int(lo); i < m && float64(i) < hi; i++ {
			ov := math.Min(hi, float64(i+1)) - math.Max(lo, float64(i))
			if ov > 1e-9 {
				out[j] = append(out[j], tap{i, float32(ov / scale)})
			}
		}
	}
	return out
}

// DefaultPaths returns where scripts/fetch_det_data.sh puts the data:
// the Tux Paint stamps root and the backgrounds folder under
// <cache>/data (cache: $PADDLE_CACHE or ~/.cache/paddle).
func DefaultPaths() (stamps, backgrounds string) {
	d := filepath.Join(hub.CacheDir(), "data")
	return filepath.Join(d, "tuxpaint", "usr", "share", "tuxpaint", "stamps"), filepath.Join(d, "backgrounds")
}

// BackgroundFiles lists the .png, .jpg and .jpeg files under dir, recursively, sorted.
func BackgroundFiles(dir string) ([]string, error) {
	out, err := ImageFiles(dir)
	if err != nil {
		return nil, fmt.Errorf("backgrounds: %w (hint: run scripts/fetch_det_data.sh)", err)
	}
	return out, nil
}

// ImageFiles lists the .png, .jpg and .jpeg files under dir (or dir itself
// when it is such a file), recursively, sorted.
func ImageFiles(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch strings.ToLower(filepath.Ext(p)) {
		case ".png", ".jpg", ".jpeg":
			if !e.IsDir() {
				out = append(out, p)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(out)
	return out, nil
}
