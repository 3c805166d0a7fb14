package seg

import (
	"math/rand/v2"
	"slices"
	"testing"

	"paddle/core/data"
)

// positional makes a w×h image whose R channel and label both hold
// y*w+x (mod 250), so alignment after a transform can be checked.
func positional(w, h int) item {
	img := data.NewImage(h, w, 3)
	lab := &LabelMap{H: h, W: w, Pix: make([]uint8, w*h)}
	for i := range w * h {
		v := uint8(i % 250)
		img.Pix[3*i], img.Pix[3*i+1], img.Pix[3*i+2] = v, 7, 9
		lab.Pix[i] = v
	}
	return item{Path: "p", Img: img, Lab: lab}
}

func aligned(t *testing.T, s item, padIm, padLab uint8) {
	t.Helper()
	if s.Img.W != s.Lab.W || s.Img.H != s.Lab.H {
		t.Fatalf("image %dx%d, label %dx%d", s.Img.W, s.Img.H, s.Lab.W, s.Lab.H)
	}
	for i, l := range s.Lab.Pix {
		r := s.Img.Pix[3*i]
		if l == padLab {
			if r != padIm || s.Img.Pix[3*i+1] != padIm {
				t.Fatalf("pixel %d: label padded but image holds %d", i, r)
			}
			continue
		}
		if r != l {
			t.Fatalf("pixel %d: image %d, label %d: not aligned", i, r, l)
		}
	}
}

func TestResizeLabelNearest(t *testing.T) {
	m := &LabelMap{H: 2, W: 5, Pix: []uint8{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}}
	// cv2 INTER_NEAREST: source x = floor(x·5/2) → 0, 2; y = floor(y·2/2)
	if got := resizeLabel(m, 2, 2).Pix; !slices.Equal(got, []uint8{0, 2, 5, 7}) {
		t.Errorf("5x2 → 2x2 = %v, want [0 2 5 7]", got)
	}
	// up 2x: every pixel doubled
	up := resizeLabel(&LabelMap{H: 1, W: 2, Pix: []uint8{3, 255}}, 4, 2).Pix
	if want := []uint8{3, 3, 255, 255, 3, 3, 255, 255}; !slices.Equal(up, want) {
		t.Errorf("2x1 → 4x2 = %v, want %v", up, want)
	}
}

func TestRandomPaddingCrop(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	// smaller than the crop: padded at the bottom and right only
	s := positional(3, 2)
	randomPaddingCrop(&s, 4, 4, 128, 255, r)
	want := []uint8{0, 1, 2, 255, 3, 4, 5, 255, 255, 255, 255, 255, 255, 255, 255, 255}
	if !slices.Equal(s.Lab.Pix, want) {
		t.Errorf("padded label %v, want %v", s.Lab.Pix, want)
	}
	aligned(t, s, 128, 255)
	// larger: a random window, image and label cut at the same place
	seen := map[uint8]bool{}
	for range 20 {
		s := positional(9, 7)
		randomPaddingCrop(&s, 4, 3, 128, 255, r)
		if s.Img.W != 4 || s.Img.H != 3 {
			t.Fatalf("crop %dx%d, want 4x3", s.Img.W, s.Img.H)
		}
		aligned(t, s, 128, 255)
		seen[s.Lab.Pix[0]] = true
	}
	if len(seen) < 5 {
		t.Errorf("20 crops start at only %d places", len(seen))
	}
	// one side larger, one smaller: padded and cropped
	s = positional(6, 2)
	randomPaddingCrop(&s, 4, 3, 128, 255, r)
	aligned(t, s, 128, 255)
	if s.Lab.Pix[8] != 255 || s.Lab.Pix[0] == 255 {
		t.Errorf("mixed pad/crop label %v", s.Lab.Pix)
	}
}

func TestFlipAndScale(t *testing.T) {
	tr, err := buildTransforms(nil)
	if err != nil {
		t.Fatal(err)
	}
	s := positional(5, 3)
	if _, err := tr.Apply(&s, rand.New(rand.NewPCG(1, 1))); err != nil {
		t.Fatal(err)
	}
	if got := s.X.Shape(); got[0] != 3 || got[1] != 3 || got[2] != 5 {
		t.Errorf("default Normalize gives %v, want (3, 3, 5)", got)
	}
	if v := s.X.F32()[1]; v != (1.0/255-0.5)/0.5 {
		t.Errorf("normalized value %v, want (1/255-0.5)/0.5", v)
	}
	f := flipLabel(&LabelMap{H: 2, W: 3, Pix: []uint8{1, 2, 3, 4, 5, 6}})
	if !slices.Equal(f.Pix, []uint8{3, 2, 1, 6, 5, 4}) {
		t.Errorf("flip = %v", f.Pix)
	}
	sizes := map[int]bool{}
	r := rand.New(rand.NewPCG(2, 2))
	for range 40 {
		s := positional(40, 20)
		if err := resizeStepScaling(&s, ResizeStepScalingOpts{MinScaleFactor: 0.5, MaxScaleFactor: 1.5, ScaleStepSize: 0.5}, r); err != nil {
			t.Fatal(err)
		}
		if s.Lab.W != s.Img.W || s.Lab.H != s.Img.H || s.Img.H*2 != s.Img.W {
			t.Fatalf("scaled to image %dx%d, label %dx%d", s.Img.W, s.Img.H, s.Lab.W, s.Lab.H)
		}
		sizes[s.Img.W] = true
	}
	if len(sizes) != 3 || !sizes[20] || !sizes[40] || !sizes[60] {
		t.Errorf("widths %v, want exactly 20, 40 and 60 (scales 0.5, 1, 1.5)", sizes)
	}
}
