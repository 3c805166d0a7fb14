package ocr

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"os"
	"strconv"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"

	"paddle/core/imgproc"
)

// fontPaths are CJK-capable fonts looked for when --font is not given (Debian/Ubuntu,
// Fedora, Arch, macOS, Windows), then fonts without CJK glyphs.
var fontPaths = []string{
	"/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
	"/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc",
	"/usr/share/fonts/google-noto-cjk/NotoSansCJK-Regular.ttc",
	"/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
	"/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
	"/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
	"/usr/share/fonts/truetype/arphic/uming.ttc",
	"/System/Library/Fonts/PingFang.ttc",
	"/System/Library/Fonts/STHeiti Light.ttc",
	`C:\Windows\Fonts\msyh.ttc`,
	`C:\Windows\Fonts\simsun.ttc`,
	"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
}

// Drawer renders OCR results: the image with numbered boxes on the left, the
// recognised texts at the boxes' places on a white panel on the right (like
// PaddleOCR's draw_ocr_box_txt). Safe for concurrent use.
type Drawer struct {
	font *opentype.Font // nil: boxes and numbers only

	mu    sync.Mutex
	faces map[int]font.Face
}

// NewDrawer loads the font at path, or the first system font found when path is
// empty. Without a usable font it still draws boxes and numbers and returns a warning.
func NewDrawer(path string) (*Drawer, string) {
	d := &Drawer{faces: map[int]font.Face{}}
	paths := fontPaths
	if path != "" {
		paths = []string{path}
	}
	var lastErr error
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			if path != "" {
				lastErr = err
			}
			continue
		}
		f, err := parseFont(b)
		if err == nil {
			err = drawable(f)
		}
		if err == nil {
			d.font = f
			return d, ""
		}
		lastErr = fmt.Errorf("%s: %w", p, err)
	}
	if lastErr != nil {
		return d, fmt.Sprintf("--font: %v; texts are not drawn", lastErr)
	}
	return d, "no CJK font found (install fonts-noto-cjk or give --font); texts are not drawn"
}

// drawable checks that f's outline of "A" loads: some collections (WenQuanYi's
// .ttc) parse but fail on every glyph ("invalid table offset"), which would draw
// empty boxes instead of the texts.
func drawable(f *opentype.Font) error {
	var b sfnt.Buffer
	i, err := f.GlyphIndex(&b, 'A')
	if err == nil && i == 0 {
		err = fmt.Errorf("no glyph for A")
	}
	if err == nil {
		_, err = f.LoadGlyph(&b, i, fixed.I(32), nil)
	}
	return err
}

// parseFont reads a font file or the first font of a collection (.ttc).
func parseFont(b []byte) (*opentype.Font, error) {
	if f, err := opentype.Parse(b); err == nil {
		return f, nil
	}
	c, err := opentype.ParseCollection(b)
	if err != nil {
		return nil, err
	}
	// Noto CJK collections hold JP, KR, SC, TC...: prefer the Simplified Chinese face
	for i := 0; i < c.NumFonts(); i++ {
		f, err := c.Font(i)
		if err != nil {
			continue
		}
		if name, err := f.Name(nil, 4); err == nil && (contains(name, " SC") || contains(name, "SC ")) {
			return f, nil
		}
	}
	return c.Font(0)
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

func (d *Drawer) face(size int) font.Face {
	d.mu.Lock()
	defer d.mu.Unlock()
	if f, ok := d.faces[size]; ok {
		return f
	}
	f, err := opentype.NewFace(d.font, &opentype.FaceOptions{Size: float64(size), DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		return basicfont.Face7x13
	}
	d.faces[size] = f
	return f
}

// boxColors cycle over the boxes.
var boxColors = []color.RGBA{
	{220, 40, 40, 255}, {30, 130, 220, 255}, {30, 160, 60, 255}, {200, 120, 0, 255},
	{150, 50, 200, 255}, {0, 150, 150, 255},
}

// Save writes the annotated PNG for a BGR image and its results to path.
func (d *Drawer) Save(path string, img imgproc.Mat8, res []Result) error {
	w, h := img.W, img.H
	out := image.NewRGBA(image.Rect(0, 0, 2*w, h))
	draw.Draw(out, out.Bounds(), image.White, image.Point{}, draw.Src)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := (y*w + x) * img.C
			if img.C >= 3 {
				out.SetRGBA(x, y, color.RGBA{img.Pix[i+2], img.Pix[i+1], img.Pix[i], 255})
			} else {
				out.SetRGBA(x, y, color.RGBA{img.Pix[i], img.Pix[i], img.Pix[i], 255})
			}
		}
	}
	for n, r := range res {
		c := boxColors[n%len(boxColors)]
		for k := 0; k < 4; k++ {
			a, b := r.Box[k], r.Box[(k+1)%4]
			line(out, a, b, c, 0)
			line(out, a, b, c, w)
		}
		label := strconv.Itoa(n + 1)
		drawText(out, basicfont.Face7x13, label, int(r.Box[0].X)+2, int(r.Box[0].Y)-2, c)
		if d.font != nil && r.Text != "" {
			bh := math.Hypot(r.Box[3].X-r.Box[0].X, r.Box[3].Y-r.Box[0].Y)
			size := max(10, int(bh*0.8))
			x := w + int(r.Box[0].X) + 3
			y := int(r.Box[0].Y) + int(math.Min(bh, float64(size))*0.9)
			drawText(out, d.face(size), label+" "+r.Text, x, y, color.RGBA{0, 0, 0, 255})
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, out); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}

// line draws a 2-px line from a to b shifted right by dx.
func line(img *image.RGBA, a, b imgproc.Point, c color.RGBA, dx int) {
	steps := int(math.Max(math.Abs(b.X-a.X), math.Abs(b.Y-a.Y))) + 1
	for i := 0; i <= steps; i++ {
		t := float64(i) / float64(steps)
		x := int(math.Round(a.X+(b.X-a.X)*t)) + dx
		y := int(math.Round(a.Y + (b.Y-a.Y)*t))
		for _, o := range [][2]int{{0, 0}, {1, 0}, {0, 1}, {1, 1}} {
			if image.Pt(x+o[0], y+o[1]).In(img.Rect) {
				img.SetRGBA(x+o[0], y+o[1], c)
			}
		}
	}
}

func drawText(img *image.RGBA, face font.Face, s string, x, y int, c color.RGBA) {
	(&font.Drawer{Dst: img, Src: image.NewUniform(c), Face: face, Dot: fixed.P(x, max(y, face.Metrics().Ascent.Ceil()))}).DrawString(s)
}
