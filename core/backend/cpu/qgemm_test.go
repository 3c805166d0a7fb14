package cpu

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"paddle/core/parallel"
)

// qgemmNaive is the integer reference: a triple loop in int32.
func qgemmNaive(m, n, k int, a []byte, lda int, aSigned bool, b []byte, ldb int) []int32 {
	c := make([]int32, m*n)
	for i := range m {
		for j := range n {
			var s int32
			for p := range k {
				s += byteVal(a[i*lda+p], aSigned) * byteVal(b[p*ldb+j], !aSigned)
			}
			c[i*n+j] = s
		}
	}
	return c
}

// TestQGEMMExact checks QGEMM at every level against the triple loop, bit
// for bit, on shapes that leave partial tiles in every direction, k not a
// multiple of the packed groups and k past one block (qkc), leading
// dimensions larger than the rows, both signedness mixes, and operands at
// the extremes (every product 255·-128 or 255·127: a kernel whose int16
// pair sums saturated would fail here; 0·-128, and a random mix of 0, 255,
// -128 and 127).
func TestQGEMMExact(t *testing.T) {
	shapes := [][3]int{{1, 1, 1}, {3, 5, 7}, {12, 32, 4}, {13, 33, 5}, {6, 16, 2}, {7, 17, 3}, {25, 70, 129}, {11, 31, 769}, {40, 100, 1601}, {64, 3, 9}, {2, 200, 27},
		// last row panels of every short variant's height and below it,
		// full and partial column panels, one and two K blocks
		{16, 64, 36}, {20, 69, qkc + 8}, {4, 32, 8}, {8, 64, 12}, {2, 16, 6}, {10, 33, 7}, {28, 48, 40}, {27, 16, 4}}
	forQLevels(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(3, 4))
		for _, s := range shapes {
			m, n, k := s[0], s[1], s[2]
			for _, aSigned := range []bool{false, true} {
				for _, fill := range []string{"random", "extreme-neg", "extreme-pos", "zero-neg", "extreme-mix"} {
					lda, ldb, ldc := k+r.IntN(3), n+r.IntN(3), n+r.IntN(3)
					a, b := make([]byte, m*lda), make([]byte, k*ldb)
					switch fill {
					case "random":
						fillRand(r, a, b)
					case "extreme-neg": // unsigned 255, signed -128
						u, sg := byte(255), byte(0x80)
						a, b = fillBytes(a, pick(aSigned, sg, u)), fillBytes(b, pick(aSigned, u, sg))
					case "extreme-pos": // unsigned 255, signed 127
						u, sg := byte(255), byte(127)
						a, b = fillBytes(a, pick(aSigned, sg, u)), fillBytes(b, pick(aSigned, u, sg))
					case "zero-neg": // unsigned 0, signed -128 (-128·-128 once the unsigned byte is less 128)
						u, sg := byte(0), byte(0x80)
						a, b = fillBytes(a, pick(aSigned, sg, u)), fillBytes(b, pick(aSigned, u, sg))
					case "extreme-mix": // each byte 0 or 255 (unsigned), -128 or 127 (signed)
						for _, op := range []struct {
							s      []byte
							signed bool
						}{{a, aSigned}, {b, !aSigned}} {
							lo, hi := pick(op.signed, 0x80, 0), pick(op.signed, 0x7f, 0xff)
							for i := range op.s {
								op.s[i] = pick(r.IntN(2) == 0, lo, hi)
							}
						}
					}
					want := qgemmNaive(m, n, k, a, lda, aSigned, b, ldb)
					c := staleC(m, ldc)
					QGEMM(m, n, k, a, lda, aSigned, b, ldb, c, ldc)
					checkQTile(t, fmt.Sprintf("%s %v aSigned=%v %s", QKernel(), s, aSigned, fill), c, want, m, n, ldc)
				}
			}
		}
	})
}

func pick(c bool, x, y byte) byte {
	if c {
		return x
	}
	return y
}

// TestQGEMMThreads checks at every level that the split over threads
// (columns or rows) gives the single-thread result, both signednesses.
func TestQGEMMThreads(t *testing.T) {
	saved := parallel.Threads()
	defer parallel.SetThreads(saved)
	forQLevels(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(5, 6))
		for _, s := range [][3]int{{200, 37, 300}, {31, 500, 200}} {
			m, n, k := s[0], s[1], s[2]
			a, b := make([]byte, m*k), make([]byte, k*n)
			fillRand(r, a, b)
			for _, aSigned := range []bool{false, true} {
				want := qgemmNaive(m, n, k, a, k, aSigned, b, n)
				for _, th := range []int{1, 3, 4} {
					parallel.SetThreads(th)
					c := make([]int32, m*n)
					QGEMM(m, n, k, a, k, aSigned, b, n, c, n)
					for i := range c {
						if c[i] != want[i] {
							t.Fatalf("%s %v aSigned=%v threads %d: c[%d] = %d, want %d", QKernel(), s, aSigned, th, i, c[i], want[i])
						}
					}
				}
			}
		}
	})
}

func BenchmarkQGEMM(b *testing.B) {
	for _, s := range [][3]int{{256, 256, 256}, {64, 3136, 576}} {
		m, n, k := s[0], s[1], s[2]
		x, y, c := make([]byte, m*k), make([]byte, k*n), make([]int32, m*n)
		r := rand.New(rand.NewPCG(1, 2))
		fillRand(r, x, y)
		b.Run(fmt.Sprintf("%s/%dx%dx%d", QKernel(), m, n, k), func(b *testing.B) {
			for b.Loop() {
				QGEMM(m, n, k, x, k, true, y, n, c, n)
			}
			b.ReportMetric(2*float64(m*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GOP/s")
		})
	}
}

// TestQGEMMPacked checks QGEMMPacked with A packed once by QPackA against
// the integer reference at every level, exactly: m past a row panel, k past a k block (the
// packed blocks' offsets) and odd, strided B and C, both signednesses,
// several products with the same packing.
func TestQGEMMPacked(t *testing.T) {
	forQLevels(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(31, 32))
		for _, aSigned := range []bool{true, false} {
			for _, mk := range [][2]int{{25, 5}, {13, qkc + 37}, {7, 2*qkc + 3}, {16, 36}, {20, qkc + 8}, {4, 12}, {8, 8}} {
				m, k := mk[0], mk[1]
				lda := k + 3
				a := make([]byte, m*lda)
				for i := range a {
					a[i] = byte(r.Uint32())
				}
				pa := QPackA(m, k, a, lda, aSigned)
				for _, n := range []int{1, 45, 64} {
					ldb, ldc := n+9, n+2
					b := make([]byte, k*ldb)
					for i := range b {
						b[i] = byte(r.Uint32())
					}
					want, got := qgemmNaive(m, n, k, a, lda, aSigned, b, ldb), make([]int32, m*ldc)
					QGEMMPacked(m, n, k, a, lda, aSigned, pa, b, ldb, got, ldc)
					for i := range m {
						for j := range n {
							if got[i*ldc+j] != want[i*n+j] {
								t.Fatalf("aSigned %v %dx%dx%d: c[%d,%d] = %d, want %d", aSigned, m, n, k, i, j, got[i*ldc+j], want[i*n+j])
							}
						}
					}
				}
			}
		}
	})
}

// TestQGEMMRows checks QGEMMRows (B's rows anywhere) at every level against
// the integer reference on B gathered row by row, exactly: runs of evenly
// spaced rows of every length (the packers' fast path takes whole groups
// of them), runs that start and end inside a group, rows repeated and in
// descending order, k past a k block, partial tiles, A packed or not,
// both signednesses, random and extreme operands.
func TestQGEMMRows(t *testing.T) {
	forQLevels(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(41, 42))
		for _, s := range [][3]int{{1, 1, 1}, {5, 33, 9}, {13, 70, 37}, {24, 64, 96}, {12, 31, qkc + 45}} {
			m, n, k := s[0], s[1], s[2]
			for _, aSigned := range []bool{false, true} {
				for _, fill := range []string{"random", "extreme"} {
					lda, ldc := k+r.IntN(3), n+r.IntN(3)
					a := make([]byte, m*lda)
					b := make([]byte, 7*n+k*(n+5)+r.IntN(9))
					fillRand(r, a, b)
					if fill == "extreme" { // unsigned 255, signed -128
						a, b = fillBytes(a, pick(aSigned, 0x80, 255)), fillBytes(b, pick(aSigned, 255, 0x80))
					}
					off := make([]int, k)
					for p := 0; p < k; {
						run := 1 + r.IntN(9)
						start, ld := r.IntN(len(b)-n+1), n+r.IntN(4)
						if r.IntN(4) == 0 {
							ld = -r.IntN(n + 1) // repeated or descending rows
						}
						for i := 0; i < run && p < k; i, p = i+1, p+1 {
							o := start + i*ld
							if o < 0 || o+n > len(b) {
								o = r.IntN(len(b) - n + 1)
							}
							off[p] = o
						}
					}
					dense := make([]byte, k*n)
					for p, o := range off {
						copy(dense[p*n:], b[o:o+n])
					}
					want := qgemmNaive(m, n, k, a, lda, aSigned, dense, n)
					for _, pack := range []bool{false, true} {
						var pa *QPackedA
						if pack {
							pa = QPackA(m, k, a, lda, aSigned)
						}
						c := staleC(m, ldc)
						QGEMMRows(m, n, k, a, lda, aSigned, pa, b, off, c, ldc)
						checkQTile(t, fmt.Sprintf("%v aSigned=%v %s packed=%v", s, aSigned, fill, pack), c, want, m, n, ldc)
					}
				}
			}
		}
	})
}

// staleC returns an m×ldc int32 C filled with a stale value that a GEMM must
// overwrite in its n columns and keep beyond them (checkQTile).
func staleC(m, ldc int) []int32 {
	c := make([]int32, m*ldc)
	for i := range c {
		c[i] = 0x5a5a5a5a
	}
	return c
}

// checkQTile fails unless c's first n columns equal want (m×n) exactly and
// the columns from n to ldc still hold staleC's value.
func checkQTile(t *testing.T, what string, c, want []int32, m, n, ldc int) {
	t.Helper()
	for i := range m {
		for j := range ldc {
			got := c[i*ldc+j]
			if j >= n {
				if got != 0x5a5a5a5a {
					t.Fatalf("%s: c[%d,%d] beyond n written", what, i, j)
				}
				continue
			}
			if got != want[i*n+j] {
				t.Fatalf("%s: c[%d,%d] = %d, want %d", what, i, j, got, want[i*n+j])
			}
		}
	}
}

// fillRand fills each of bufs, in order, with random bytes from r.
func fillRand(r *rand.Rand, bufs ...[]byte) {
	for _, b := range bufs {
		for i := range b {
			b[i] = byte(r.Uint32())
		}
	}
}
