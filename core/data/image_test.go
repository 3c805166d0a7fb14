package data

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"

	pio "paddle/core/io"
)

// loadNpyImage reads an HWC (or HW gray) uint8 array written by scripts/ref/data_image_ref.py.
func loadNpyImage(t *testing.T, name string) *Image {
	t.Helper()
	a, err := pio.ReadNpy(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	s := a.Shape()
	c := 1
	if len(s) == 3 {
		c = s[2]
	}
	return &Image{H: s[0], W: s[1], C: c, Pix: a.U8()}
}

// pixelDiff returns the largest absolute difference and the number of differing values.
func pixelDiff(a, b *Image) (int, int) {
	if a.H != b.H || a.W != b.W || a.C != b.C {
		return math.MaxInt, -1
	}
	worst, n := 0, 0
	for i := range a.Pix {
		d := int(a.Pix[i]) - int(b.Pix[i])
		if d != 0 {
			n++
		}
		worst = max(worst, d, -d)
	}
	return worst, n
}

func TestResizeMatchesOpenCV(t *testing.T) {
	cases := []struct {
		src  string
		w, h int
	}{
		{"rgb", 15, 11}, {"rgb", 50, 40}, {"rgb", 8, 45}, {"rgb", 31, 7},
		{"even", 16, 12}, {"even", 64, 48}, {"gray", 20, 5}, {"gray", 3, 30},
	}
	for _, tt := range cases {
		name := fmt.Sprintf("resize_%s_%dx%d.npy", tt.src, tt.w, tt.h)
		t.Run(name, func(t *testing.T) {
			src := loadNpyImage(t, "src_"+tt.src+".npy")
			want := loadNpyImage(t, name)
			got, err := Resize(src, tt.w, tt.h)
			if err != nil {
				t.Fatal(err)
			}
			if worst, n := pixelDiff(got, want); n != 0 {
				t.Errorf("max diff %d, %d of %d values differ from cv2.resize", worst, n, len(want.Pix))
			}
		})
	}
}

func TestResizeConstantStaysConstant(t *testing.T) {
	for _, v := range []uint8{0, 1, 127, 254, 255} {
		m := NewImage(7, 11, 3)
		for i := range m.Pix {
			m.Pix[i] = v
		}
		for _, sz := range [][2]int{{1, 1}, {3, 2}, {11, 7}, {23, 17}, {100, 3}} {
			got, err := Resize(m, sz[0], sz[1])
			if err != nil {
				t.Fatal(err)
			}
			if got.W != sz[0] || got.H != sz[1] {
				t.Fatalf("size %dx%d, want %v", got.W, got.H, sz)
			}
			for i, p := range got.Pix {
				if p != v {
					t.Fatalf("constant %d resized to %v: value %d at %d", v, sz, p, i)
				}
			}
		}
	}
	if _, err := Resize(NewImage(2, 2, 1), 0, 3); err == nil {
		t.Error("resize to width 0: no error")
	}
}

func TestResizeShort(t *testing.T) {
	m := NewImage(30, 45, 3)
	got, err := ResizeShort(m, 20)
	if err != nil {
		t.Fatal(err)
	}
	if got.W != 30 || got.H != 20 {
		t.Errorf("ResizeShort(45x30, 20) = %dx%d, want 30x20", got.W, got.H)
	}
	// 25 * 10/4 = 62.5 rounds half to even (Python's round): 62.
	got, _ = ResizeShort(NewImage(4, 25, 1), 10)
	if got.W != 62 || got.H != 10 {
		t.Errorf("ResizeShort(25x4, 10) = %dx%d, want 62x10", got.W, got.H)
	}
}

func TestColorMatchesTorchvision(t *testing.T) {
	src := loadNpyImage(t, "src_rgb.npy")
	for _, f := range []float64{0, 0.5, 1.3, 2} {
		for _, fn := range []string{"brightness", "contrast", "saturation"} {
			want := loadNpyImage(t, fmt.Sprintf("%s_%.1f.npy", fn, f))
			var got *Image
			bgrSrc := src.Clone()
			SwapRB(bgrSrc)
			var gotBGR *Image
			switch fn {
			case "brightness":
				got = AdjustBrightness(src, f)
				gotBGR = AdjustBrightness(bgrSrc, f)
			case "contrast":
				got = AdjustContrast(src, f, false)
				gotBGR = AdjustContrast(bgrSrc, f, true)
			case "saturation":
				got = AdjustSaturation(src, f, false)
				gotBGR = AdjustSaturation(bgrSrc, f, true)
			}
			if worst, n := pixelDiff(got, want); n != 0 {
				t.Errorf("%s %.1f: %d values differ from torchvision (max %d)", fn, f, n, worst)
			}
			SwapRB(gotBGR)
			if _, n := pixelDiff(gotBGR, want); n != 0 {
				t.Errorf("%s %.1f on BGR: %d values differ", fn, f, n)
			}
		}
	}
}

// img3 builds a 3-channel image whose pixel (y, x) is (10y+x, 100+10y+x, 200+x).
func img3(h, w int) *Image {
	m := NewImage(h, w, 3)
	for y := range h {
		for x := range w {
			m.Set(y, x, 0, uint8(10*y+x))
			m.Set(y, x, 1, uint8(100+10*y+x))
			m.Set(y, x, 2, uint8(200+x))
		}
	}
	return m
}

func TestFlipCropExact(t *testing.T) {
	m := img3(3, 4)
	h := FlipH(m)
	v := FlipV(m)
	for y := range 3 {
		for x := range 4 {
			for c := range 3 {
				if h.At(y, x, c) != m.At(y, 3-x, c) || v.At(y, x, c) != m.At(2-y, x, c) {
					t.Fatalf("flip wrong at (%d,%d,%d)", y, x, c)
				}
			}
		}
	}
	if h.At(0, 0, 0) != 3 || v.At(0, 0, 0) != 20 {
		t.Errorf("FlipH(0,0)=%d want 3; FlipV(0,0)=%d want 20", h.At(0, 0, 0), v.At(0, 0, 0))
	}
	c, err := Crop(m, 1, 1, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := []uint8{11, 111, 201, 12, 112, 202, 21, 121, 201, 22, 122, 202}
	if !bytes.Equal(c.Pix, want) {
		t.Errorf("Crop = %v, want %v", c.Pix, want)
	}
	cc, _ := CenterCrop(img3(5, 6), 3, 2) // start x (6-3)/2 = 1, y (5-2)/2 = 1
	if cc.At(0, 0, 0) != 11 || cc.At(1, 2, 0) != 23 {
		t.Errorf("CenterCrop corner values %d, %d; want 11, 23", cc.At(0, 0, 0), cc.At(1, 2, 0))
	}
	if _, err := Crop(m, 3, 0, 2, 1); err == nil {
		t.Error("crop past the right edge: no error")
	}
}

func TestRotate(t *testing.T) {
	m := img3(5, 5)
	if _, n := pixelDiff(Rotate(m, 0, 0), m); n != 0 {
		t.Error("Rotate by 0 changed the image")
	}
	r90 := Rotate(m, 90, 0)
	// Counter-clockwise: the right column becomes the top row.
	for y := range 5 {
		for x := range 5 {
			if r90.At(y, x, 0) != m.At(x, 4-y, 0) {
				t.Fatalf("Rotate 90 at (%d,%d) = %d, want %d", y, x, r90.At(y, x, 0), m.At(x, 4-y, 0))
			}
		}
	}
	if _, n := pixelDiff(Rotate(m, 180, 0), FlipH(FlipV(m))); n != 0 {
		t.Error("Rotate 180 != flip both ways")
	}
	// 45° of a non-square image: corners fall outside and take the fill value.
	r45 := Rotate(img3(6, 10), 45, 7)
	if r45.At(0, 0, 1) != 7 || r45.At(5, 9, 2) != 7 {
		t.Errorf("Rotate 45 corners = %d, %d, want fill 7", r45.At(0, 0, 1), r45.At(5, 9, 2))
	}
}

func TestToTensor(t *testing.T) {
	m := &Image{H: 1, W: 2, C: 3, Pix: []uint8{0, 51, 255, 102, 204, 153}}
	mean := []float32{0.485, 0.456, 0.406}
	std := []float32{0.229, 0.224, 0.225}
	x, err := ToTensor(m, 0, mean, std)
	if err != nil {
		t.Fatal(err)
	}
	if c, h, w := x.Dims3(); c != 3 || h != 1 || w != 2 {
		t.Fatalf("shape %v, want (3, 1, 2)", x.Shape())
	}
	// (v/255 - mean[c]) / std[c], laid out channel-major.
	want := []float64{
		(0 - 0.485) / 0.229, (0.4 - 0.485) / 0.229,
		(0.2 - 0.456) / 0.224, (0.8 - 0.456) / 0.224,
		(1 - 0.406) / 0.225, (0.6 - 0.406) / 0.225,
	}
	for i, g := range x.F32() {
		if math.Abs(float64(g)-want[i]) > 1e-5 {
			t.Errorf("element %d = %v, want %v", i, g, want[i])
		}
	}
	if _, err := ToTensor(m, 0, []float32{1}, nil); err == nil {
		t.Error("1 mean value for 3 channels: no error")
	}
	y, _ := ToTensor(m, 1, nil, nil)
	if y.F32()[1] != 102 {
		t.Errorf("scale 1, no mean/std: got %v, want 102", y.F32()[1])
	}
}

func TestDecodeRoundTrip(t *testing.T) {
	src := img3(4, 6)
	std := src.ToStd()
	enc := map[string]func(*bytes.Buffer) error{
		"png":  func(b *bytes.Buffer) error { return png.Encode(b, std) },
		"bmp":  func(b *bytes.Buffer) error { return bmp.Encode(b, std) },
		"tiff": func(b *bytes.Buffer) error { return tiff.Encode(b, std, nil) },
		"gif": func(b *bytes.Buffer) error {
			return gif.Encode(b, std, &gif.Options{NumColors: 256, Quantizer: exactQuantizer{}})
		},
	}
	for name, e := range enc {
		var b bytes.Buffer
		if err := e(&b); err != nil {
			t.Fatal(err)
		}
		if f := Format(b.Bytes()); f != name {
			t.Errorf("Format = %q, want %q", f, name)
		}
		rgb, err := Decode(b.Bytes(), RGB)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, n := pixelDiff(rgb, src); n != 0 {
			t.Errorf("%s RGB round trip: %d values differ", name, n)
		}
		bgr, _ := Decode(b.Bytes(), BGR)
		if bgr.At(1, 2, 0) != src.At(1, 2, 2) || bgr.At(1, 2, 2) != src.At(1, 2, 0) {
			t.Errorf("%s BGR: channels not swapped", name)
		}
		g, _ := Decode(b.Bytes(), Gray)
		p := src.Pix[(1*6+2)*3:]
		want := gray8(p[0], p[1], p[2])
		if name == "png" {
			want = pngGray(p[0], p[1], p[2]) // libpng's conversion, as OpenCV's PNG reader
		}
		if g.C != 1 || g.At(1, 2, 0) != want {
			t.Errorf("%s gray = %d, want %d", name, g.At(1, 2, 0), want)
		}
	}
	// JPEG is lossy: a flat colour survives within a few levels.
	flat := NewImage(16, 16, 3)
	for i := range flat.Pix {
		flat.Pix[i] = []uint8{200, 100, 50}[i%3]
	}
	var jb bytes.Buffer
	jpeg.Encode(&jb, flat.ToStd(), &jpeg.Options{Quality: 95})
	j, err := Decode(jb.Bytes(), RGB)
	if err != nil {
		t.Fatal(err)
	}
	if worst, _ := pixelDiff(j, flat); worst > 3 {
		t.Errorf("JPEG round trip max diff %d", worst)
	}
}

// exactQuantizer puts every distinct colour of a small image in the palette.
type exactQuantizer struct{}

func (exactQuantizer) Quantize(p color.Palette, m image.Image) color.Palette {
	seen := map[color.Color]bool{}
	b := m.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.RGBAModel.Convert(m.At(x, y))
			if !seen[c] {
				seen[c] = true
				p = append(p, c)
			}
		}
	}
	return p
}

func TestDecodeWebP(t *testing.T) {
	m, err := DecodeFile(filepath.Join("testdata", "pattern.webp"), RGB)
	if err != nil {
		t.Fatal(err)
	}
	if m.W != 5 || m.H != 4 {
		t.Fatalf("size %dx%d, want 5x4", m.W, m.H)
	}
	for y := range 4 {
		for x := range 5 {
			want := [3]uint8{uint8(x * 50), uint8(y * 60), uint8((x + y) * 20)}
			if got := [3]uint8{m.At(y, x, 0), m.At(y, x, 1), m.At(y, x, 2)}; got != want {
				t.Errorf("pixel (%d,%d) = %v, want %v", y, x, got, want)
			}
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	if _, err := Decode([]byte("hello"), RGB); err == nil {
		t.Error("unknown format: no error")
	}
	var b bytes.Buffer
	png.Encode(&b, img3(8, 8).ToStd())
	full := b.Bytes()
	for n := 8; n < len(full); n += 3 {
		if _, err := Decode(full[:n], RGB); err == nil {
			t.Errorf("PNG truncated to %d bytes: no error", n)
		}
	}
	if _, err := DecodeFile("testdata/none.png", RGB); err == nil {
		t.Error("missing file: no error")
	}
}

func TestRandomTransforms(t *testing.T) {
	m := img3(20, 30)
	for seed := range uint64(50) {
		r := rand.New(rand.NewPCG(seed, 7))
		x, y, w, h := RandomResizedCrop{W: 8, H: 8}.Params(30, 20, r)
		if x < 0 || y < 0 || w <= 0 || h <= 0 || x+w > 30 || y+h > 20 {
			t.Fatalf("seed %d: crop (%d,%d,%d,%d) outside 30x20", seed, x, y, w, h)
		}
		c := m.Clone()
		if keep, err := (RandomResizedCrop{W: 8, H: 6}).Apply(c, r); err != nil || !keep || c.W != 8 || c.H != 6 {
			t.Fatalf("RandomResizedCrop gave %dx%d, %v", c.W, c.H, err)
		}
		c = m.Clone()
		if _, err := (RandomCrop{W: 5, H: 4}).Apply(c, r); err != nil || c.W != 5 || c.H != 4 {
			t.Fatalf("RandomCrop gave %dx%d, %v", c.W, c.H, err)
		}
	}
	// Scale above 1 never fits: the centre crop fallback clamps the aspect ratio to 4/3.
	x, y, w, h := RandomResizedCrop{Scale: [2]float64{2, 3}}.Params(40, 10, rand.New(rand.NewPCG(1, 1)))
	if w != 13 || h != 10 || x != 13 || y != 0 {
		t.Errorf("fallback crop = (%d,%d,%d,%d), want (13,0,13,10)", x, y, w, h)
	}
	if _, err := (RandomCrop{W: 31, H: 4}).Apply(m.Clone(), rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Error("RandomCrop larger than the image: no error")
	}
	// Same RNG seed, same result; both flips happen over many draws.
	flips := 0
	for seed := range uint64(40) {
		a, b := m.Clone(), m.Clone()
		RandomFlip{}.Apply(a, rand.New(rand.NewPCG(seed, 0)))
		RandomFlip{}.Apply(b, rand.New(rand.NewPCG(seed, 0)))
		if _, n := pixelDiff(a, b); n != 0 {
			t.Fatal("RandomFlip is not a function of its RNG")
		}
		if _, n := pixelDiff(a, m); n != 0 {
			flips++
		}
	}
	if flips < 5 || flips > 35 {
		t.Errorf("RandomFlip(P=0.5) flipped %d of 40", flips)
	}
	c := m.Clone()
	ColorJitter{}.Apply(c, rand.New(rand.NewPCG(1, 1)))
	if _, n := pixelDiff(c, m); n != 0 {
		t.Error("ColorJitter with no strengths changed the image")
	}
	ColorJitter{Brightness: 0.5, Contrast: 0.5, Saturation: 0.5}.Apply(c, rand.New(rand.NewPCG(1, 1)))
	if _, n := pixelDiff(c, m); n == 0 {
		t.Error("ColorJitter did nothing")
	}
	c = m.Clone()
	RandomRotate{Degrees: 10, Fill: 0}.Apply(c, rand.New(rand.NewPCG(3, 3)))
	if c.W != 30 || c.H != 20 {
		t.Errorf("RandomRotate changed the size to %dx%d", c.W, c.H)
	}
}

func TestDecodeRefusesTooManyPixelsBeforeAllocating(t *testing.T) {
	// issue 24's reproduction: 352 bytes whose header declares 100000×100000 RGB
	path := filepath.Join("testdata", "huge_100000x100000.png")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := DecodeFile(path, RGB)
	runtime.ReadMemStats(&after)
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Width != 100000 || tl.Height != 100000 || tl.Limit != DefaultMaxPixels {
		t.Fatalf("huge PNG: err = %v, want a TooLargeError for 100000×100000 at the default limit", err)
	}
	for _, want := range []string{path, "100000×100000", "--max-pixels", "100000000"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 8<<20 {
		t.Errorf("refusing the huge PNG allocated %d bytes, want < 8 MiB", got)
	}
}

func TestSetMaxPixels(t *testing.T) {
	defer SetMaxPixels(MaxPixels())
	var b bytes.Buffer
	png.Encode(&b, img3(20, 30).ToStd())
	SetMaxPixels(600)
	if _, err := Decode(b.Bytes(), RGB); err != nil {
		t.Fatalf("20×30 at a limit of 600 pixels: %v", err)
	}
	SetMaxPixels(599)
	var tl *TooLargeError
	if _, err := Decode(b.Bytes(), RGB); !errors.As(err, &tl) || tl.Limit != 599 {
		t.Fatalf("20×30 at a limit of 599 pixels: err = %v, want a TooLargeError", err)
	}
}

// A GIF whose first frame covers part of its logical screen decodes at the
// screen's size, the frame at its place and black elsewhere; a header with
// no pixels is an error.
func TestDecodeGIFFramePlaced(t *testing.T) {
	pal := color.Palette{color.RGBA{0, 0, 0, 255}, color.RGBA{255, 0, 0, 255}}
	frame := image.NewPaletted(image.Rect(3, 1, 5, 3), pal)
	for i := range frame.Pix {
		frame.Pix[i] = 1 // red
	}
	var buf bytes.Buffer
	if err := gif.EncodeAll(&buf, &gif.GIF{Image: []*image.Paletted{frame}, Delay: []int{0},
		Config: image.Config{ColorModel: pal, Width: 6, Height: 4}}); err != nil {
		t.Fatal(err)
	}
	m, err := Decode(buf.Bytes(), RGB)
	if err != nil {
		t.Fatal(err)
	}
	if m.W != 6 || m.H != 4 {
		t.Fatalf("decoded %d×%d, want the screen's 6×4", m.W, m.H)
	}
	for y := range 4 {
		for x := range 6 {
			p := m.Pix[(y*6+x)*3:]
			inFrame := x >= 3 && x < 5 && y >= 1 && y < 3
			if want := uint8(0); inFrame && p[0] != 255 || !inFrame && p[0] != want || p[1] != 0 || p[2] != 0 {
				t.Fatalf("pixel (%d, %d) = %v, want %v", x, y, p[:3], map[bool]string{true: "red", false: "black"}[inFrame])
			}
		}
	}
	if _, err := Decode([]byte("GIF87a\x00\x00\x05\x00\x00\x00\x00;"), RGB); err == nil || !strings.Contains(err.Error(), "no pixels") {
		t.Fatalf("a 0×5 GIF: err %v, want one saying it has no pixels", err)
	}
}
