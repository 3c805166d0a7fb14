//go:build amd64 && !purego

package cpu

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"paddle/core/op"
)

// TestQDepthwiseWords checks that the int16 kernel takes the int8
// depthwise convolutions it should at avx2 (TestQDepthwiseExact could
// pass on the float driver alone) and that its sums equal the tap-by-tap
// ones (qdwPlanesRef): both signednesses of x, kernels 1×1 to 7×7,
// strides 1 and 2 (each axis), pads to beyond the kernel's reach, widths
// around the 16-byte and 8-, 32- and 64-output steps, weights up to ±255 (a
// weight zero point's reach) and all-extreme operands; that it declines
// weights outside int16, zero points outside x's type and the other
// levels.
func TestQDepthwiseWords(t *testing.T) {
	if qDepthwiseWords == nil {
		t.Skip("no AVX2 here")
	}
	saved := activeLevel.Load()
	defer func() { setLevel(saved); installKernels() }()
	at := func(name string) bool {
		if SelectKernel(name) != nil {
			return false
		}
		installKernels()
		return true
	}
	if !at("avx2") {
		t.Skip("no avx2 level here")
	}
	r := rand.New(rand.NewPCG(43, 44))
	n := 0
	for _, kh := range []int{1, 2, 3, 5, 7} {
		for _, kw := range []int{1, 3, 4, 5, 7} {
			for _, s := range [][2]int{{1, 1}, {2, 1}, {1, 2}, {2, 2}} {
				sh, sw := s[0], s[1]
				for _, wd := range []int{1, 7, 15, 16, 17, 33, 40, 65, 100, 131} {
					h := 1 + r.IntN(9)
					d := &op.QDepthwise{C: 3, H: h, Wd: wd, KH: kh, KW: kw, SH: sh, SW: sw, PT: r.IntN(kh + 1), PL: r.IntN(kw + 1), Signed: n%2 == 1}
					pb, pr := r.IntN(kh+1), r.IntN(kw+1)
					d.OH, d.OW = (h+d.PT+pb-kh)/d.SH+1, (wd+d.PL+pr-kw)/d.SW+1
					if d.OH < 1 || d.OW < 1 {
						continue
					}
					extreme := n%7 == 3
					d.X = make([]byte, 2*d.C*h*wd)
					d.XZero = int32(r.IntN(256))
					if extreme {
						d.XZero = 0
					}
					for i := range d.X {
						d.X[i] = byte(r.IntN(256))
						if extreme {
							d.X[i] = 255
						}
					}
					if d.Signed {
						d.XZero -= 128
						if extreme {
							d.XZero = 127 // x - xz = -128 - 127
							for i := range d.X {
								d.X[i] = 0x80
							}
						}
					}
					d.W = make([]int32, d.C*kh*kw)
					for i := range d.W {
						d.W[i] = int32(r.IntN(511) - 255)
						if extreme {
							d.W[i] = -255
						}
					}
					name := fmt.Sprintf("%d×%d stride %d,%d %d×%d pads %d,%d signed=%v", kh, kw, sh, sw, h, wd, d.PT, d.PL, d.Signed)
					got := make([]int32, 2*d.C*d.OH*d.OW)
					if !qDepthwiseWords(d, 0, 2*d.C, func(p int, acc []int32) { copy(got[p*d.OH*d.OW:], acc) }) {
						t.Fatalf("%s: the word kernel declined", name)
					}
					if want := qdwPlanesRef(d); !slices.Equal(got, want) {
						t.Fatalf("%s: sums differ\ngot  %v\nwant %v", name, got, want)
					}
					n++
				}
			}
		}
	}
	d := &op.QDepthwise{X: make([]byte, 9), W: []int32{32768, 0, 0, 0, 0, 0, 0, 0, 0}, C: 1, H: 3, Wd: 3, KH: 3, KW: 3, SH: 1, SW: 1, OH: 1, OW: 1}
	if qDepthwiseWords(d, 0, 1, func(int, []int32) {}) {
		t.Errorf("took a weight of 32768")
	}
	d.W[0], d.XZero = 1, 256
	if qDepthwiseWords(d, 0, 1, func(int, []int32) {}) {
		t.Errorf("took a uint8 zero point of 256")
	}
	d.Signed, d.XZero = true, 128
	if qDepthwiseWords(d, 0, 1, func(int, []int32) {}) {
		t.Errorf("took an int8 zero point of 128")
	}
	d.Signed, d.XZero = false, 0
	for _, l := range levels {
		if l.name == "avx2" {
			continue
		}
		at(l.name)
		if qDepthwiseWords(d, 0, 1, func(int, []int32) {}) {
			t.Errorf("ran at %s", l.name)
		}
	}
	t.Logf("%d convolutions", n)
}

// BenchmarkQDepthwiseWords times PP-OCRv4-sized int8 depthwise layers at
// avx2 on the int16 kernel (words) and on the float driver (floats).
func BenchmarkQDepthwiseWords(b *testing.B) {
	if qDepthwiseWords == nil {
		b.Skip("no AVX2 here")
	}
	saved := activeLevel.Load()
	defer func() { setLevel(saved); installKernels() }()
	if SelectKernel("avx2") == nil {
		installKernels()
	}
	if curISA() != isaAVX2 {
		b.Skip("no avx2 level here")
	}
	for _, g := range [][6]int{{32, 240, 3, 1, 1, 0}, {64, 120, 3, 2, 2, 0}, {128, 60, 5, 1, 1, 0}, {64, 12, 5, 1, 1, 1}} {
		c, h, k, sh, sw, wide := g[0], g[1], g[2], g[3], g[4], g[5]
		wd := h
		if wide == 1 {
			wd = 80
		}
		d := &op.QDepthwise{C: c, H: h, Wd: wd, KH: k, KW: k, SH: sh, SW: sw, PT: k / 2, PL: k / 2, XZero: 3}
		d.OH, d.OW = (h+2*(k/2)-k)/sh+1, (wd+2*(k/2)-k)/sw+1
		d.X, d.W = make([]byte, c*h*wd), make([]int32, c*k*k)
		for i := range d.X {
			d.X[i] = byte(i * 7)
		}
		for i := range d.W {
			d.W[i] = int32(i%255 - 127)
		}
		for _, words := range []bool{true, false} {
			name := fmt.Sprintf("%dx%dx%d_k%d_s%d%d/floats", c, h, wd, k, sh, sw)
			if words {
				name = name[:len(name)-len("floats")] + "words"
			}
			b.Run(name, func(b *testing.B) {
				keep := qDepthwiseWords
				if !words {
					qDepthwiseWords = nil
				}
				defer func() { qDepthwiseWords = keep }()
				for b.Loop() {
					qDepthwise(d, 0, c, func(int, []int32) {})
				}
			})
		}
	}
}
