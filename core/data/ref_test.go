package data

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	pio "paddle/core/io"
)

// TestDecodeMatchesOpenCV compares Decode with cv2.imread on files written
// by scripts/ref/data_image_ref.py. PNG must match exactly. JPEG differs
// only by the two decoders' IDCT rounding (Go's image/jpeg vs libjpeg-turbo's
// islow): chroma upsampling and colour conversion follow libjpeg exactly;
// with Go's own nearest-chroma conversion the 4:2:0 file was off by up to 9.
func TestDecodeMatchesOpenCV(t *testing.T) {
	for _, tt := range []struct {
		file         string
		maxBGR, maxG int
	}{
		{"photo.png", 0, 0},
		{"photo_444.jpg", 2, 1},
		{"photo_422.jpg", 2, 1},
		{"photo_420.jpg", 2, 1},
	} {
		for _, mode := range []ColorMode{BGR, Gray} {
			name := fmt.Sprintf("%s/%v", tt.file, mode)
			t.Run(name, func(t *testing.T) {
				m, err := DecodeFile(filepath.Join("testdata", tt.file), mode)
				if err != nil {
					t.Fatal(err)
				}
				ref := fmt.Sprintf("%s_%s_%s.npy", tt.file[:len(tt.file)-4], tt.file[len(tt.file)-3:], map[ColorMode]string{BGR: "bgr", Gray: "gray"}[mode])
				want := loadNpyImage(t, ref)
				limit := tt.maxBGR
				if mode == Gray {
					limit = tt.maxG
				}
				worst, n := pixelDiff(m, want)
				if worst > limit || n > len(want.Pix)/20 {
					t.Errorf("max diff %d (limit %d), %d of %d values differ from cv2.imread", worst, limit, n, len(want.Pix))
				}
			})
		}
	}
}

// TestRotateMatchesTorchvision compares Rotate with torchvision's rotate
// (bilinear, fill 9) wherever all four source neighbours are inside the
// image. At the border torchvision blends the fill with mask*value where
// the mask is already folded into value (so partly covered pixels darken
// twice); Rotate weights the fill by the uncovered area only.
func TestRotateMatchesTorchvision(t *testing.T) {
	src := loadNpyImage(t, "src_rgb.npy")
	for _, a := range []float64{17, -30, 90} {
		want := loadNpyImage(t, fmt.Sprintf("rotate_%g.npy", a))
		mask, err := pio.ReadNpy(filepath.Join("testdata", fmt.Sprintf("rotate_mask_%g.npy", a)))
		if err != nil {
			t.Fatal(err)
		}
		got := Rotate(src, a, 9)
		inside, bad, worst := 0, 0, 0
		for i, in := range mask.Bools() {
			if !in {
				continue
			}
			inside++
			for c := range 3 {
				d := int(got.Pix[3*i+c]) - int(want.Pix[3*i+c])
				worst = max(worst, d, -d)
				if d != 0 {
					bad++
				}
			}
		}
		t.Logf("rotate %g: %d interior pixels, %d values differ, max %d", a, inside, bad, worst)
		if inside < src.H*src.W/2 || worst > 1 || bad > inside/50 {
			t.Errorf("rotate %g: %d interior pixels, %d values differ, max %d", a, inside, bad, worst)
		}
	}
}

// TestDecodeEXIFOrientation: JPEGs tagged with each EXIF orientation come
// out turned as cv2.imread turns them (the reference picture is 12x7 with
// coloured blocks in three corners, so a wrong turn changes whole blocks).
func TestDecodeEXIFOrientation(t *testing.T) {
	for o := 1; o <= 8; o++ {
		m, err := DecodeFile(filepath.Join("testdata", fmt.Sprintf("exif_%d.jpg", o)), BGR)
		if err != nil {
			t.Fatal(err)
		}
		want := loadNpyImage(t, fmt.Sprintf("exif_%d_bgr.npy", o))
		if worst, _ := pixelDiff(m, want); worst > 3 {
			t.Errorf("orientation %d: got %dx%d, want %dx%d, max diff %d", o, m.W, m.H, want.W, want.H, worst)
		}
	}
}

func TestJPEGOrientationRobust(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "exif_6.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	if o := jpegOrientation(data); o != 6 {
		t.Fatalf("orientation = %d, want 6", o)
	}
	for n := range len(data) { // every truncation: no panic, and a value in range
		if o := jpegOrientation(data[:n]); o < 1 || o > 8 {
			t.Fatalf("prefix %d: orientation %d", n, o)
		}
	}
	for i := 2; i < min(len(data), 200); i++ { // corrupt bytes in the header area
		c := bytes.Clone(data)
		c[i] ^= 0xff
		jpegOrientation(c)
	}
	tr := Transpose(img3(2, 3))
	if tr.W != 2 || tr.H != 3 || tr.At(2, 1, 0) != 12 || tr.At(0, 1, 1) != 110 {
		t.Errorf("Transpose: %dx%d, (2,1)=%d (0,1,1)=%d", tr.W, tr.H, tr.At(2, 1, 0), tr.At(0, 1, 1))
	}
}
