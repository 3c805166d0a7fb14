package cpu

// maxPool2x2GradGo is op.MaxPool2x2GradRows32's rule in Go, for the
// outputs the vector code leaves: each window r0[2i], r0[2i+1], r1[2i],
// r1[2i+1] is scanned in that order (a later value v wins when v > the
// running max or v is a NaN) and d0[2i], d0[2i+1], d1[2i], d1[2i+1] get
// 0+dy[i] at the winner (what op's loop adds into a cleared dx) and +0
// elsewhere.
func maxPool2x2GradGo(d0, d1, r0, r1, dy []float32) {
	for i, g := range dy {
		c := 2 * i
		m, at := r0[c], 0
		if v := r0[c+1]; v > m || v != v {
			m, at = v, 1
		}
		if v := r1[c]; v > m || v != v {
			m, at = v, 2
		}
		if v := r1[c+1]; v > m || v != v {
			at = 3
		}
		d0[c], d0[c+1], d1[c], d1[c+1] = 0, 0, 0, 0
		g += 0
		switch at {
		case 0:
			d0[c] = g
		case 1:
			d0[c+1] = g
		case 2:
			d1[c] = g
		default:
			d1[c+1] = g
		}
	}
}
