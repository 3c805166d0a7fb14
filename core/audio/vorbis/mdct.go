package vorbis

import (
	"math"
	"math/cmplx"

	"gonum.org/v1/gonum/dsp/fourier"
)

// imdct is the inverse MDCT of one block size n (§1.3.2, libvorbis's
// scaling: no 1/n factor):
//
//	y[i] = Σ_k X[k] cos(2π/n (i + 1/2 + n/4)(k + 1/2)),  i < n, k < n/2.
//
// With M = n/2 that is u(i + M/2) of the DCT-IV u(j) = Σ X[k] cos(π/M (j+½)(k+½)),
// whose symmetries u(2M-1-j) = -u(j) and u(2M+j) = -u(j) give all n outputs
// from j < M. The DCT-IV runs as an M/2-point complex FFT: with
// z[m] = (X[2m] + i X[M-1-2m]) e^{-iπ(m+¼)/M} and W[p] = FFT(z)[p] e^{-iπp/M},
// u(2p) = Re W[p] and u(M-1-2p) = -Im W[p].
type imdct struct {
	n         int
	fft       *fourier.CmplxFFT
	pre, post []complex128
	z, w      []complex128
	u         []float64
}

func newIMDCT(n int) *imdct {
	m := n / 2
	l := m / 2
	t := &imdct{n: n, fft: fourier.NewCmplxFFT(l),
		pre: make([]complex128, l), post: make([]complex128, l),
		z: make([]complex128, l), w: make([]complex128, l), u: make([]float64, m)}
	for k := range l {
		t.pre[k] = cmplx.Exp(complex(0, -math.Pi*(float64(k)+0.25)/float64(m)))
		t.post[k] = cmplx.Exp(complex(0, -math.Pi*float64(k)/float64(m)))
	}
	return t
}

// transform writes the n outputs of spectrum x (n/2 long) into y.
func (t *imdct) transform(x []float32, y []float32) {
	m := t.n / 2
	for k := range t.z {
		t.z[k] = complex(float64(x[2*k]), float64(x[m-1-2*k])) * t.pre[k]
	}
	t.fft.Coefficients(t.w, t.z)
	for p, w := range t.w {
		w *= t.post[p]
		t.u[2*p] = real(w)
		t.u[m-1-2*p] = -imag(w)
	}
	h := m / 2
	for i := range t.n {
		j := i + h
		var v float64
		switch {
		case j < m:
			v = t.u[j]
		case j < 2*m:
			v = -t.u[2*m-1-j]
		default:
			v = -t.u[j-2*m]
		}
		y[i] = float32(v)
	}
}

// window is the Vorbis power-complementary window slope of length n
// (§4.3.1): sin(π/2 · sin²((i+½)/n · π/2)), rising. libvorbis keeps it in
// float, as we do.
func windowSlope(n int) []float32 {
	w := make([]float32, n)
	for i := range w {
		s := math.Sin((float64(i) + 0.5) / float64(n) * math.Pi / 2)
		w[i] = float32(math.Sin(math.Pi / 2 * s * s))
	}
	return w
}
