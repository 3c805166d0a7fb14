package seg

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"paddle/core/metric/seg"
)

func TestReadFileList(t *testing.T) {
	dir := t.TempDir()
	list := filepath.Join(dir, "train.txt")
	_ = os.WriteFile(list, []byte("images/a.jpg labels/a.png\n\n  /abs/b.jpg labels/b.png  \n"), 0o644)
	got, err := ReadFileList(list, ListOptions{DatasetRoot: "data", NeedLabels: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []Pair{
		{Image: filepath.Join("data", "images", "a.jpg"), Label: filepath.Join("data", "labels", "a.png"), Line: 1},
		{Image: "/abs/b.jpg", Label: filepath.Join("data", "labels", "b.png"), Line: 3},
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}

	test := filepath.Join(dir, "test.txt")
	_ = os.WriteFile(test, []byte("a.jpg\nb.jpg|b.png\n"), 0o644)
	got, err = ReadFileList(test, ListOptions{Separator: "|"})
	if err != nil || len(got) != 2 || got[0].Label != "" || got[1].Label != "b.png" {
		t.Errorf("test list: %+v, %v", got, err)
	}
	for _, tt := range []struct {
		text, want string
		opts       ListOptions
	}{
		{"a.jpg a.png\nb.jpg\n", "train.txt:2: want \"image_path label_path\", got 1 fields in \"b.jpg\"", ListOptions{NeedLabels: true}},
		{"a.jpg  a.png\n", "train.txt:1: want \"image_path label_path\", got 3 fields", ListOptions{NeedLabels: true}},
		{"a.jpg a.png x\n", "want \"image_path\" or \"image_path label_path\", got 3 fields", ListOptions{}},
		{"\n\n", "train.txt: the file list is empty", ListOptions{}},
	} {
		_ = os.WriteFile(list, []byte(tt.text), 0o644)
		if _, err := ReadFileList(list, tt.opts); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: err %v, want %q", tt.text, err, tt.want)
		}
	}
	if _, err := ReadFileList(filepath.Join(dir, "none.txt"), ListOptions{}); err == nil || !strings.Contains(err.Error(), "none.txt") {
		t.Errorf("missing list: %v", err)
	}
}

func TestReadLabelNames(t *testing.T) {
	p := filepath.Join(t.TempDir(), "labels.txt")
	_ = os.WriteFile(p, []byte("background\r\nperson \ncar\n\n"), 0o644)
	got, err := ReadLabelNames(p)
	if err != nil || !slices.Equal(got, []string{"background", "person", "car"}) {
		t.Errorf("got %q, %v", got, err)
	}
	_ = os.WriteFile(p, []byte("a\n\nb\n"), 0o644)
	if _, err := ReadLabelNames(p); err == nil || !strings.Contains(err.Error(), "labels.txt:2: blank line") {
		t.Errorf("blank line: %v", err)
	}
}

// rawPNG builds a one-row PNG with the given bit depth and colour type,
// and a tRNS chunk when trns is not nil.
func rawPNG(w, depth, ctype int, row []byte, trns ...byte) []byte {
	chunk := func(typ string, d []byte) []byte {
		var b bytes.Buffer
		_ = binary.Write(&b, binary.BigEndian, uint32(len(d)))
		b.WriteString(typ)
		b.Write(d)
		_ = binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(typ), d...)))
		return b.Bytes()
	}
	ihdr := binary.BigEndian.AppendUint32(nil, uint32(w))
	ihdr = binary.BigEndian.AppendUint32(ihdr, 1)
	ihdr = append(ihdr, byte(depth), byte(ctype), 0, 0, 0)
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	_, _ = zw.Write(append([]byte{0}, row...))
	_ = zw.Close()
	out := []byte("\x89PNG\r\n\x1a\n")
	out = append(out, chunk("IHDR", ihdr)...)
	if trns != nil {
		out = append(out, chunk("tRNS", trns)...)
	}
	out = append(out, chunk("IDAT", z.Bytes())...)
	return append(out, chunk("IEND", nil)...)
}

// Values as PIL's np.asarray(Image.open(...)) gives them (checked with
// Pillow 9.4): 1-bit gray → 0/1, 2-bit → ×85, 4-bit → ×17, 16-bit raw.
func TestDecodeLabelMap(t *testing.T) {
	for _, tt := range []struct {
		name string
		png  []byte
		want []uint8
	}{
		{"gray 1-bit", rawPNG(4, 1, pngGray, []byte{0b10100000}), []uint8{1, 0, 1, 0}},
		{"gray 2-bit", rawPNG(4, 2, pngGray, []byte{0b00011011}), []uint8{0, 85, 170, 255}},
		{"gray 4-bit", rawPNG(4, 4, pngGray, []byte{0x01, 0x2f}), []uint8{0, 17, 34, 255}},
		{"gray 16-bit", rawPNG(3, 16, pngGray, []byte{0, 1, 0, 255, 0, 44}), []uint8{1, 255, 44}},
		// gray with a transparent value decodes to NRGBA in Go; PIL keeps mode L
		{"gray 8-bit tRNS", rawPNG(3, 8, pngGray, []byte{0, 7, 255}, 0, 255), []uint8{0, 7, 255}},
		{"gray 16-bit tRNS", rawPNG(3, 16, pngGray, []byte{0, 0, 0, 7, 0, 255}, 0, 255), []uint8{0, 7, 255}},
	} {
		m, err := DecodeLabelMap(tt.png)
		if err != nil || m.W != len(tt.want) || m.H != 1 || !slices.Equal(m.Pix, tt.want) {
			t.Errorf("%s: %+v, %v; want %v", tt.name, m, err, tt.want)
		}
	}
	for _, tt := range []struct {
		name, want string
		png        []byte
	}{
		{"16-bit over 255", "16-bit label value 300 at x=1, y=0 is larger than 255", rawPNG(2, 16, pngGray, []byte{0, 1, 1, 44})},
		{"rgb", "colour (RGB) PNG", rawPNG(1, 8, pngRGB, []byte{1, 2, 3})},
		{"gray+alpha", "gray+alpha PNG", rawPNG(1, 8, pngGrayAlpha, []byte{1, 255})},
		{"jpeg", "not a PNG file", []byte("\xff\xd8\xff\xe0 not a png at all, a jpeg header")},
	} {
		if _, err := DecodeLabelMap(tt.png); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err %v, want %q", tt.name, err, tt.want)
		}
	}

	// a palette PNG with a row stride larger than its width (sub-image)
	pal := color.Palette{color.Black, color.White, color.Gray{128}}
	pm := image.NewPaletted(image.Rect(0, 0, 4, 2), pal)
	copy(pm.Pix, []uint8{0, 1, 2, 1, 2, 2, 0, 0})
	p := filepath.Join(t.TempDir(), "x.png")
	writePNG(t, p, pm.SubImage(image.Rect(1, 0, 3, 2)))
	m, err := ReadLabelMap(p)
	if err != nil || m.W != 2 || m.H != 2 || !slices.Equal(m.Pix, []uint8{1, 2, 2, 0}) {
		t.Errorf("palette sub-image: %+v, %v", m, err)
	}
	if _, err := ReadLabelMap(filepath.Join(t.TempDir(), "none.png")); err == nil {
		t.Error("missing file read")
	}
}

func TestLoadSample(t *testing.T) {
	dir := t.TempDir()
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	writePNG(t, filepath.Join(dir, "a.png"), img)
	writePNG(t, filepath.Join(dir, "a_label.png"), gray(3, 2, 0, 1, 255, 1, 0, 0))
	writePNG(t, filepath.Join(dir, "b_label.png"), gray(2, 2, 0, 0, 0, 0))
	writePNG(t, filepath.Join(dir, "c_label.png"), gray(3, 2, 0, 1, 2, 1, 0, 0))

	s, err := LoadSample(Pair{Image: filepath.Join(dir, "a.png"), Label: filepath.Join(dir, "a_label.png")}, 2, 255)
	if err != nil || s.Image.W != 3 || s.Image.C != 3 || !slices.Equal(s.Label.Pix, []uint8{0, 1, 255, 1, 0, 0}) {
		t.Fatalf("%+v, %v", s, err)
	}
	_, err = LoadSample(Pair{Image: filepath.Join(dir, "a.png"), Label: filepath.Join(dir, "b_label.png")}, 2, 255)
	var se *SizeError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "image "+filepath.Join(dir, "a.png")+" is 3x2 but label "+filepath.Join(dir, "b_label.png")+" is 2x2") {
		t.Errorf("size mismatch: %v", err)
	}
	_, err = LoadSample(Pair{Image: filepath.Join(dir, "a.png"), Label: filepath.Join(dir, "c_label.png")}, 2, 255)
	var ve *seg.ValueError
	if !errors.As(err, &ve) || ve.Value != 2 ||
		!strings.Contains(err.Error(), "c_label.png: label value 2 at x=2, y=0 is not a class (num_classes 2: 0..1) nor the ignore index 255") {
		t.Errorf("bad value: %v", err)
	}
	if s, err := LoadSample(Pair{Image: filepath.Join(dir, "a.png")}, 2, 255); err != nil || s.Label != nil {
		t.Errorf("test pair: %+v, %v", s, err)
	}
}
