package imgproc

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

func TestResizeLinearReference(t *testing.T) {
	var cases []struct {
		H, W, C, Seed, DH, DW int
		Out, Sha              string
	}
	loadRef(t, "ref_resize.json", &cases)
	for i, c := range cases {
		src := lcgImage(uint64(c.Seed), c.H, c.W, c.C)
		got := ResizeLinear(src, c.DW, c.DH)
		sum := sha256.Sum256(got.Pix)
		if hex.EncodeToString(sum[:]) == c.Sha {
			continue
		}
		msg := ""
		if c.Out != "" {
			want := unb64(t, c.Out)
			diff, first := 0, -1
			for k := range want {
				if want[k] != got.Pix[k] {
					diff++
					if first < 0 {
						first = k
					}
				}
			}
			msg = " (" + itoa(diff) + " bytes differ, first at " + itoa(first) + ")"
			if bytes.Equal(want, got.Pix) {
				msg = " (bytes equal, hash differs?)"
			}
		}
		t.Errorf("case %d: ResizeLinear %dx%dx%d -> %dx%d differs from cv2.resize%s", i, c.W, c.H, c.C, c.DW, c.DH, msg)
	}
}

func TestResizeLinearWorked(t *testing.T) {
	// 1x2 -> 1x4 (upscale): weights 0.75/0.25 at half-pixel centres, edge pixels clamp.
	src := Mat8{H: 1, W: 2, C: 1, Pix: []uint8{0, 100}}
	got := ResizeLinear(src, 4, 1)
	want := []uint8{0, 25, 75, 100}
	if !bytes.Equal(got.Pix, want) {
		t.Errorf("ResizeLinear([0 100], 4x1) = %v, want %v", got.Pix, want)
	}
}
