package cpu

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkMicroKernel times the micro-kernels alone on L1/L2-resident
// panels (kc = 384): the ceiling the blocked SGEMM can reach.
func BenchmarkMicroKernel(b *testing.B) {
	for _, kern := range available {
		b.Run(kern.name, func(b *testing.B) {
			const kc = 384
			r := rand.New(rand.NewPCG(1, 1))
			ap, bp := alignedRand(r, kc*kern.mr), alignedRand(r, kc*kern.nr*8)
			c := make([]float32, kern.mr*kern.nr*8)
			for b.Loop() {
				for j := range 8 {
					kern.run(kc, ap, bp[j*kc*kern.nr:], c[j*kern.nr:], kern.nr*8, kern.mr, kern.nr, 1, 0, false, false)
				}
			}
			b.ReportMetric(2*float64(kc*kern.mr*kern.nr*8)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkMicroKernelL1 is BenchmarkMicroKernel with one B panel (L1-resident).
func BenchmarkMicroKernelL1(b *testing.B) {
	for _, kern := range available[:1] {
		for _, kc := range []int{64, 128, 256} {
			b.Run(fmt.Sprintf("%s/kc=%d", kern.name, kc), func(b *testing.B) {
				r := rand.New(rand.NewPCG(1, 1))
				ap, bp := alignedRand(r, kc*kern.mr), alignedRand(r, kc*kern.nr)
				c := make([]float32, kern.mr*kern.nr)
				for b.Loop() {
					kern.run(kc, ap, bp, c, kern.nr, kern.mr, kern.nr, 1, 0, false, false)
				}
				b.ReportMetric(2*float64(kc*kern.mr*kern.nr)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

func alignedRand(r *rand.Rand, n int) []float32 {
	s := aligned(n)
	copy(s, randSlice(r, n))
	return s
}
