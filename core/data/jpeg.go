package data

import "image"

// JPEG colour the way libjpeg(-turbo), and so OpenCV and PIL, produce it:
// Go's image/jpeg leaves chroma subsampled and its At method picks the
// nearest chroma sample, while libjpeg upsamples 4:2:2 and 4:2:0 chroma
// with its "fancy" triangle filter and converts with its own fixed-point
// tables. Doing the same removes most of the difference (what remains is
// the two decoders' IDCT rounding, at most a level or two).

// libjpeg's YCbCr→RGB tables (jdcolor.c build_ycc_rgb_table, SCALEBITS 16).
var crR, cbB, crG, cbG [256]int32

func init() {
	const half = 1 << 15
	fix := func(x float64) int32 { return int32(x*(1<<16) + 0.5) }
	for i := range 256 {
		x := int32(i - 128)
		crR[i] = (fix(1.40200)*x + half) >> 16
		cbB[i] = (fix(1.77200)*x + half) >> 16
		crG[i] = -fix(0.71414) * x
		cbG[i] = -fix(0.34414)*x + half
	}
}

// yccToRGB converts one pixel with libjpeg's tables.
func yccToRGB(y, cb, cr uint8) (uint8, uint8, uint8) {
	yy := int32(y)
	return clamp8(yy + crR[cr]), clamp8(yy + (cbG[cb]+crG[cr])>>16), clamp8(yy + cbB[cb])
}

// upsampleChroma returns the Cb and Cr planes of src at full resolution
// (w×h, row-major), upsampled like libjpeg's h2v1/h2v2 fancy upsamplers.
// ok is false for subsampling ratios it does not handle.
func upsampleChroma(src *image.YCbCr) (cb, cr []uint8, ok bool) {
	b := src.Bounds()
	w, h := b.Dx(), b.Dy()
	var hs, vs int
	switch src.SubsampleRatio {
	case image.YCbCrSubsampleRatio444:
		hs, vs = 1, 1
	case image.YCbCrSubsampleRatio422:
		hs, vs = 2, 1
	case image.YCbCrSubsampleRatio420:
		hs, vs = 2, 2
	default:
		return nil, nil, false
	}
	cw, ch := (w+hs-1)/hs, (h+vs-1)/vs // libjpeg's downsampled_width/height
	plane := func(p []uint8) []uint8 {
		// The chroma samples of the image (Go keeps the MCU padding beyond them; libjpeg ignores it).
		in := make([]int32, cw*ch)
		c0 := src.COffset(b.Min.X, b.Min.Y)
		for y := range ch {
			for x := range cw {
				in[y*cw+x] = int32(p[c0+y*src.CStride+x])
			}
		}
		out := make([]uint8, w*h)
		switch {
		case hs == 1:
			for i := range out {
				out[i] = uint8(in[i])
			}
		case vs == 1:
			row := make([]uint8, 2*cw)
			for y := range h {
				h2v1(in[y*cw:(y+1)*cw], row)
				copy(out[y*w:(y+1)*w], row)
			}
		default:
			sums := make([]int32, cw)
			row := make([]uint8, 2*cw)
			for y := range h {
				near := y / 2
				far := near - 1 // upper output row of a pair: blend with the row above
				if y%2 == 1 {
					far = near + 1
				}
				far = min(max(far, 0), ch-1) // libjpeg repeats the edge rows
				for x := range cw {
					sums[x] = 3*in[near*cw+x] + in[far*cw+x]
				}
				h2v2(sums, row)
				copy(out[y*w:(y+1)*w], row)
			}
		}
		return out
	}
	return plane(src.Cb), plane(src.Cr), true
}

// h2v1 doubles a row horizontally: jdsample.c h2v1_fancy_upsample.
func h2v1(in []int32, out []uint8) {
	n := len(in)
	if n == 1 {
		out[0], out[1] = uint8(in[0]), uint8(in[0])
		return
	}
	for i, v := range in {
		l, r := in[max(i-1, 0)], in[min(i+1, n-1)]
		out[2*i] = uint8((3*v + l + 1) >> 2)
		out[2*i+1] = uint8((3*v + r + 2) >> 2)
	}
	out[0], out[2*n-1] = uint8(in[0]), uint8(in[n-1])
}

// h2v2 doubles a row of column sums (3*near + far) horizontally:
// jdsample.c h2v2_fancy_upsample.
func h2v2(s []int32, out []uint8) {
	n := len(s)
	if n == 1 {
		out[0], out[1] = uint8((s[0]*4+8)>>4), uint8((s[0]*4+7)>>4)
		return
	}
	for i, v := range s {
		l, r := s[max(i-1, 0)], s[min(i+1, n-1)]
		out[2*i] = uint8((3*v + l + 8) >> 4)
		out[2*i+1] = uint8((3*v + r + 7) >> 4)
	}
	out[0] = uint8((s[0]*4 + 8) >> 4)
	out[2*n-1] = uint8((s[n-1]*4 + 7) >> 4)
}
