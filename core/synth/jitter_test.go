package synth

import (
	"bytes"
	"math"
	"slices"
	"testing"
)

// TestValidationSplit: the validation library splits the training objects
// and backgrounds in two, both non-empty per class, and holds no eval
// object or background.
func TestValidationSplit(t *testing.T) {
	l := testLibrary(t, false)
	v, err := l.Validation()
	if err != nil {
		t.Fatal(err)
	}
	names := func(sts []*Stamp) []string {
		var out []string
		for _, st := range sts {
			out = append(out, st.Name)
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	for c := range l.Classes {
		tr, ev, orig, held := names(v.Stamps[Train][c]), names(v.Stamps[Eval][c]), names(l.Stamps[Train][c]), names(l.Stamps[Eval][c])
		if len(tr) == 0 || len(ev) == 0 {
			t.Fatalf("class %d: %d train and %d validation objects", c, len(tr), len(ev))
		}
		if got := slices.Sorted(slices.Values(append(slices.Clone(tr), ev...))); !slices.Equal(got, orig) {
			t.Errorf("class %d: validation train+eval objects %v, want the training objects %v", c, got, orig)
		}
		for _, n := range ev {
			if slices.Contains(tr, n) || slices.Contains(held, n) {
				t.Errorf("class %d: validation object %s also in train or eval", c, n)
			}
		}
	}
	if len(v.BgNames[Train]) == 0 || len(v.BgNames[Eval]) == 0 ||
		len(v.BgNames[Train])+len(v.BgNames[Eval]) != len(l.BgNames[Train]) {
		t.Fatalf("validation backgrounds %v + %v, want a split of %v", v.BgNames[Train], v.BgNames[Eval], l.BgNames[Train])
	}
	for _, b := range v.BgNames[Eval] {
		if !slices.Contains(l.BgNames[Train], b) || slices.Contains(v.BgNames[Train], b) {
			t.Errorf("validation background %s not a held-out training background", b)
		}
	}
}

// TestObjectJitter: contrast, saturation and stretch jitter change the
// images, keep each box tight around its visible alpha (≥ 0.5) and keep
// premultiplied colour within the alpha (on black, a channel never exceeds
// 255 × coverage); with them off the images are what they were.
func TestObjectJitter(t *testing.T) {
	l := testLibrary(t, true)
	plain := testOpts
	plain.Brightness = -1
	o := plain
	o.Contrast, o.Saturation, o.Stretch = 0.4, 0.4, 0.3
	changed := 0
	for i := range 20 {
		a, b := l.Generate(Train, i, plain), l.Generate(Train, i, o)
		if !bytes.Equal(a.Image.Pix, b.Image.Pix) {
			changed++
		}
		size := o.Size
		for k, ob := range b.Objects {
			x1, y1, x2, y2 := size, size, -1, -1
			for p, v := range b.Visible[k] {
				if v >= 0.5 {
					x1, y1, x2, y2 = min(x1, p%size), min(y1, p/size), max(x2, p%size), max(y2, p/size)
				}
			}
			if want := [4]float64{float64(x1), float64(y1), float64(x2 + 1), float64(y2 + 1)}; ob.Box != want {
				t.Errorf("image %d object %d: box %v, want %v", i, k, ob.Box, want)
			}
		}
		for p := range size * size {
			cov := 0.0
			for k := range b.Objects {
				cov += float64(b.Visible[k][p])
			}
			for c := range 3 {
				if v := float64(b.Image.Pix[p*3+c]); v > 255*cov+1.01 {
					t.Fatalf("image %d pixel %d channel %d = %v over 255 × coverage %.3f", i, p, c, v, cov)
				}
			}
		}
	}
	if changed < 15 {
		t.Errorf("jitter changed %d of 20 images", changed)
	}
}

func TestJitterColour(t *testing.T) {
	px := [4]float32{0.4, 0.2, 0.1, 0.5} // premultiplied, alpha 0.5
	jitterColour(&px, 1, 0)              // saturation 0: every channel the luma
	gray := float32(0.299*0.4 + 0.587*0.2 + 0.114*0.1)
	for k := range 3 {
		if math.Abs(float64(px[k]-gray)) > 1e-6 {
			t.Fatalf("saturation 0: %v, want all %v", px, gray)
		}
	}
	px = [4]float32{0.4, 0.25, 0.1, 0.5}
	jitterColour(&px, 2, 1) // contrast 2 about mid-grey (0.25 premultiplied)
	if want := [4]float32{0.5, 0.25, 0, 0.5}; px != want {
		t.Errorf("contrast 2: %v, want %v (clipped to [0, alpha])", px, want)
	}
}
