package op_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"paddle/core/op"
	"paddle/core/tensor"
)

// naiveQConv is the integer convolution written out: Σ (x-xz)(w-wz[oc])
// over the window, padding contributing 0 (x = xz there).
func naiveQConv(x []uint8, n, c, h, w int, wt []int8, oc, kh, kw, stride, pad, xz int, wz []int) ([]int32, int, int) {
	oh, ow := (h+2*pad-kh)/stride+1, (w+2*pad-kw)/stride+1
	out := make([]int32, n*oc*oh*ow)
	for ni := range n {
		for o := range oc {
			for y := range oh {
				for xo := range ow {
					var s int32
					for ci := range c {
						for i := range kh {
							for j := range kw {
								iy, ix := y*stride+i-pad, xo*stride+j-pad
								if iy < 0 || iy >= h || ix < 0 || ix >= w {
									continue
								}
								xv := int32(x[((ni*c+ci)*h+iy)*w+ix]) - int32(xz)
								wv := int32(wt[((o*c+ci)*kh+i)*kw+j]) - int32(wz[min(o, len(wz)-1)])
								s += xv * wv
							}
						}
					}
					out[((ni*oc+o)*oh+y)*ow+xo] = s
				}
			}
		}
	}
	return out, oh, ow
}

// TestQConv2DIntegerReference checks qconv2d's int32 output (ConvInteger)
// against the written-out integer convolution exactly, with a nonzero
// activation zero point (padding must count as x's zero point) and
// per-channel weight zero points; and its uint8 output against the
// requantization formula applied to those integers.
func TestQConv2DIntegerReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	n, c, h, w, oc := 2, 3, 7, 6, 4
	x := tensor.New(tensor.Uint8, n, c, h, w)
	for i := range x.U8() {
		x.U8()[i] = uint8(r.Uint32())
	}
	wt := tensor.New(tensor.Int8, oc, c, 3, 3)
	for i := range wt.I8() {
		wt.I8()[i] = int8(r.Uint32())
	}
	wz := []int{0, 3, -2, 1}
	for _, stride := range []int{1, 2} {
		want, oh, ow := naiveQConv(x.U8(), n, c, h, w, wt.I8(), oc, 3, 3, stride, 1, 131, wz)
		cp := op.ConvParams{Strides: []int{stride, stride}, Pads: []int{1, 1, 1, 1}}
		got := op.QConv2D(x, wt, nil, cp, op.QuantAttrs(1, 131, []float64{1}, wz, tensor.Int32, 1, 0))
		if s := got.Shape(); s[2] != oh || s[3] != ow {
			t.Fatalf("stride %d: shape %v, want %dx%d", stride, s, oh, ow)
		}
		for i, v := range got.I32() {
			if v != want[i] {
				t.Fatalf("stride %d: out[%d] = %d, want %d", stride, i, v, want[i])
			}
		}
		ws := []float64{0.01, 0.02, 0.015, 0.03}
		q := op.QConv2D(x, wt, nil, cp, op.QuantAttrs(0.05, 131, ws, wz, tensor.Uint8, 0.2, 10).With("act", "relu"))
		plane := oh * ow
		for i, v := range q.U8() {
			o := i / plane % oc
			f := max(float32(want[i])*float32(0.05*ws[o]), 0)
			e := min(max(float32(math.RoundToEven(float64(f/0.2)))+10, 0), 255)
			if v != uint8(e) {
				t.Fatalf("stride %d: uint8 out[%d] = %d, want %v", stride, i, v, e)
			}
		}
	}
}

// TestMatMulIntegerReference checks matmul_integer on a product small
// enough to write down.
func TestMatMulIntegerReference(t *testing.T) {
	a := tensor.FromSlice([]uint8{10, 255, 0, 7}, 2, 2)
	b := tensor.FromSlice([]int8{-128, 1, 127, -1}, 2, 2)
	got := op.MatMulInteger(a, b, tensor.FromSlice([]uint8{5}, 1), tensor.FromSlice([]int8{1}, 1)).I32()
	// (a-5)·(b-1): [[5, 250], [-5, 2]] · [[-129, 0], [126, -2]]
	want := []int32{5*-129 + 250*126, 250 * -2, -5*-129 + 2*126, 2 * -2}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}
