package synth

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"paddle/core/data"
	"paddle/core/metric/coco"
)

// testStamp is a disc (soft 1-pixel edge) of a pure colour: class 0 red, 1 green, 2 blue.
func testStamp(class int, name string, w, h int) *Stamp {
	st := &Stamp{Class: class, Name: name, W: w, H: h, Pix: make([]float32, w*h*4)}
	cx, cy := float64(w)/2, float64(h)/2
	for y := range h {
		for x := range w {
			// inside an ellipse, with a linear ramp over the last pixel
			d := math.Hypot((float64(x)+0.5-cx)/cx, (float64(y)+0.5-cy)/cy)
			a := float32(math.Min(math.Max((1-d)*math.Min(cx, cy), 0), 1))
			p := st.Pix[(y*w+x)*4:]
			p[class] = a
			p[3] = a
		}
	}
	return st
}

// testLibrary: 3 classes of 3 objects each (one with a _mirror twin), 5 backgrounds.
func testLibrary(t *testing.T, black bool) *Library {
	t.Helper()
	var stamps []*Stamp
	for c := range 3 {
		for j, name := range []string{"a", "b", "c"} {
			stamps = append(stamps, testStamp(c, string(rune('p'+c))+name, 20+6*j, 16+5*c))
		}
		stamps = append(stamps, testStamp(c, string(rune('p'+c))+"a", 22, 16)) // the mirror twin of "?a"
	}
	var bgs []*data.Image
	var names []string
	for i := range 5 {
		m := data.NewImage(50+10*i, 70, 3)
		if !black {
			for j := range m.Pix {
				m.Pix[j] = uint8((j*7 + i*31) % 256)
			}
		}
		bgs = append(bgs, m)
		names = append(names, "/bg/"+string(rune('v'+i))+".png")
	}
	l, err := NewLibrary([]string{"red", "green", "blue"}, stamps, bgs, names)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

var testOpts = Options{Size: 64, MinObjects: 2, MaxObjects: 5, MinScale: 0.2, MaxScale: 0.5, Seed: 7}

func TestSplitDisjoint(t *testing.T) {
	l := testLibrary(t, false)
	for c := range l.Classes {
		tr, ev := map[string]bool{}, map[string]bool{}
		for _, st := range l.Stamps[Train][c] {
			tr[st.Name] = true
		}
		for _, st := range l.Stamps[Eval][c] {
			ev[st.Name] = true
		}
		if len(tr) == 0 || len(ev) == 0 {
			t.Fatalf("class %d: %d train and %d eval objects", c, len(tr), len(ev))
		}
		for n := range ev {
			if tr[n] {
				t.Errorf("class %d: object %q in both splits", c, n)
			}
		}
	}
	if len(l.Backgrounds[Train]) == 0 || len(l.Backgrounds[Eval]) == 0 {
		t.Fatal("a split has no background")
	}
	for _, b := range l.BgNames[Eval] {
		if slices.Contains(l.BgNames[Train], b) {
			t.Errorf("background %s in both splits", b)
		}
	}
	// the generated images use only their own split's objects and backgrounds
	for _, s := range []Split{Train, Eval} {
		own := map[string]bool{}
		for _, sts := range l.Stamps[s] {
			for _, st := range sts {
				own[st.Name] = true
			}
		}
		for i := range 20 {
			smp := l.Generate(s, i, testOpts)
			if !slices.Contains(l.BgNames[s], smp.Background) {
				t.Errorf("%s %d: background %s from the other split", s, i, smp.Background)
			}
			for _, o := range smp.Objects {
				if !own[o.Stamp] {
					t.Errorf("%s %d: object %s from the other split", s, i, o.Stamp)
				}
			}
		}
	}
}

func TestGenerateDeterministic(t *testing.T) {
	l := testLibrary(t, false)
	a, b := l.Generate(Train, 3, testOpts), l.Generate(Train, 3, testOpts)
	if !bytes.Equal(a.Image.Pix, b.Image.Pix) || !bytes.Equal(a.Mask, b.Mask) || !slices.Equal(a.Objects, b.Objects) {
		t.Fatal("same seed and index, different samples")
	}
	o := testOpts
	o.Seed++
	if c := l.Generate(Train, 3, o); bytes.Equal(a.Image.Pix, c.Image.Pix) {
		t.Error("another seed gave the same image")
	}
	if c := l.Generate(Train, 4, testOpts); bytes.Equal(a.Image.Pix, c.Image.Pix) {
		t.Error("another index gave the same image")
	}
}

// TestVisibleAlphaAndBoxes: on a black background with pure-colour stamps and no brightness
// jitter, each channel of the image is 255 times the summed visible alpha of that colour's
// objects (so Visible really is what shows, occlusion included); each box is the tight box
// of the pixels whose visible alpha is ≥ 0.5, and the mask agrees with the boxes.
func TestVisibleAlphaAndBoxes(t *testing.T) {
	l := testLibrary(t, true)
	o := testOpts
	o.Brightness = -1
	occluded := 0
	for i := range 30 {
		smp := l.Generate(Train, i, o)
		size := o.Size
		if len(smp.Objects) == 0 {
			t.Fatalf("image %d: no objects", i)
		}
		for p := range size * size {
			var sum [3]float64
			cov := 0.0
			for k, ob := range smp.Objects {
				sum[ob.Class] += float64(smp.Visible[k][p])
				cov += float64(smp.Visible[k][p])
			}
			for c := range 3 {
				if got, want := float64(smp.Image.Pix[p*3+c]), 255*sum[c]; math.Abs(got-want) > 1.01 {
					t.Fatalf("image %d pixel %d channel %d = %v, want 255*visible = %.2f", i, p, c, got, want)
				}
			}
			// mask: background only where nearly nothing covers the pixel
			m := smp.Mask[p]
			if m == 0 && cov > 0.25+1e-6 {
				t.Fatalf("image %d pixel %d: mask 0 but coverage %.3f", i, p, cov)
			}
			if m != 0 && m != 255 {
				x, y := float64(p%size), float64(p/size)
				inside := false
				for k, ob := range smp.Objects {
					b := ob.Box
					if ob.Class+1 == int(m) && x >= b[0] && x < b[2] && y >= b[1] && y < b[3] && smp.Visible[k][p] >= 0.75 {
						inside = true
					}
				}
				if !inside {
					t.Fatalf("image %d pixel (%v, %v): mask %d outside every box of that class", i, x, y, m)
				}
			}
		}
		for k, ob := range smp.Objects {
			x1, y1, x2, y2, area := size, size, -1, -1, 0
			full := 0
			for p, v := range smp.Visible[k] {
				if v >= 0.5 {
					x1, y1, x2, y2 = min(x1, p%size), min(y1, p/size), max(x2, p%size), max(y2, p/size)
					area++
				}
				if smp.Mask[p] == uint8(ob.Class+1) {
					full++
				}
			}
			want := [4]float64{float64(x1), float64(y1), float64(x2 + 1), float64(y2 + 1)}
			if ob.Box != want || ob.Area != area {
				t.Errorf("image %d object %d: box %v area %d, want %v %d", i, k, ob.Box, ob.Area, want, area)
			}
			if full == 0 {
				t.Errorf("image %d object %d: no mask pixel of its class", i, k)
			}
			if b := ob.Box; b[0] < 0 || b[1] < 0 || b[2] > float64(size) || b[3] > float64(size) || b[2] <= b[0] || b[3] <= b[1] {
				t.Errorf("image %d object %d: bad box %v", i, k, b)
			}
		}
		// occlusion happens and is tracked
		for k := range smp.Objects {
			for j := k + 1; j < len(smp.Objects); j++ {
				if overlaps(smp.Objects[k].Box, smp.Objects[j].Box) {
					occluded++
				}
			}
		}
	}
	if occluded == 0 {
		t.Error("no two objects ever overlap in 30 images: occlusion is not exercised")
	}
}

func overlaps(a, b [4]float64) bool {
	return a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]
}

func TestWriteDeterministicAndReadable(t *testing.T) {
	l := testLibrary(t, false)
	dirs := []string{t.TempDir(), t.TempDir()}
	for j, workers := range []int{1, 3} {
		wo := WriteOptions{Options: testOpts, Train: 6, Eval: 3, Workers: workers}
		if err := Write(dirs[j], l, wo); err != nil {
			t.Fatal(err)
		}
	}
	var files []string
	err := filepath.WalkDir(dirs[0], func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dirs[0], p)
			files = append(files, rel)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 3*9+9 {
		t.Errorf("%d files written: %v", len(files), files)
	}
	for _, f := range files {
		a, _ := os.ReadFile(filepath.Join(dirs[0], f))
		b, err := os.ReadFile(filepath.Join(dirs[1], f))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs between 1 and 3 workers (%v)", f, err)
		}
	}
	g, err := coco.ReadDataset(filepath.Join(dirs[0], "annotations", "instances_eval.json"))
	if err != nil {
		t.Fatal(err)
	}
	smp := l.Generate(Eval, 2, testOpts)
	var got [][4]float64
	for _, a := range g.Annotations {
		if a.ImageID == 3 {
			got = append(got, [4]float64{a.BBox[0], a.BBox[1], a.BBox[0] + a.BBox[2], a.BBox[1] + a.BBox[3]})
		}
	}
	if len(got) != len(smp.Objects) {
		t.Fatalf("eval image 3: %d annotations, want %d", len(got), len(smp.Objects))
	}
	for k, o := range smp.Objects {
		if got[k] != o.Box {
			t.Errorf("eval image 3 annotation %d: %v, want %v", k, got[k], o.Box)
		}
	}
	if len(g.Categories) != 3 || g.Categories[0].ID != 1 || g.Categories[2].Name != "blue" || g.Images[0].FileName != "images/eval/000000.jpg" {
		t.Errorf("categories %+v images[0] %+v", g.Categories, g.Images[0])
	}
	m, err := data.DecodeFile(filepath.Join(dirs[0], "masks", "eval", "000002.png"), data.Gray)
	if err != nil || !bytes.Equal(m.Pix, smp.Mask) {
		t.Errorf("mask file differs from the generated mask (%v)", err)
	}
	for name, want := range map[string]string{
		"label_list.txt": "red\ngreen\nblue\n",
		"labels.txt":     "background\nred\ngreen\nblue\n",
	} {
		if b, _ := os.ReadFile(filepath.Join(dirs[0], name)); string(b) != want {
			t.Errorf("%s = %q, want %q", name, b, want)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dirs[0], "seg_eval.txt")); !bytes.HasPrefix(b, []byte("images/eval/000000.jpg masks/eval/000000.png\n")) {
		t.Errorf("seg_eval.txt = %q", b)
	}
}

func TestNewLibraryErrors(t *testing.T) {
	st := []*Stamp{testStamp(0, "a", 8, 8), testStamp(0, "a", 8, 8)}
	bg := []*data.Image{data.NewImage(8, 8, 3), data.NewImage(8, 8, 3)}
	if _, err := NewLibrary([]string{"x"}, st, bg, []string{"1", "2"}); err == nil {
		t.Error("one object (twice): want an error")
	}
	st = append(st, testStamp(0, "b", 8, 8))
	if _, err := NewLibrary([]string{"x"}, st, bg[:1], []string{"1"}); err == nil {
		t.Error("one background: want an error")
	}
}

// TestRealData runs on the Tux Paint stamps and photo backgrounds when
// scripts/fetch_det_data.sh has put them in the cache (skipped otherwise).
func TestRealData(t *testing.T) {
	stamps, bgs := DefaultPaths()
	files, _ := BackgroundFiles(bgs)
	if _, err := os.Stat(stamps); err != nil || len(files) < 2 {
		t.Skipf("no stamps or backgrounds in the cache (%s, %s): run scripts/fetch_det_data.sh", stamps, bgs)
	}
	l, err := LoadLibrary(stamps, DefaultClasses, files)
	if err != nil {
		t.Fatal(err)
	}
	for c, name := range l.Classes {
		t.Logf("%-9s train %2d eval %2d stamps", name, len(l.Stamps[Train][c]), len(l.Stamps[Eval][c]))
	}
	t.Logf("backgrounds: train %d eval %d", len(l.Backgrounds[Train]), len(l.Backgrounds[Eval]))
	for i := range 2 {
		smp := l.Generate(Eval, i, Options{Seed: 1})
		if smp.Image.W != 320 || len(smp.Objects) == 0 {
			t.Errorf("eval %d: %dx%d with %d objects", i, smp.Image.W, smp.Image.H, len(smp.Objects))
		}
	}
}

// TestPretrainSplit checks the promise of PretrainClasses: its first classes
// split exactly as DefaultClasses do, so pretraining on its Train split never
// sees an eval object or background, and every extra class has objects.
func TestPretrainSplit(t *testing.T) {
	stamps, bgs := DefaultPaths()
	files, _ := BackgroundFiles(bgs)
	if _, err := os.Stat(filepath.Join(stamps, "seasonal")); err != nil || len(files) < 2 {
		t.Skipf("no pretraining stamps or backgrounds in the cache (%s, %s): run scripts/fetch_det_data.sh", stamps, bgs)
	}
	def, err := LoadLibrary(stamps, DefaultClasses, files)
	if err != nil {
		t.Fatal(err)
	}
	pre, err := LoadLibrary(stamps, PretrainClasses, files)
	if err != nil {
		t.Fatal(err)
	}
	names := func(ss []*Stamp) []string {
		var out []string
		for _, s := range ss {
			out = append(out, s.Name)
		}
		return out
	}
	for s := range 2 {
		for c := range DefaultClasses {
			if a, b := names(def.Stamps[s][c]), names(pre.Stamps[s][c]); !slices.Equal(a, b) {
				t.Errorf("%s %s: default %v, pretrain %v", Split(s), def.Classes[c], a, b)
			}
		}
		if !slices.Equal(def.BgNames[s], pre.BgNames[s]) {
			t.Errorf("%s backgrounds differ", Split(s))
		}
	}
	for c := len(DefaultClasses); c < len(PretrainClasses); c++ {
		t.Logf("%-12s train %2d eval %2d", pre.Classes[c], len(pre.Stamps[Train][c]), len(pre.Stamps[Eval][c]))
	}
	if _, err := ClassSet("imagenet"); err == nil {
		t.Error(`ClassSet("imagenet"): want an error`)
	}
}
