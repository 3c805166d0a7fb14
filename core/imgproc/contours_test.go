package imgproc

import (
	"bytes"
	"compress/zlib"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"io"
	"reflect"
	"testing"
)

func TestFindContoursSquare(t *testing.T) {
	// a 3x3 square at (2..4, 1..3) in a 7x5 image: one outer border, corners only,
	// starting at the top-left and running counter-clockwise on screen (down first).
	bin := make([]uint8, 7*5)
	for y := 1; y <= 3; y++ {
		for x := 2; x <= 4; x++ {
			bin[y*7+x] = 255
		}
	}
	got := FindContours(bin, 7, 5)
	want := [][]IPoint{{{2, 1}, {2, 3}, {4, 3}, {4, 1}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("FindContours(3x3 square) = %v, want %v", got, want)
	}
}

func TestFindContoursRingAndDot(t *testing.T) {
	// a 5x5 ring with a one-pixel hole, plus a dot: the hole is found after the ring
	// and the dot last, and OpenCV lists them in reverse: dot, hole, ring
	// (checked against cv2 4.6).
	w, h := 9, 6
	bin := make([]uint8, w*h)
	for y := 0; y < 5; y++ {
		for x := 0; x < 5; x++ {
			bin[y*w+x] = 1
		}
	}
	bin[2*w+2] = 0
	bin[5*w+7] = 1
	got := FindContours(bin, w, h)
	want := [][]IPoint{
		{{7, 5}},
		{{1, 2}, {2, 1}, {3, 2}, {2, 3}}, // hole: starts left of the 0, runs clockwise
		{{0, 0}, {0, 4}, {4, 4}, {4, 0}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("FindContours(ring+dot) = %v, want %v", got, want)
	}
}

func TestFindContoursReference(t *testing.T) {
	var cases []struct {
		H, W     int
		Bits     string
		Contours [][][2]int
		Dilated  string
	}
	loadRef(t, "ref_contours.json", &cases)
	for i, c := range cases {
		bin := unpackBits(unb64(t, c.Bits), c.H*c.W)
		if got, want := Dilate2x2(bin, c.W, c.H), unpackBits(unb64(t, c.Dilated), c.H*c.W); !bytes.Equal(got, want) {
			t.Errorf("case %d: Dilate2x2 differs from cv2.dilate", i)
		}
		got := FindContours(bin, c.W, c.H)
		if len(got) != len(c.Contours) {
			t.Errorf("case %d (%dx%d): %d contours, want %d", i, c.W, c.H, len(got), len(c.Contours))
			continue
		}
		for k, want := range c.Contours {
			g := got[k]
			ok := len(g) == len(want)
			for j := 0; ok && j < len(g); j++ {
				ok = g[j].X == want[j][0] && g[j].Y == want[j][1]
			}
			if !ok {
				t.Errorf("case %d contour %d = %v, want %v", i, k, g, want)
				break
			}
		}
	}
}

func TestFindContoursBig(t *testing.T) {
	var cases []struct {
		H, W   int
		Bits   string
		Count  int
		Digest string
	}
	loadRef(t, "ref_contours_big.json", &cases)
	for i, c := range cases {
		zr, err := zlib.NewReader(bytes.NewReader(unb64(t, c.Bits)))
		if err != nil {
			t.Fatal(err)
		}
		packed, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		got := FindContours(unpackBits(packed, c.H*c.W), c.W, c.H)
		h := sha256.New()
		put := func(v int) { binary.Write(h, binary.LittleEndian, int32(v)) }
		put(len(got))
		for _, ct := range got {
			put(len(ct))
			for _, p := range ct {
				put(p.X)
				put(p.Y)
			}
		}
		if d := hex.EncodeToString(h.Sum(nil)); len(got) != c.Count || d != c.Digest {
			t.Errorf("case %d (%dx%d): %d contours (digest %.12s), cv2 has %d (digest %.12s)", i, c.W, c.H, len(got), d, c.Count, c.Digest)
		}
	}
}
