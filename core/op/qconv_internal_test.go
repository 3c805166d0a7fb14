package op

import (
	"math/rand/v2"
	"slices"
	"testing"

	"paddle/core/tensor"
)

// TestIm2colBytes checks the row-copying byte im2col against a direct
// per-element unrolling: strides 1–3, dilation, asymmetric pads wider than
// the kernel, windows past the image, tiles of output rows, pad values.
func TestIm2colBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for trial := range 300 {
		h, w := 1+r.IntN(9), 1+r.IntN(12)
		kh, kw := 1+r.IntN(4), 1+r.IntN(4)
		a := Attrs{"strides": []int{1 + r.IntN(3), 1 + r.IntN(3)}, "dilations": []int{1 + r.IntN(2), 1 + r.IntN(2)},
			"pads": []int{r.IntN(5), r.IntN(5), r.IntN(5), r.IntN(5)}}
		g, err := makeGeom(h, w, kh, kw, a, false)
		if err != nil || g.OH == 0 || g.OW == 0 {
			continue
		}
		c := 1 + r.IntN(3)
		x := tensor.New(tensor.Uint8, 2, c, h, w)
		for i := range x.U8() {
			x.U8()[i] = uint8(r.Uint32())
		}
		oh0 := r.IntN(g.OH)
		oh1 := oh0 + 1 + r.IntN(g.OH-oh0)
		pad := byte(r.Uint32())
		n := (oh1 - oh0) * g.OW
		col := tensor.New(tensor.Uint8, c*kh*kw, n)
		im2colBytes(x, c*h*w, c, g, oh0, oh1, pad, col)
		want := make([]byte, c*kh*kw*n)
		xs := x.U8()[c*h*w:]
		for ci := range c {
			for i := range kh {
				for j := range kw {
					for oh := oh0; oh < oh1; oh++ {
						for ow := range g.OW {
							ih, iw := oh*g.SH+i*g.DH-g.PT, ow*g.SW+j*g.DW-g.PL
							v := pad
							if ih >= 0 && ih < h && iw >= 0 && iw < w {
								v = xs[(ci*h+ih)*w+iw]
							}
							want[((ci*kh+i)*kw+j)*n+(oh-oh0)*g.OW+ow] = v
						}
					}
				}
			}
		}
		if !slices.Equal(col.U8(), want) {
			t.Fatalf("trial %d: x %dx%d kernel %dx%d %v rows [%d, %d): im2colBytes differs", trial, h, w, kh, kw, a, oh0, oh1)
		}
	}
}
