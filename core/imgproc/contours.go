package imgproc

// chainDeltas are the eight Freeman directions in OpenCV's order: 0 = right, then
// counter-clockwise on screen (1 = up-right, 2 = up, ... 7 = down-right).
var chainDeltas = [8]IPoint{{1, 0}, {1, -1}, {0, -1}, {-1, -1}, {-1, 0}, {-1, 1}, {0, 1}, {1, 1}}

// Marks written into the work image while following borders (Suzuki-Abe NBD values as
// OpenCV's 8-bit scanner uses them): visited border pixel, and visited border pixel whose
// right neighbour is background.
const (
	markVisited int8 = 2
	markRight   int8 = 2 | -128
)

// FindContours returns the borders of the non-zero regions of the w×h image bin
// (row-major, any non-zero value is foreground), as
// cv2.findContours(bin, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE) returns them: the same
// contours (outer borders and hole borders), each with the same start point, direction and
// corner points, in the same list order (OpenCV 4.6 lists them in reverse order of
// discovery by the raster scan).
//
// It is Suzuki and Abe's border following (1985) on a copy of bin padded with one
// background pixel, O(w*h) plus the total contour length.
func FindContours(bin []uint8, w, h int) [][]IPoint {
	if w <= 0 || h <= 0 {
		return nil
	}
	if len(bin) < w*h {
		panic("imgproc: FindContours: image buffer shorter than w*h")
	}
	W := w + 2
	img := make([]int8, W*(h+2))
	for y := 0; y < h; y++ {
		row := img[(y+1)*W+1 : (y+1)*W+1+w]
		src := bin[y*w : y*w+w]
		for x, v := range src {
			if v != 0 {
				row[x] = 1
			}
		}
	}
	var deltas [16]int
	for i, d := range chainDeltas {
		deltas[i] = d.Y*W + d.X
		deltas[i+8] = deltas[i]
	}
	var found [][]IPoint
	for y := 1; y <= h; y++ {
		row := y * W
		prev := int8(0)
		for x := 1; x <= w; x++ {
			p := img[row+x]
			if p == prev {
				continue
			}
			hole := false
			if !(prev == 0 && p == 1) {
				// not an outer border start; a hole border starts at a 0 right of a
				// foreground pixel not yet marked as having background on its right
				if p != 0 || prev < 1 {
					prev = p
					continue
				}
				hole = true
			}
			ox := x
			if hole {
				ox = x - 1
			}
			found = append(found, followBorder(img, row+ox, IPoint{ox - 1, y - 1}, hole, &deltas))
			prev = img[row+x]
		}
	}
	// OpenCV links each new contour in front of the previous ones.
	for i, j := 0, len(found)-1; i < j; i, j = i+1, j-1 {
		found[i], found[j] = found[j], found[i]
	}
	return found
}

// followBorder traces one border starting at index i0 of the padded image, marking
// visited pixels, and returns its corner points (CHAIN_APPROX_SIMPLE).
func followBorder(img []int8, i0 int, pt IPoint, hole bool, deltas *[16]int) []IPoint {
	s := 4
	if hole {
		s = 0
	}
	sEnd := s
	var i1 int
	for {
		s = (s - 1) & 7
		i1 = i0 + deltas[s]
		if img[i1] != 0 || s == sEnd {
			break
		}
	}
	if s == sEnd { // isolated pixel
		img[i0] = markRight
		return []IPoint{pt}
	}
	pts := make([]IPoint, 0, 8)
	i3 := i0
	prevS := s ^ 4
	for {
		sEnd = s
		var i4 int
		for {
			s++
			i4 = i3 + deltas[s]
			if img[i4] != 0 {
				break
			}
		}
		s &= 7
		if uint(s-1) < uint(sEnd) {
			img[i3] = markRight
		} else if img[i3] == 1 {
			img[i3] = markVisited
		}
		if s != prevS {
			pts = append(pts, pt)
			prevS = s
		}
		pt.X += chainDeltas[s].X
		pt.Y += chainDeltas[s].Y
		if i4 == i0 && i3 == i1 {
			break
		}
		i3 = i4
		s = (s + 4) & 7
	}
	return pts
}
