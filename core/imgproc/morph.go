package imgproc

// Dilate2x2 is cv2.dilate(bin, np.ones((2, 2))) with the default anchor (1, 1) and
// border: each output pixel is the maximum of itself and its left, upper and upper-left
// neighbours that lie inside the image. PaddleOCR applies it to the DB bitmap when
// use_dilation is set.
func Dilate2x2(bin []uint8, w, h int) []uint8 {
	out := make([]uint8, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := bin[y*w+x]
			if x > 0 {
				v = max(v, bin[y*w+x-1])
			}
			if y > 0 {
				v = max(v, bin[(y-1)*w+x])
				if x > 0 {
					v = max(v, bin[(y-1)*w+x-1])
				}
			}
			out[y*w+x] = v
		}
	}
	return out
}
