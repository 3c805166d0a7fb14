package seg

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"

	"paddle/core/metric/seg"
)

// LabelMap is a class-index map (a label or a prediction): pixel (y, x) is
// Pix[y*W+x].
type LabelMap struct {
	H, W int
	Pix  []uint8
}

// PNG colour types (the IHDR byte).
const (
	pngGray      = 0
	pngRGB       = 2
	pngPalette   = 3
	pngGrayAlpha = 4
	pngRGBA      = 6
)

// ReadLabelMap reads a label PNG the way PaddleSeg does
// (np.asarray(PIL.Image.open(path))): a palette ("pseudo-color") PNG gives
// its palette indices, a gray PNG its gray values (1-bit gray gives 0 and
// 1, 2- and 4-bit gray are scaled to 0..255 as PIL and libpng do, 16-bit
// values must be at most 255). Colour PNGs are rejected: PaddleSeg labels
// hold class indices, not colours. Errors name the file.
func ReadLabelMap(path string) (*LabelMap, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m, err := DecodeLabelMap(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// DecodeLabelMap decodes a label PNG held in memory (see ReadLabelMap).
func DecodeLabelMap(b []byte) (*LabelMap, error) {
	// signature (8), IHDR length and type (8), width, height, depth, colour type
	if len(b) < 26 || !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) || string(b[12:16]) != "IHDR" {
		return nil, errors.New("not a PNG file (labels and predictions must be single-channel or palette PNGs)")
	}
	depth, ctype := b[24], b[25]
	switch ctype {
	case pngGray, pngPalette:
	case pngRGB, pngRGBA:
		return nil, errors.New("colour (RGB) PNG: a label must hold class indices, as a single-channel (gray) or palette PNG; " +
			"map the colours to class indices first")
	case pngGrayAlpha:
		return nil, errors.New("gray+alpha PNG: a label must be a single-channel (gray) or palette PNG")
	default:
		return nil, fmt.Errorf("PNG colour type %d is not supported", ctype)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("decode png: %w", err)
	}
	r := img.Bounds()
	m := &LabelMap{H: r.Dy(), W: r.Dx(), Pix: make([]uint8, r.Dx()*r.Dy())}
	switch im := img.(type) {
	case *image.Paletted:
		for y := range m.H {
			copy(m.Pix[y*m.W:(y+1)*m.W], im.Pix[y*im.Stride:])
		}
	case *image.Gray:
		for y := range m.H {
			copy(m.Pix[y*m.W:(y+1)*m.W], im.Pix[y*im.Stride:])
		}
	case *image.Gray16:
		for y := range m.H {
			for x := range m.W {
				o := y*im.Stride + 2*x
				v := binary.BigEndian.Uint16(im.Pix[o:])
				if v > 255 {
					return nil, fmt.Errorf("16-bit label value %d at x=%d, y=%d is larger than 255", v, x, y)
				}
				m.Pix[y*m.W+x] = uint8(v)
			}
		}
	case *image.NRGBA: // 8-bit gray with a tRNS chunk; the gray value is R
		for y := range m.H {
			for x := range m.W {
				m.Pix[y*m.W+x] = im.Pix[y*im.Stride+4*x]
			}
		}
	case *image.NRGBA64: // 16-bit gray with a tRNS chunk
		for y := range m.H {
			for x := range m.W {
				v := binary.BigEndian.Uint16(im.Pix[y*im.Stride+8*x:])
				if v > 255 {
					return nil, fmt.Errorf("16-bit label value %d at x=%d, y=%d is larger than 255", v, x, y)
				}
				m.Pix[y*m.W+x] = uint8(v)
			}
		}
	default:
		return nil, fmt.Errorf("unsupported PNG layout %T", img)
	}
	if ctype == pngGray && depth == 1 {
		// Go scales 1-bit gray to 0/255; PIL's mode "1" gives 0/1
		for i, v := range m.Pix {
			m.Pix[i] = v & 1
		}
	}
	return m, nil
}

// CheckClasses returns a *seg.ValueError-based error naming file, value and
// pixel when a value of m is outside [0, numClasses) and is not ignore.
func (m *LabelMap) CheckClasses(file string, numClasses, ignore int) error {
	for i, v := range m.Pix {
		if int(v) != ignore && int(v) >= numClasses {
			n := 0
			for _, u := range m.Pix[i:] {
				if int(u) != ignore && int(u) >= numClasses {
					n++
				}
			}
			return valueError(file, &seg.ValueError{What: "label", Value: int64(v), Index: i, Count: n,
				NumClasses: numClasses, Ignore: ignore}, m.W)
		}
	}
	return nil
}

// valueError locates a *seg.ValueError in file, with the pixel as x, y (w is the map width).
func valueError(file string, e *seg.ValueError, w int) error {
	return &PixelError{File: file, X: e.Index % w, Y: e.Index / w, Err: e}
}

// PixelError is a label or prediction value outside the classes, located
// in its file. It unwraps to the *seg.ValueError.
type PixelError struct {
	File string
	X, Y int
	Err  *seg.ValueError
}

func (e *PixelError) Error() string {
	v := e.Err
	more := ""
	if v.Count > 1 {
		more = fmt.Sprintf(" (%d such pixels in this file)", v.Count)
	}
	if v.What == "label" {
		return fmt.Sprintf("%s: label value %d at x=%d, y=%d%s is not a class (num_classes %d: 0..%d) nor the ignore index %d",
			e.File, v.Value, e.X, e.Y, more, v.NumClasses, v.NumClasses-1, v.Ignore)
	}
	return fmt.Sprintf("%s: prediction value %d at x=%d, y=%d%s is not a class (num_classes %d: 0..%d)",
		e.File, v.Value, e.X, e.Y, more, v.NumClasses, v.NumClasses-1)
}

// Unwrap returns the *seg.ValueError.
func (e *PixelError) Unwrap() error { return e.Err }

// SizeError reports two maps (or an image and its label) of different sizes.
type SizeError struct {
	A, B         string // files
	AW, AH       int
	BW, BH       int
	AKind, BKind string // "image", "label", "prediction"
}

func (e *SizeError) Error() string {
	return fmt.Sprintf("size mismatch: %s %s is %dx%d but %s %s is %dx%d (width x height)",
		e.AKind, e.A, e.AW, e.AH, e.BKind, e.B, e.BW, e.BH)
}
