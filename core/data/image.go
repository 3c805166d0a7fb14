package data

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/gif"
	"image/jpeg"
	"image/png"
	stdio "io"
	"os"
	"sync/atomic"

	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"
	"golang.org/x/image/webp"

	"paddle/core/tensor"
)

// Image is an 8-bit image in HWC layout: pixel (y, x) channel c is
// Pix[(y*W+x)*C+c]. C is 1 (gray) or 3 (RGB or BGR: the image does not
// record which; the code that decoded it knows).
type Image struct {
	H, W, C int
	Pix     []uint8
}

// NewImage returns a black h×w image with c channels.
func NewImage(h, w, c int) *Image {
	return &Image{H: h, W: w, C: c, Pix: make([]uint8, h*w*c)}
}

// At returns channel c of pixel (y, x).
func (m *Image) At(y, x, c int) uint8 { return m.Pix[(y*m.W+x)*m.C+c] }

// Set sets channel c of pixel (y, x).
func (m *Image) Set(y, x, c int, v uint8) { m.Pix[(y*m.W+x)*m.C+c] = v }

// Clone returns a deep copy.
func (m *Image) Clone() *Image {
	return &Image{H: m.H, W: m.W, C: m.C, Pix: append([]uint8(nil), m.Pix...)}
}

// ColorMode is the channel layout Decode produces.
type ColorMode int

// Color modes. RGB is the zero value.
const (
	RGB  ColorMode = iota
	BGR            // OpenCV's order (PaddleOCR's DecodeImage img_mode: BGR)
	Gray           // one channel, ITU-R BT.601 luma as OpenCV computes it
)

func (m ColorMode) String() string {
	switch m {
	case RGB:
		return "RGB"
	case BGR:
		return "BGR"
	case Gray:
		return "GRAY"
	}
	return fmt.Sprintf("ColorMode(%d)", int(m))
}

// ParseColorMode maps "RGB", "BGR" or "GRAY" (PaddleOCR's img_mode names) to a ColorMode.
func ParseColorMode(s string) (ColorMode, error) {
	switch s {
	case "RGB":
		return RGB, nil
	case "BGR":
		return BGR, nil
	case "GRAY", "L":
		return Gray, nil
	}
	return 0, fmt.Errorf("unknown color mode %q (known: RGB, BGR, GRAY)", s)
}

// Format returns the image format of data from its magic bytes: "png",
// "jpeg", "gif", "bmp", "tiff", "webp", or "" if unknown.
func Format(data []byte) string {
	has := func(p string) bool { return bytes.HasPrefix(data, []byte(p)) }
	switch {
	case has("\x89PNG\r\n\x1a\n"):
		return "png"
	case has("\xff\xd8\xff"):
		return "jpeg"
	case has("GIF87a"), has("GIF89a"):
		return "gif"
	case has("BM"):
		return "bmp"
	case has("II*\x00"), has("MM\x00*"):
		return "tiff"
	case len(data) >= 12 && has("RIFF") && string(data[8:12]) == "WEBP":
		return "webp"
	}
	return ""
}

// DefaultMaxPixels is MaxPixels until SetMaxPixels changes it: 100
// megapixels (a 10000×10000 image, an A4 page scanned at 1200 dpi), about
// 700 MB while decoding. Pillow refuses images twice its 89-megapixel
// warning limit for the same reason: a few hundred compressed bytes can
// declare gigapixels.
const DefaultMaxPixels = 100_000_000

var maxPixels atomic.Int64

func init() { maxPixels.Store(DefaultMaxPixels) }

// MaxPixels is the largest width × height Decode accepts.
func MaxPixels() int64 { return maxPixels.Load() }

// SetMaxPixels sets the largest width × height Decode accepts (the
// --max-pixels flag of predict and serve); n must be positive.
func SetMaxPixels(n int64) {
	if n <= 0 {
		panic(fmt.Sprintf("data: SetMaxPixels(%d): the limit must be positive", n))
	}
	maxPixels.Store(n)
}

// TooLargeError is Decode's error for an image whose header declares more
// than MaxPixels pixels.
type TooLargeError struct {
	Width, Height int
	Limit         int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("image is %d×%d = %d pixels, more than the limit of %d (raise it with --max-pixels)",
		e.Width, e.Height, int64(e.Width)*int64(e.Height), e.Limit)
}

// codec reads one image format's header and pixels.
type codec struct {
	config func(stdio.Reader) (image.Config, error)
	decode func(stdio.Reader) (image.Image, error)
}

// codecs maps Format's names to their decoders.
var codecs = map[string]codec{
	"png":  {png.DecodeConfig, png.Decode},
	"jpeg": {jpeg.DecodeConfig, jpeg.Decode},
	"gif":  {gif.DecodeConfig, gif.Decode},
	"bmp":  {bmp.DecodeConfig, bmp.Decode},
	"tiff": {tiff.DecodeConfig, tiff.Decode},
	"webp": {webp.DecodeConfig, webp.Decode},
}

// Decode decodes a PNG, JPEG, GIF (first frame), BMP, TIFF or WebP image
// into the given color mode, as OpenCV's imread/imdecode would: alpha is
// dropped (colours kept un-premultiplied), a JPEG's EXIF orientation is
// applied, JPEG colour follows libjpeg and PNG gray follows libpng.
//
// The header is read first: an image of more than MaxPixels pixels is a
// *TooLargeError before anything of its size is allocated.
func Decode(data []byte, mode ColorMode) (*Image, error) {
	codec, ok := codecs[Format(data)]
	if !ok {
		return nil, fmt.Errorf("unknown image format (want PNG, JPEG, GIF, BMP, TIFF or WebP)")
	}
	cfg, err := codec.config(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("decode %s header: %w", Format(data), err)
	}
	if limit := MaxPixels(); int64(cfg.Width)*int64(cfg.Height) > limit {
		return nil, &TooLargeError{Width: cfg.Width, Height: cfg.Height, Limit: limit}
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return nil, fmt.Errorf("decode %s: the image has no pixels (%d×%d)", Format(data), cfg.Width, cfg.Height)
	}
	img, err := codec.decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("decode %s: %w", Format(data), err)
	}
	if b := img.Bounds(); b != image.Rect(0, 0, cfg.Width, cfg.Height) {
		// A GIF's first frame may cover only part of its logical screen:
		// it is placed where it belongs on a screen-sized canvas, black
		// elsewhere (as PIL shows it), so the image is always the size its
		// header says.
		canvas := image.NewNRGBA(image.Rect(0, 0, cfg.Width, cfg.Height))
		r := b.Intersect(canvas.Bounds())
		draw.Draw(canvas, r, img, r.Min, draw.Src)
		img = canvas
	}
	gray := gray8
	if Format(data) == "png" {
		gray = pngGray
	}
	m, err := fromImage(img, mode, gray)
	if err != nil {
		return nil, err
	}
	if Format(data) == "jpeg" {
		m = Orient(m, jpegOrientation(data))
	}
	return m, nil
}

// DecodeFile reads and decodes an image file; errors name the file.
func DecodeFile(path string, mode ColorMode) (*Image, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m, err := Decode(b, mode)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// gray8 is OpenCV's fixed-point BT.601 luma (cvtColor RGB2GRAY).
func gray8(r, g, b uint8) uint8 {
	return uint8((uint32(r)*4899 + uint32(g)*9617 + uint32(b)*1868 + 1<<13) >> 14)
}

// pngGray is libpng's png_set_rgb_to_gray(0.299, 0.587) on 8-bit samples,
// which OpenCV's PNG reader uses for IMREAD_GRAYSCALE: weights 29900 and
// 58700 per 100000 truncated to 15 bits, the sum truncated.
func pngGray(r, g, b uint8) uint8 {
	if r == g && r == b {
		return r
	}
	return uint8((uint32(r)*9797 + uint32(g)*19234 + uint32(b)*3737) >> 15)
}

// FromImage converts a standard-library image into the given color mode.
// YCbCr images (JPEG) are converted as libjpeg does (see jpeg.go); gray
// from colour uses OpenCV's cvtColor weights.
func FromImage(img image.Image, mode ColorMode) (*Image, error) {
	return fromImage(img, mode, gray8)
}

func fromImage(img image.Image, mode ColorMode, gray func(r, g, b uint8) uint8) (*Image, error) {
	if mode != RGB && mode != BGR && mode != Gray {
		return nil, fmt.Errorf("unknown color mode %v", mode)
	}
	b := img.Bounds()
	h, w := b.Dy(), b.Dx()
	c := 3
	if mode == Gray {
		c = 1
	}
	out := NewImage(h, w, c)
	put := func(y, x int, r, g, bl uint8) {
		p := out.Pix[(y*w+x)*c:]
		switch mode {
		case RGB:
			p[0], p[1], p[2] = r, g, bl
		case BGR:
			p[0], p[1], p[2] = bl, g, r
		default:
			p[0] = gray(r, g, bl)
		}
	}
	switch src := img.(type) {
	case *image.Gray:
		for y := range h {
			row := src.Pix[y*src.Stride : y*src.Stride+w]
			for x, v := range row {
				if mode == Gray {
					out.Pix[y*w+x] = v
				} else {
					put(y, x, v, v, v)
				}
			}
		}
	case *image.YCbCr:
		fromYCbCr(src, mode, out, put)
	case *image.NRGBA:
		for y := range h {
			row := src.Pix[y*src.Stride:]
			for x := range w {
				put(y, x, row[4*x], row[4*x+1], row[4*x+2])
			}
		}
	default:
		for y := range h {
			for x := range w {
				n := color.NRGBAModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.NRGBA)
				put(y, x, n.R, n.G, n.B)
			}
		}
	}
	return out, nil
}

func fromYCbCr(src *image.YCbCr, mode ColorMode, out *Image, put func(y, x int, r, g, b uint8)) {
	b := src.Bounds()
	h, w := b.Dy(), b.Dx()
	if mode == Gray { // a decoder asked for gray keeps the luma plane (libjpeg does)
		for y := range h {
			yi := src.YOffset(b.Min.X, b.Min.Y+y)
			copy(out.Pix[y*w:(y+1)*w], src.Y[yi:yi+w])
		}
		return
	}
	cb, cr, ok := upsampleChroma(src)
	for y := range h {
		for x := range w {
			yi := src.YOffset(b.Min.X+x, b.Min.Y+y)
			var u, v uint8
			if ok {
				u, v = cb[y*w+x], cr[y*w+x]
			} else { // 4:4:0, 4:1:1, 4:1:0: nearest chroma sample
				ci := src.COffset(b.Min.X+x, b.Min.Y+y)
				u, v = src.Cb[ci], src.Cr[ci]
			}
			r, g, bl := yccToRGB(src.Y[yi], u, v)
			put(y, x, r, g, bl)
		}
	}
}

// ToStd returns m as a standard-library image (*image.Gray or *image.RGBA,
// reading channels as RGB), e.g. to encode it with image/png.
func (m *Image) ToStd() image.Image {
	if m.C == 1 {
		return &image.Gray{Pix: append([]uint8(nil), m.Pix...), Stride: m.W, Rect: image.Rect(0, 0, m.W, m.H)}
	}
	out := image.NewRGBA(image.Rect(0, 0, m.W, m.H))
	for i := range m.H * m.W {
		copy(out.Pix[4*i:4*i+3], m.Pix[i*m.C:i*m.C+3])
		out.Pix[4*i+3] = 255
	}
	return out
}

// ToTensor returns (C, H, W) float32 values (pix*scale - mean[c]) / std[c],
// PaddleClas's NormalizeImage followed by ToCHWImage. scale 0 means 1/255;
// empty mean and std mean 0 and 1; otherwise each needs one value per channel.
func ToTensor(m *Image, scale float32, mean, std []float32) (*tensor.Tensor, error) {
	if scale == 0 {
		scale = 1.0 / 255
	}
	mu, sd := make([]float32, m.C), make([]float32, m.C)
	for c := range m.C {
		sd[c] = 1
	}
	if len(mean) != 0 {
		if len(mean) != m.C {
			return nil, fmt.Errorf("normalize: %d mean values for %d channels", len(mean), m.C)
		}
		copy(mu, mean)
	}
	if len(std) != 0 {
		if len(std) != m.C {
			return nil, fmt.Errorf("normalize: %d std values for %d channels", len(std), m.C)
		}
		for c, s := range std {
			if s == 0 {
				return nil, fmt.Errorf("normalize: std[%d] is 0", c)
			}
		}
		copy(sd, std)
	}
	t := tensor.New(tensor.Float32, m.C, m.H, m.W)
	dst, hw := t.F32(), m.H*m.W
	for c := range m.C {
		plane := dst[c*hw : (c+1)*hw]
		for i := range plane {
			plane[i] = (float32(m.Pix[i*m.C+c])*scale - mu[c]) / sd[c]
		}
	}
	return t, nil
}
