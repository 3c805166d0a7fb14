package det

import (
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/synth"
)

// fakePhotos writes 2 RGBA disc stamps per default class and 3 background photos.
func fakePhotos(t *testing.T) (stamps, bgs string) {
	t.Helper()
	dir := t.TempDir()
	stamps, bgs = filepath.Join(dir, "stamps"), filepath.Join(dir, "bg")
	write := func(p string, m image.Image) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := png.Encode(f, m); err != nil {
			t.Fatal(err)
		}
	}
	for c, cl := range synth.DefaultClasses {
		for j := range 2 {
			m := image.NewNRGBA(image.Rect(0, 0, 24+4*j, 20))
			for y := range 20 {
				for x := range 24 + 4*j {
					dx, dy := float64(x-12-2*j)/float64(12+2*j), float64(y-10)/10
					if dx*dx+dy*dy < 1 {
						m.SetNRGBA(x, y, color.NRGBA{uint8(30 * c), uint8(200 - 20*c), uint8(50 * j), 255})
					}
				}
			}
			write(filepath.Join(stamps, cl.Dirs[0], string(rune('a'+j))+".png"), m)
		}
	}
	for i := range 3 {
		m := image.NewRGBA(image.Rect(0, 0, 90, 70))
		for j := range m.Pix {
			m.Pix[j] = uint8(j*(i+3)) | 3
		}
		write(filepath.Join(bgs, string(rune('x'+i))+".png"), m)
	}
	return stamps, bgs
}

// TestSynthCommand writes a tiny set and reads it back with both readers: the COCO and VOC
// annotations agree box for box.
func TestSynthCommand(t *testing.T) {
	stamps, bgs := fakePhotos(t)
	out := filepath.Join(t.TempDir(), "set")
	code, stdout, stderr := runPaddle(t, "det", "synth", "--output", out, "--train", "5", "--eval", "3",
		"--size", "96", "--seed", "4", "--stamps", stamps, "--backgrounds", bgs)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "train: 5 images") || !strings.Contains(stdout, "eval: 3 images") {
		t.Errorf("stdout = %q", stdout)
	}
	for _, split := range []string{"train", "eval"} {
		c, err := ReadCOCO(filepath.Join(out, "annotations", "instances_"+split+".json"), out)
		if err != nil {
			t.Fatal(err)
		}
		v, err := ReadVOC(out, filepath.Join(out, split+".txt"), filepath.Join(out, "label_list.txt"))
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Records) != len(v.Records) || len(c.Classes) != 8 || strings.Join(c.Classes, ",") != strings.Join(v.Classes, ",") {
			t.Fatalf("%s: COCO %d records %v, VOC %d records %v", split, len(c.Records), c.Classes, len(v.Records), v.Classes)
		}
		n := 0
		for i := range c.Records {
			a, b := c.Records[i], v.Records[i]
			if a.Image != b.Image || a.Width != 96 || b.Height != 96 || len(a.Objects) != len(b.Objects) {
				t.Fatalf("%s record %d: COCO %+v VOC %+v", split, i, a, b)
			}
			for k := range a.Objects {
				if a.Objects[k].Box != b.Objects[k].Box || a.Objects[k].Class != b.Objects[k].Class {
					t.Errorf("%s record %d object %d: COCO %+v VOC %+v", split, i, k, a.Objects[k], b.Objects[k])
				}
				n++
			}
		}
		if n == 0 {
			t.Errorf("%s: no objects", split)
		}
	}
	code, _, stderr = runPaddle(t, "det", "synth", "--output", out, "--stamps", filepath.Join(stamps, "none"), "--backgrounds", bgs)
	if code != 1 || !strings.Contains(stderr, "fetch_det_data.sh") {
		t.Errorf("missing stamps: exit %d, stderr %q", code, stderr)
	}
}
