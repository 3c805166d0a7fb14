package cpu

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"paddle/core/parallel"
)

// The shapes of ../shared/bench/CORE.md: cubes and the GEMMs of typical
// convolutions (M×N×K = out-channels × output pixels × in-channels·k²).
var benchShapes = [][3]int{
	{256, 256, 256}, {512, 512, 512}, {1024, 1024, 1024}, {2048, 2048, 2048},
	{64, 3136, 576}, {256, 196, 2304}, {32, 102400, 27},
}

// BenchmarkSGEMM reports GFLOP/s for each shape, kernel and thread count:
//
//	go test -run - -bench SGEMM ./core/backend/cpu/
func BenchmarkSGEMM(b *testing.B) {
	savedK, savedT := active.Load(), parallel.Threads()
	defer func() { active.Store(savedK); parallel.SetThreads(savedT) }()
	for _, s := range benchShapes {
		m, n, k := s[0], s[1], s[2]
		r := rand.New(rand.NewPCG(1, 1))
		a, bb, c := randSlice(r, m*k), randSlice(r, k*n), make([]float32, m*n)
		for _, kern := range available {
			if kern == genericKernel && m*n*k > 1<<28 {
				continue
			}
			for _, th := range []int{1, 2} {
				b.Run(fmt.Sprintf("%dx%dx%d/%s/t%d", m, n, k, kern.name, th), func(b *testing.B) {
					active.Store(kern)
					parallel.SetThreads(th)
					for b.Loop() {
						SGEMM(false, false, m, n, k, 1, a, k, bb, n, 0, c, n)
					}
					b.ReportMetric(2*float64(m)*float64(n)*float64(k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
				})
			}
		}
	}
}

// BenchmarkSGEMMTrans runs 1024³ with each transpose combination (1 thread).
func BenchmarkSGEMMTrans(b *testing.B) {
	savedT := parallel.Threads()
	defer parallel.SetThreads(savedT)
	const n = 1024
	r := rand.New(rand.NewPCG(1, 1))
	a, bb, c := randSlice(r, n*n), randSlice(r, n*n), make([]float32, n*n)
	for tr := range 4 {
		ta, tb := tr&1 == 1, tr&2 == 2
		b.Run(fmt.Sprintf("ta=%v/tb=%v", ta, tb), func(b *testing.B) {
			parallel.SetThreads(1)
			for b.Loop() {
				SGEMM(ta, tb, n, n, n, 1, a, n, bb, n, 0, c, n)
			}
			b.ReportMetric(2*float64(n*n*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
