package cpu

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestS8Narrow checks the [-64, 63] test on every byte value at every
// position of slices long enough for the eight-byte path and its tail.
func TestS8Narrow(t *testing.T) {
	for v := range 256 {
		want := int8(v) >= -64 && int8(v) <= 63
		for n := 1; n <= 19; n++ {
			for at := range n {
				s := make([]byte, n) // zeros: narrow
				s[at] = byte(v)
				if got := s8Narrow(s); got != want {
					t.Fatalf("s8Narrow with %d at %d of %d = %v, want %v", int8(v), at, n, got, want)
				}
			}
		}
	}
	if !s8Narrow(nil) {
		t.Fatal("s8Narrow(nil) = false")
	}
}

// TestQGEMMNarrowExact checks the products whose signed operand lies in
// [-64, 63] (the byte kernel at avx2: vpmaddubsw, whose int16 pair sums
// would saturate past it) at every level against the integer reference,
// exactly, on awkward shapes (partial tiles, k not a multiple of 4 and
// past a k block), unpacked, with A packed and with B's rows anywhere,
// both signednesses, operands at the bound (signed -64 or 63 times
// unsigned 255: pair sums ±32640, and unsigned 0), and one signed value
// just outside it (-65 or 64), which must take the widening kernel and
// stay exact. At avx2 it also checks which kernel ran.
func TestQGEMMNarrowExact(t *testing.T) {
	shapes := [][3]int{{1, 1, 1}, {6, 16, 4}, {7, 17, 3}, {13, 33, 5}, {25, 70, 129}, {11, 31, qkc + 9}, {3, 50, 2*qkc + 6}}
	forQLevels(t, func(t *testing.T) {
		base := qkernelFor(curISA())
		r := rand.New(rand.NewPCG(7, 8))
		for _, s := range shapes {
			m, n, k := s[0], s[1], s[2]
			for _, aSigned := range []bool{true, false} {
				for _, fill := range []string{"random", "bound-neg", "bound-pos", "zero-u", "outside-neg", "outside-pos"} {
					lda, ldb, ldc := k+r.IntN(3), n+r.IntN(3), n+r.IntN(3)
					a, b := make([]byte, m*lda), make([]byte, k*ldb)
					sgn, uns := a, b // the signed and the unsigned operand
					if !aSigned {
						sgn, uns = b, a
					}
					for i := range uns {
						uns[i] = byte(r.Uint32())
					}
					for i := range sgn {
						sgn[i] = byte(int8(r.IntN(128) - 64))
					}
					switch fill {
					case "bound-neg":
						fillBytes(sgn, byte(0xc0)) // -64
						fillBytes(uns, 255)
					case "bound-pos":
						fillBytes(sgn, 63)
						fillBytes(uns, 255)
					case "zero-u":
						fillBytes(uns, 0)
					case "outside-neg":
						sgn[r.IntN(len(sgn))] = byte(0xbf) // -65
					case "outside-pos":
						sgn[r.IntN(len(sgn))] = 64
					}
					// The element outside may sit in a padding column (j ≥ n
					// or p ≥ k), which the product never reads.
					narrow := aSigned && s8NarrowMat(a, lda, m, k) || !aSigned && s8NarrowMat(b, ldb, k, n)
					want := qgemmNaive(m, n, k, a, lda, aSigned, b, ldb)
					rowOff := make([]int, k)
					for p := range rowOff {
						rowOff[p] = p * ldb
					}
					for _, mode := range []string{"unpacked", "packed", "rows"} {
						var pa *QPackedA
						if mode != "unpacked" {
							pa = QPackA(m, k, a, lda, aSigned)
						}
						if base != nil {
							wantK := base
							if nk := qkernelNarrow(base); nk != nil && narrow && (aSigned || pa == nil) {
								wantK = nk
							}
							if got := qkernelPick(base, m, n, k, a, lda, aSigned, pa, b, bRows{ld: ldb}); got != wantK {
								t.Fatalf("%v aSigned=%v %s %s: kernel %s, want %s", s, aSigned, fill, mode, got.name, wantK.name)
							}
						}
						c := staleC(m, ldc)
						if mode == "rows" {
							QGEMMRows(m, n, k, a, lda, aSigned, pa, b, rowOff, c, ldc)
						} else {
							QGEMMPacked(m, n, k, a, lda, aSigned, pa, b, ldb, c, ldc)
						}
						checkQTile(t, fmt.Sprintf("%v aSigned=%v %s %s", s, aSigned, fill, mode), c, want, m, n, ldc)
					}
				}
			}
		}
	})
}

// TestQKernelNarrowAVX2 checks that the byte kernel is the avx2 level's
// narrow kernel (so TestQGEMMNarrowExact runs it there), and that the
// kernel set tells core/op (QWeights7) exactly where a narrow kernel is.
func TestQKernelNarrowAVX2(t *testing.T) {
	forQLevels(t, func(t *testing.T) {
		nk := qkernelNarrow(qkernelFor(curISA()))
		if got := kernelSet().QWeights7; got != (nk != nil) {
			t.Fatalf("QWeights7 %v with narrow kernel %v", got, nk)
		}
		if curISA() == isaAVX2 && (nk == nil || nk.name != "avx2-u8s8") {
			t.Fatalf("avx2 narrow kernel %v, want avx2-u8s8", nk)
		}
	})
}
