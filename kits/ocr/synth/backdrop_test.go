package synth

import (
	"image"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"paddle/core/data"
)

// With Paper and Photo at zero, backdrop draws what colours and background
// drew before them, and consumes the same random numbers, so data rendered
// without the new flags (the held-out sets) stays byte-identical.
func TestBackdropOffUnchanged(t *testing.T) {
	for seed := range uint64(20) {
		a := DefaultAugment()
		r1, r2 := rand.New(rand.NewPCG(seed, 1)), rand.New(rand.NewPCG(seed, 1))
		pix, fg := backdrop(50, 20, a, r1)
		bg, fg2 := colours(a, r2)
		want := background(50, 20, bg, a, r2)
		if fg != fg2 || !slices.Equal(pix, want) || r1.Uint64() != r2.Uint64() {
			t.Fatalf("seed %d: backdrop differs from colours+background", seed)
		}
	}
}

// Paper adds texture around the canvas colour: pixels vary, the mean stays
// near the colour (tint and fibres darken a little).
func TestPaper(t *testing.T) {
	w, h := 200, 60
	pix := make([]float64, w*h*3)
	for i := range pix {
		pix[i] = 220
	}
	paper(pix, w, h, rand.New(rand.NewPCG(3, 3)))
	var mean, sq float64
	for _, v := range pix {
		mean += v
	}
	mean /= float64(len(pix))
	for _, v := range pix {
		sq += (v - mean) * (v - mean)
	}
	sd := math.Sqrt(sq / float64(len(pix)))
	if mean < 200 || mean > 225 || sd < 1 || sd > 30 {
		t.Fatalf("paper: mean %.1f sd %.1f, want near 220 with some texture", mean, sd)
	}
}

// A photo backdrop follows the photo (its dark half stays darker), and the
// text colour is at least 110 grey levels from the crop's mean.
func TestPhotoContrast(t *testing.T) {
	p := data.NewImage(100, 400, 3)
	for y := range p.H {
		for x := range p.W {
			for c := range 3 {
				p.Pix[(y*p.W+x)*3+c] = uint8(40 + 160*(x*2/p.W)) // left dark, right light
			}
		}
	}
	w, h := 120, 30
	for seed := range uint64(50) {
		pix := make([]float64, w*h*3)
		fg := photo(pix, w, h, p, rand.New(rand.NewPCG(seed, 9)))
		var mean float64
		for _, v := range pix {
			mean += v
		}
		mean /= float64(len(pix))
		if d := math.Abs(mean - (fg[0]+fg[1]+fg[2])/3); d < 100 {
			t.Errorf("seed %d: text %.0f on background mean %.0f", seed, fg, mean)
		}
		left, right := pix[(h/2*w+0)*3], pix[(h/2*w+w-1)*3]
		if left > right+1e-9 {
			t.Errorf("seed %d: left %.1f brighter than right %.1f", seed, left, right)
		}
	}
}

func TestLoadPhotos(t *testing.T) {
	dir := t.TempDir()
	img := image.NewRGBA(image.Rect(0, 0, 2048, 1000))
	for x := range 2048 {
		for y := range 1000 {
			img.Set(x, y, color.RGBA{uint8(x / 8), 100, uint8(y / 4), 255})
		}
	}
	f, _ := os.Create(filepath.Join(dir, "a.png"))
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
	f.Close()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a photo"), 0o644)
	ps, err := LoadPhotos(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 1 || ps[0].W != 1024 || ps[0].H != 500 {
		t.Fatalf("loaded %d photos, first %dx%d; want one of 1024x500", len(ps), ps[0].W, ps[0].H)
	}
	if got := ps[0].Pix[(250*1024+512)*3]; got < 125 || got > 130 { // x/8 at x≈1025
		t.Errorf("scaled pixel red %d, want ≈128", got)
	}
	bad := filepath.Join(dir, "bad.jpg")
	os.WriteFile(bad, []byte("not a jpeg"), 0o644)
	if _, err := LoadPhotos(dir); err == nil || !strings.Contains(err.Error(), "bad.jpg") {
		t.Errorf("corrupt photo: err %v, want one naming bad.jpg", err)
	}
	if _, err := LoadPhotos(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no .jpg or .png") {
		t.Errorf("empty folder: err %v", err)
	}
}
