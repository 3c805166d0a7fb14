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

// TestQConv2DInt32Exact checks qconv2d's int32 output (x's zero point
// folded into the bias) against Σ (x - xz)(w - wz) + bias computed
// directly, padding counting as xz: groups, strides, pads, both weight
// zero-point cases (folded when 0, corrected by the GEMM otherwise).
func TestQConv2DInt32Exact(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for _, wz := range []int{0, 3} {
		for _, p := range []ConvParams{{Pads: []int{1, 0, 2, 1}}, {Strides: []int{2, 1}, Groups: 2, Pads: []int{1, 1, 1, 1}}} {
			n, c, h, w, oc, k := 2, 4, 7, 6, 6, 3
			g := max(p.Groups, 1)
			x := tensor.New(tensor.Uint8, n, c, h, w)
			for i := range x.U8() {
				x.U8()[i] = uint8(r.Uint32())
			}
			wt := tensor.New(tensor.Int8, oc, c/g, k, k)
			for i := range wt.I8() {
				wt.I8()[i] = int8(r.Uint32())
			}
			bias := tensor.New(tensor.Int32, oc)
			for i := range bias.I32() {
				bias.I32()[i] = int32(r.IntN(100000) - 50000)
			}
			const xz = 131
			got := QConv2D(x, wt, bias, p, QuantAttrs(0.1, xz, []float64{0.1}, []int{wz}, tensor.Int32, 1, 0))
			a := p.Attrs()
			geo, _ := makeGeom(h, w, k, k, a, false)
			cg, ocg := c/g, oc/g
			for ni := range n {
				for o := range oc {
					gi := o / ocg
					for oh := range geo.OH {
						for ow := range geo.OW {
							s := bias.I32()[o]
							for ci := range cg {
								for i := range k {
									for j := range k {
										ih, iw := oh*geo.SH+i-geo.PT, ow*geo.SW+j-geo.PL
										xv := int32(xz)
										if ih >= 0 && ih < h && iw >= 0 && iw < w {
											xv = int32(x.U8()[((ni*c+gi*cg+ci)*h+ih)*w+iw])
										}
										s += (xv - xz) * (int32(wt.I8()[((o*cg+ci)*k+i)*k+j]) - int32(wz))
									}
								}
							}
							if v := got.I32()[((ni*oc+o)*geo.OH+oh)*geo.OW+ow]; v != s {
								t.Fatalf("wz %d %+v: out[%d,%d,%d,%d] = %d, want %d", wz, p, ni, o, oh, ow, v, s)
							}
						}
					}
				}
			}
		}
	}
}

// TestEvenBytes checks the stride-2 byte gather against its definition
// dst[i] = src[2i] for every length up to 40, src as short as it may be
// (2n−1 bytes: the words' path must not read past it) and longer.
func TestEvenBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for n := range 41 {
		for extra := range 3 {
			src := make([]byte, max(0, 2*n-1)+extra)
			for i := range src {
				src[i] = byte(r.Uint32())
			}
			dst := make([]byte, n)
			evenBytes(dst, src)
			for i, v := range dst {
				if v != src[2*i] {
					t.Fatalf("n %d, %d source bytes: dst[%d] = %d, want %d", n, len(src), i, v, src[2*i])
				}
			}
		}
	}
}
