//go:build amd64 && !purego

package cpu

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"paddle/core/op"
)

// TestQDepthwiseVNNI checks that the byte kernel takes the int8 depthwise
// convolutions it should at avx512 (TestQDepthwiseExact could pass on the
// float driver alone) and that its sums equal the tap-by-tap ones: both
// signednesses of x, kernels 1×1 to 7×8, strides 1 and 2, odd and even
// output heights, widths around the 32-output step; and that it declines
// weights outside int8 and the avx2 level.
func TestQDepthwiseVNNI(t *testing.T) {
	if qDepthwiseDirect == nil {
		t.Skip("no AVX-512 VNNI and VBMI here")
	}
	saved := activeLevel.Load()
	defer func() { setLevel(saved); installKernels() }()
	setLevel(levels[0])
	installKernels()
	if curISA() != isaAVX512 {
		t.Skip("the best level here is not avx512")
	}
	r := rand.New(rand.NewPCG(41, 42))
	n := 0
	for _, kh := range []int{1, 3, 5, 7} {
		for _, kw := range []int{1, 3, 4, 5, 8} {
			for _, s := range [][2]int{{1, 1}, {2, 2}, {1, 2}, {2, 1}} {
				for _, wd := range []int{1, 15, 31, 32, 33, 48, 64, 65, 80} {
					h := 1 + r.IntN(9)
					d := &op.QDepthwise{C: 3, H: h, Wd: wd, KH: kh, KW: kw, SH: s[0], SW: s[1], PT: r.IntN(kh), PL: r.IntN(kw), Signed: n%2 == 1}
					pb, pr := r.IntN(kh), r.IntN(kw)
					d.OH, d.OW = (h+d.PT+pb-kh)/d.SH+1, (wd+d.PL+pr-kw)/d.SW+1
					if d.OH < 1 || d.OW < 1 {
						continue
					}
					d.X = make([]byte, 2*d.C*h*wd)
					for i := range d.X {
						d.X[i] = byte(r.IntN(256))
					}
					d.XZero = int32(r.IntN(256))
					if d.Signed {
						d.XZero -= 128
					}
					d.W = make([]int32, d.C*kh*kw)
					for i := range d.W {
						d.W[i] = int32(r.IntN(256) - 128)
					}
					name := fmt.Sprintf("%d×%d stride %v %d×%d signed=%v", kh, kw, s, h, wd, d.Signed)
					got := make([]int32, 2*d.C*d.OH*d.OW)
					if !qDepthwiseDirect(d, 0, 2*d.C, func(p int, acc []int32) { copy(got[p*d.OH*d.OW:], acc) }) {
						t.Fatalf("%s: the byte kernel declined", name)
					}
					if want := qdwPlanesRef(d); !slices.Equal(got, want) {
						t.Fatalf("%s: sums differ\ngot  %v\nwant %v", name, got, want)
					}
					n++
				}
			}
		}
	}
	d := &op.QDepthwise{X: make([]byte, 9), W: []int32{128, 0, 0, 0, 0, 0, 0, 0, 0}, C: 1, H: 3, Wd: 3, KH: 3, KW: 3, SH: 1, SW: 1, OH: 1, OW: 1}
	if qDepthwiseDirect(d, 0, 1, func(int, []int32) {}) {
		t.Errorf("took a weight of 128")
	}
	if err := SelectKernel("avx2"); err != nil {
		t.Fatal(err)
	}
	d.W[0] = 1
	if qDepthwiseDirect(d, 0, 1, func(int, []int32) {}) {
		t.Errorf("ran at avx2")
	}
	t.Logf("%d convolutions", n)
}

// qdwPlanesRef is Σ (x - xz)·w over the taps inside each plane.
func qdwPlanesRef(d *op.QDepthwise) []int32 {
	np := len(d.X) / (d.H * d.Wd)
	out := make([]int32, np*d.OH*d.OW)
	for p := range np {
		w := d.W[p%d.C*d.KH*d.KW:]
		for r := range d.OH {
			for i := range d.OW {
				var s int32
				for a := range d.KH {
					for b := range d.KW {
						y, x := r*d.SH+a-d.PT, i*d.SW+b-d.PL
						if y < 0 || y >= d.H || x < 0 || x >= d.Wd {
							continue
						}
						v := int32(d.X[(p*d.H+y)*d.Wd+x])
						if d.Signed {
							v = int32(int8(d.X[(p*d.H+y)*d.Wd+x]))
						}
						s += (v - d.XZero) * w[a*d.KW+b]
					}
				}
				out[(p*d.OH+r)*d.OW+i] = s
			}
		}
	}
	return out
}

// BenchmarkQDepthwiseVNNI times the byte kernel on PP-OCRv4 rec b6's
// int8 depthwise layers (5×5 over 80-wide planes, 3×3 over 160-wide ones;
// one image's channels).
func BenchmarkQDepthwiseVNNI(b *testing.B) {
	if qDepthwiseDirect == nil {
		b.Skip("no AVX-512 VNNI and VBMI here")
	}
	saved := activeLevel.Load()
	defer func() { setLevel(saved); installKernels() }()
	setLevel(levels[0])
	installKernels()
	if curISA() != isaAVX512 {
		b.Skip("the best level here is not avx512")
	}
	for _, g := range [][5]int{{240, 12, 80, 5, 1}, {480, 6, 80, 5, 1}, {480, 3, 80, 5, 1}, {128, 12, 160, 3, 1}, {240, 12, 80, 5, 2}} {
		c, h, wd, k, sh := g[0], g[1], g[2], g[3], g[4]
		d := &op.QDepthwise{C: c, H: h, Wd: wd, KH: k, KW: k, SH: sh, SW: 1, PT: k / 2, PL: k / 2, XZero: 3}
		d.OH, d.OW = (h+2*(k/2)-k)/sh+1, wd
		d.X, d.W = make([]byte, c*h*wd), make([]int32, c*k*k)
		for i := range d.X {
			d.X[i] = byte(i * 7)
		}
		for i := range d.W {
			d.W[i] = int32(i%255 - 127)
		}
		b.Run(fmt.Sprintf("%dx%dx%d_k%d_s%d1", c, h, wd, k, sh), func(b *testing.B) {
			for b.Loop() {
				qDepthwiseDirect(d, 0, c, func(int, []int32) {})
			}
		})
	}
}
