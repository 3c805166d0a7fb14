package imgproc

// Mat8 is an 8-bit image, H rows of W pixels of C interleaved channels (HWC, row-major),
// the layout of a numpy uint8 array from cv2.imread.
type Mat8 struct {
	H, W, C int
	Pix     []uint8
}

// NewMat8 returns a zeroed h×w image with c channels.
func NewMat8(h, w, c int) Mat8 {
	return Mat8{H: h, W: w, C: c, Pix: make([]uint8, h*w*c)}
}

// At returns a pointer-free copy of channel ch of pixel (x, y).
func (m Mat8) At(x, y, ch int) uint8 { return m.Pix[(y*m.W+x)*m.C+ch] }

// MatF is a single-channel float32 plane of H rows and W columns, row-major.
type MatF struct {
	H, W int
	Pix  []float32
}

// Point is a 2-D point with float coordinates (x to the right, y down).
type Point struct{ X, Y float64 }

// IPoint is a 2-D point with integer coordinates.
type IPoint struct{ X, Y int }

// ToPoints converts integer points (a contour, a Clipper path) to float points.
func ToPoints(p []IPoint) []Point {
	out := make([]Point, len(p))
	for i, q := range p {
		out[i] = Point{float64(q.X), float64(q.Y)}
	}
	return out
}

// Rot90CCW returns m rotated by 90 degrees counter-clockwise, as np.rot90(m) does:
// output pixel (x, y) is input pixel (W-1-y, x); the output is W rows by H columns.
func Rot90CCW(m Mat8) Mat8 {
	out := NewMat8(m.W, m.H, m.C)
	c := m.C
	for y := 0; y < out.H; y++ {
		sx := m.W - 1 - y
		for x := 0; x < out.W; x++ {
			copy(out.Pix[(y*out.W+x)*c:(y*out.W+x+1)*c], m.Pix[(x*m.W+sx)*c:(x*m.W+sx+1)*c])
		}
	}
	return out
}

// Rotate180 returns m turned upside down, as cv2.rotate(m, cv2.ROTATE_180) does.
func Rotate180(m Mat8) Mat8 {
	out := NewMat8(m.H, m.W, m.C)
	c := m.C
	n := m.H * m.W
	for i := 0; i < n; i++ {
		copy(out.Pix[(n-1-i)*c:(n-i)*c], m.Pix[i*c:(i+1)*c])
	}
	return out
}
