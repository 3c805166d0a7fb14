package cpu

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"paddle/core/op"
	"paddle/core/tensor"
)

// qdwRef is the depthwise int8 convolution's int32 result, one tap at a
// time: Σ (x - xz)·(w - wz[c]) over the taps inside the plane, + bias.
func qdwRef(x, w *tensor.Tensor, bias []int32, xz int32, wz []int, p op.ConvParams) []int32 {
	xs, ws := x.Shape(), w.Shape()
	n, c, h, wd, kh, kw := xs[0], xs[1], xs[2], xs[3], ws[2], ws[3]
	sh, sw := p.Strides[0], p.Strides[1]
	pt, pl, pb, pr := p.Pads[0], p.Pads[1], p.Pads[2], p.Pads[3]
	oh, ow := (h+pt+pb-kh)/sh+1, (wd+pl+pr-kw)/sw+1
	at := func(t *tensor.Tensor, i int) int32 {
		if t.DType() == tensor.Int8 {
			return int32(t.I8()[i])
		}
		return int32(t.U8()[i])
	}
	out := make([]int32, n*c*oh*ow)
	for ni := range n {
		for ch := range c {
			for r := range oh {
				for i := range ow {
					s := bias[ch]
					for a := range kh {
						for b := range kw {
							y, xx := r*sh+a-pt, i*sw+b-pl
							if y < 0 || y >= h || xx < 0 || xx >= wd {
								continue
							}
							s += (at(x, ((ni*c+ch)*h+y)*wd+xx) - xz) * (at(w, (ch*kh+a)*kw+b) - int32(wz[min(ch, len(wz)-1)]))
						}
					}
					out[((ni*c+ch)*oh+r)*ow+i] = s
				}
			}
		}
	}
	return out
}

// TestQDepthwiseExact checks depthwise qconv2d's int32 output at every
// level (the float-row kernel's exact sums at avx2/avx512/neon, the
// portable loop at generic) against qdwRef, for equality: 3×3, 5×5, 7×7
// and 3×5 taps, strides 1 and 2 (each axis), pads 0 to beyond the kernel's
// reach and asymmetric, planes narrower than a vector and wider than
// several, both signednesses of x, int8 and uint8 weights with zero
// points, and all-extreme operands (|x - xz| = 255, |w - wz| = 255: the
// largest sums the kernel's float32 must still hold exactly).
func TestQDepthwiseExact(t *testing.T) {
	type tc struct {
		n, c, h, wd, kh, kw, sh, sw int
		pads                        []int
	}
	cases := []tc{
		{1, 3, 7, 9, 3, 3, 1, 1, []int{1, 1, 1, 1}},
		{2, 5, 17, 33, 3, 3, 2, 2, []int{1, 1, 1, 1}},
		{1, 4, 12, 40, 5, 5, 1, 1, []int{2, 2, 2, 2}},
		{1, 3, 13, 31, 5, 5, 2, 2, []int{2, 2, 2, 2}},
		{1, 2, 5, 6, 3, 3, 2, 1, []int{0, 1, 2, 0}},
		{1, 2, 9, 19, 3, 5, 1, 2, []int{1, 0, 0, 3}},
		{1, 2, 2, 3, 5, 5, 1, 1, []int{2, 2, 2, 2}},
		{1, 2, 1, 1, 3, 3, 1, 1, []int{1, 1, 1, 1}},
		{1, 3, 11, 70, 7, 7, 1, 1, []int{3, 3, 3, 3}},
		{1, 2, 8, 8, 3, 3, 1, 1, []int{0, 0, 0, 0}},
	}
	forLevels(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(31, 32))
		for ci, c := range cases {
			for _, xd := range []tensor.DType{tensor.Uint8, tensor.Int8} {
				for _, wd := range []tensor.DType{tensor.Int8, tensor.Uint8} {
					for _, extreme := range []bool{false, true} {
						x := randBytes(r, xd, c.n, c.c, c.h, c.wd)
						w := randBytes(r, wd, c.c, 1, c.kh, c.kw)
						xz, wz := r.IntN(256), []int{0}
						if xd == tensor.Int8 {
							xz -= 128
						}
						if wd == tensor.Uint8 {
							wz = make([]int, c.c)
							for i := range wz {
								wz[i] = r.IntN(256)
							}
						}
						if extreme { // x - xz = ±255, w - wz = ±255 (int8: -128 - 127)
							for i := range x.Len() {
								if xd == tensor.Uint8 {
									x.U8()[i] = 255
								} else {
									x.I8()[i] = 127
								}
							}
							if xd == tensor.Uint8 {
								xz = 0
							} else {
								xz = -128
							}
							for i := range w.Len() {
								if wd == tensor.Int8 {
									w.I8()[i] = -128
								} else {
									w.U8()[i] = 0
								}
							}
							if wd == tensor.Uint8 {
								for i := range wz {
									wz[i] = 255
								}
							} else {
								wz = []int{127}
							}
						}
						bias := tensor.New(tensor.Int32, c.c)
						for i := range bias.I32() {
							bias.I32()[i] = int32(r.IntN(1<<20) - 1<<19)
						}
						p := op.ConvParams{Strides: []int{c.sh, c.sw}, Pads: c.pads, Groups: c.c}
						ws := make([]float64, c.c)
						for i := range ws {
							ws[i] = 0.01
						}
						qa := op.QuantAttrs(0.02, xz, ws, wz, tensor.Int32, 1, 0)
						name := fmt.Sprintf("case %d %v×%v extreme=%v", ci, xd, wd, extreme)
						got := op.QConv2D(x, w, bias, p, qa)
						want := qdwRef(x, w, bias.I32(), int32(xz), wz, p)
						if !slices.Equal(got.I32(), want) {
							t.Fatalf("%s: int32 sums differ from the reference\ngot  %v\nwant %v", name, got.I32(), want)
						}
					}
				}
			}
		}
	})
}

// TestQDepthwiseEpilogue checks depthwise qconv2d with requantized,
// hardswish + scalar affine (post_mul, post_add) outputs at every level
// bit-equal to the reference kernels (the portable loop and Go epilogue).
func TestQDepthwiseEpilogue(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(33, 34))
		for _, out := range []tensor.DType{tensor.Float32, tensor.Uint8, tensor.Int8} {
			x := randBytes(r, tensor.Uint8, 2, 6, 23, 37)
			w := randBytes(r, tensor.Int8, 6, 1, 5, 5)
			ws := make([]float64, 6)
			for i := range ws {
				ws[i] = 0.0005 + r.Float64()*0.002
			}
			bias := tensor.Rand(r, tensor.Float32, -1, 1, 6)
			for _, stride := range []int{1, 2} {
				p := op.ConvParams{Strides: []int{stride, stride}, Pads: []int{2, 2, 2, 2}, Groups: 6}
				qa := op.QuantAttrs(0.02, 119, ws, []int{0}, out, 0.03, 9).With("act", "hardswish").With("post_mul", 1.3).With("post_add", -0.2)
				a := p.Attrs()
				for k, v := range qa {
					a[k] = v
				}
				want := runRef(op.Lookup("qconv2d"), a, x, w, bias)
				got := op.QConv2D(x, w, bias, p, qa)
				if !tensorsEqual(got, want) {
					t.Fatalf("out %v stride %d: backend differs from the reference", out, stride)
				}
			}
		}
	})
}
