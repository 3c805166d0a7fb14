package cpu

// genericKernel is the portable micro-kernel: plain Go, 4×4 tile in 16
// scalar accumulators. It runs where no assembly kernel applies (other
// architectures, the purego build tag, PADDLE_CPU_KERNELS=generic).
var genericKernel = &microKernel{name: "generic", mr: 4, nr: 4, run: generic4x4}

func generic4x4(kc int, a, b, c []float32, ldc, rows, cols int, alpha, beta float32, loadC, _ bool) {
	var c00, c01, c02, c03, c10, c11, c12, c13, c20, c21, c22, c23, c30, c31, c32, c33 float32
	a, b = a[:kc*4], b[:kc*4]
	for p := 0; p < len(a) && p < len(b); p += 4 {
		ap, bp := a[p:p+4:p+4], b[p:p+4:p+4]
		a0, a1, a2, a3 := ap[0], ap[1], ap[2], ap[3]
		b0, b1, b2, b3 := bp[0], bp[1], bp[2], bp[3]
		c00 += a0 * b0
		c01 += a0 * b1
		c02 += a0 * b2
		c03 += a0 * b3
		c10 += a1 * b0
		c11 += a1 * b1
		c12 += a1 * b2
		c13 += a1 * b3
		c20 += a2 * b0
		c21 += a2 * b1
		c22 += a2 * b2
		c23 += a2 * b3
		c30 += a3 * b0
		c31 += a3 * b1
		c32 += a3 * b2
		c33 += a3 * b3
	}
	t := [16]float32{
		alpha * c00, alpha * c01, alpha * c02, alpha * c03,
		alpha * c10, alpha * c11, alpha * c12, alpha * c13,
		alpha * c20, alpha * c21, alpha * c22, alpha * c23,
		alpha * c30, alpha * c31, alpha * c32, alpha * c33,
	}
	mergeTile(t[:], 4, c, ldc, rows, cols, beta, loadC)
}
