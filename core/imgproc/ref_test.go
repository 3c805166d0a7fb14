package imgproc

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// loadRef decodes testdata/name (written by scripts/ref/imgproc_ref.py) into v.
func loadRef(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatalf("read reference: %v (regenerate with /usr/bin/python3 scripts/ref/imgproc_ref.py)", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("decode %s: %v", name, err)
	}
}

func unb64(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatalf("base64: %v", err)
	}
	return b
}

// unpackBits reverses np.packbits (big-endian bit order) into n bytes of 0/1.
func unpackBits(b []byte, n int) []uint8 {
	out := make([]uint8, n)
	for i := range out {
		out[i] = (b[i/8] >> (7 - uint(i%8))) & 1
	}
	return out
}

// lcgBytes mirrors lcg_bytes in imgproc_ref.py.
func lcgBytes(seed uint64, n int) []byte {
	out := make([]byte, n)
	s := seed
	for i := range out {
		s = s*6364136223846793005 + 1442695040888963407
		out[i] = byte(s >> 56)
	}
	return out
}

// lcgImage mirrors lcg_image in imgproc_ref.py.
func lcgImage(seed uint64, h, w, c int) Mat8 {
	noise := lcgBytes(seed, h*w*c)
	m := NewMat8(h, w, c)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			base := (x*7 + y*3) % 256
			for k := 0; k < c; k++ {
				i := (y*w+x)*c + k
				m.Pix[i] = uint8((base + int(noise[i])/2) % 256)
			}
		}
	}
	return m
}

// lcgPred mirrors lcg_pred in imgproc_ref.py.
func lcgPred(seed uint64, h, w int) MatF {
	b := lcgBytes(seed, h*w)
	m := MatF{H: h, W: w, Pix: make([]float32, h*w)}
	for i, v := range b {
		m.Pix[i] = float32(v) / 255
	}
	return m
}
