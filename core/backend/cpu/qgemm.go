package cpu

import (
	"encoding/binary"
	"fmt"
	"sync"

	"paddle/core/parallel"
)

// Int8 GEMM with int32 accumulation.
//
// QGEMM multiplies an m×k byte matrix A by a k×n byte matrix B, one of them
// holding int8 values and the other uint8 (the mix the dot-product
// instructions take: AVX-512 VNNI vpdpbusd multiplies unsigned by signed
// bytes), into int32. Integer arithmetic is exact, so every level's result
// equals the reference's bit for bit (sums wrap modulo 2^32 like Go's int32
// arithmetic; with |A·B| ≤ 255·128 they cannot overflow for k < 65793).
//
// Each level has its micro-kernel and packed layouts (qkernel):
//   - generic: Go loops over the unpacked operands;
//   - avx2: operands widened to int16 while packing, then vpmaddwd (int16
//     pairs multiplied and summed into int32, exact for any int16 input)
//     and vpaddd, 6×16 tiles. vpmaddubsw, which multiplies the bytes
//     directly, saturates its int16 pair sums (255·127·2 > 32767), so it
//     runs only when the signed operand lies in [-64, 63] (qnarrow.go:
//     7-bit weights, 255·64·2 = 32640), checked when A is packed by QPackA
//     or, unpacked, per call: then vpmaddubsw, vpmaddwd with ones (int16
//     pairs into int32) and vpaddd on bytes in the VNNI layout, 6×16 tiles
//     (qkernelNarrow);
//   - avx512 with VNNI: vpdpbusd on bytes packed in groups of four k,
//     12×32 tiles; an AVX-512 processor without VNNI runs the avx2 kernel.

// qkernel is one level's int8 micro-kernel with its packing.
type qkernel struct {
	name   string
	mr, nr int // tile rows and columns
	kg     int // k values per packed group (4 for VNNI, 2 for int16 pairs)
	esize  int // bytes per packed element (1, or 2 for int16)
	// packA writes rows [i0, i0+mr) × k [p0, p0+kc) of A (zero past m or
	// past the real k) into dst in the kernel's A layout.
	packA func(a []byte, lda int, signed bool, i0, rows, p0, kc, kcPad int, dst []byte)
	// packB writes k [p0, p0+kc) × columns [j0, j0+cols) of B (rows
	// addressed by rows) in the B layout.
	packB func(b []byte, rows bRows, signed bool, p0, kc, kcPad, j0, cols int, dst []byte)
	// run computes the mr×nr tile c (+)= Apanel·Bpanel over kcPad k.
	run func(kcPad int, a, b []byte, c []int32, ldc int, accum, aSigned bool)
	// runGroups (nil: none) is run with B read in place (QGEMMGroups):
	// group g's nr columns × kg bytes, laid out as in a packed panel, at
	// b[off[g]:].
	runGroups func(groups int, a, b []byte, off []int, c []int32, ldc int, accum, aSigned bool)
	// short lists variants for a last row panel of fewer rows, lowest
	// first: each reads the same mr-row A panels and computes and writes
	// only its first rows rows (M = 16 at VNNI: 12 + 4 rows computed,
	// not 12 + 12).
	short []qshort
}

// qshort is a kernel's short variant (qkernel.short): run and runGroups
// as the kernel's, for rows rows.
type qshort struct {
	rows      int
	run       func(kcPad int, a, b []byte, c []int32, ldc int, accum, aSigned bool)
	runGroups func(groups int, a, b []byte, off []int, c []int32, ldc int, accum, aSigned bool)
}

// shortFor returns the lowest short variant of kn that covers rows rows
// and reads B as asked (groups: in place), or nil.
func (kn *qkernel) shortFor(rows int, groups bool) *qshort {
	for i := range kn.short {
		if s := &kn.short[i]; s.rows >= rows && (!groups || s.runGroups != nil) {
			return s
		}
	}
	return nil
}

// qkc is the k block of the packed kernels (a multiple of 4): a 32-column
// B micro-panel of qkc bytes per column stays in L1.
const qkc = 768

// QGEMM sets c[i·ldc+j] = Σ_p A[i·lda+p]·B[p·ldb+j] for i < m, j < n
// (int32, wrapping), where A is int8 when aSigned (then B is uint8) and
// uint8 otherwise (then B is int8). It runs on the active level's kernel
// and the threads of core/parallel, splitting the columns (or rows) of c.
func QGEMM(m, n, k int, a []byte, lda int, aSigned bool, b []byte, ldb int, c []int32, ldc int) {
	QGEMMPacked(m, n, k, a, lda, aSigned, nil, b, ldb, c, ldc)
}

// QPackedA is A packed once in the active level's kernel layout, for
// repeated products with the same A (a conv's weights against tiles and
// images of x).
type QPackedA struct {
	kn      *qkernel
	m, k    int
	aSigned bool
	panels  []byte // per k block of qkc, per row panel of mr: mr·kp·esize bytes
}

// QPackA packs the m×k matrix A (rows lda apart; int8 when aSigned) for
// QGEMMPacked at the active level (nil at generic, which does not pack).
func QPackA(m, k int, a []byte, lda int, aSigned bool) *QPackedA {
	kn := qkernelFor(curISA())
	if kn == nil || m <= 0 || k <= 0 {
		return nil
	}
	checkQGemm(m, 1, k, len(a), lda, k, 1, m, 1)
	if nk := qkernelNarrow(kn); nk != nil && aSigned && s8NarrowMat(a, lda, m, k) {
		kn = nk
	}
	p := &QPackedA{kn: kn, m: m, k: k, aSigned: aSigned}
	for p0 := 0; p0 < k; p0 += qkc {
		kc := min(qkc, k-p0)
		kp := ceilDiv(kc, kn.kg) * kn.kg
		sz := kn.mr * kp * kn.esize
		for i := 0; i < m; i += kn.mr {
			off := len(p.panels)
			p.panels = append(p.panels, make([]byte, sz)...)
			kn.packA(a, lda, aSigned, i, min(kn.mr, m-i), p0, kc, kp, p.panels[off:off+sz])
		}
	}
	return p
}

// panel returns the packed A panel of rows from i (a multiple of mr) and
// the k block from p0.
func (p *QPackedA) panel(i, p0 int) []byte {
	kn := p.kn
	npan := ceilDiv(p.m, kn.mr)
	kpFull := ceilDiv(qkc, kn.kg) * kn.kg * kn.mr * kn.esize // a whole block's panel size
	kc := min(qkc, p.k-p0)
	sz := kn.mr * ceilDiv(kc, kn.kg) * kn.kg * kn.esize
	off := p0/qkc*npan*kpFull + i/kn.mr*sz
	return p.panels[off : off+sz]
}

// QGEMMPacked is QGEMM with A already packed by QPackA (pa nil: a packed
// here); pa must have been packed from a, at this level.
func QGEMMPacked(m, n, k int, a []byte, lda int, aSigned bool, pa *QPackedA, b []byte, ldb int, c []int32, ldc int) {
	if m <= 0 || n <= 0 {
		return
	}
	checkQGemm(m, n, k, len(a), lda, len(b), ldb, len(c), ldc)
	qgemm(m, n, k, a, lda, aSigned, pa, b, bRows{ld: ldb}, c, ldc)
}

// QGEMMRows is QGEMMPacked with B's rows anywhere in b: row p is
// b[rowOff[p]:][:n] (len(rowOff) ≥ k). A convolution multiplies its
// weights by shifted views of its input this way without unrolling the
// windows (core/op's qconv2d). Packing is fastest where the rows of a
// packed group (4 at VNNI, 2 at avx2) lie evenly spaced.
func QGEMMRows(m, n, k int, a []byte, lda int, aSigned bool, pa *QPackedA, b []byte, rowOff []int, c []int32, ldc int) {
	if m <= 0 || n <= 0 {
		return
	}
	if len(rowOff) < k {
		panic(fmt.Sprintf("cpu: QGEMMRows %dx%dx%d: %d row offsets", m, n, k, len(rowOff)))
	}
	for p, o := range rowOff[:k] {
		if o < 0 || o+n > len(b) {
			panic(fmt.Sprintf("cpu: QGEMMRows %dx%dx%d: row %d at %d past the %d bytes of b", m, n, k, p, o, len(b)))
		}
	}
	checkQGemm(m, n, k, len(a), lda, 0, n, len(c), ldc)
	qgemm(m, n, k, a, lda, aSigned, pa, b, bRows{off: rowOff[:k], run: evenRuns(rowOff[:k])}, c, ldc)
}

// QGEMMGroups is QGEMMPacked with B's k rows interleaved in groups of
// four, column by column, anywhere in b: B[4g+t, j] = b[groupOff[g]+4j+t]
// for t < 4 (k a multiple of 4, len(groupOff) ≥ k/4). That is the layout
// the VNNI kernel reads from a packed panel, so at avx512 with VNNI it
// reads B in place, packing nothing but the panels whose 32 columns would
// reach past the end of b; qconv2d lays out its input this way (core/op's
// qshifted). The other levels have no such kernel and run Go loops.
func QGEMMGroups(m, n, k int, a []byte, lda int, aSigned bool, pa *QPackedA, b []byte, groupOff []int, c []int32, ldc int) {
	if m <= 0 || n <= 0 {
		return
	}
	if k%4 != 0 || len(groupOff) < k/4 {
		panic(fmt.Sprintf("cpu: QGEMMGroups %dx%dx%d: k not a multiple of 4, or %d group offsets", m, n, k, len(groupOff)))
	}
	gmax := 0
	for g, o := range groupOff[:k/4] {
		if o < 0 || o+4*n > len(b) {
			panic(fmt.Sprintf("cpu: QGEMMGroups %dx%dx%d: group %d at %d past the %d bytes of b", m, n, k, g, o, len(b)))
		}
		gmax = max(gmax, o)
	}
	checkQGemm(m, n, k, len(a), lda, 0, n, len(c), ldc)
	qgemm(m, n, k, a, lda, aSigned, pa, b, bRows{group: groupOff[:k/4], gmax: gmax}, c, ldc)
}

// evenRuns returns, for each p, how many of the rows from p on lie evenly
// spaced at a positive spacing (at least 1): bRows.span's answer, computed
// once per product rather than per packed panel.
func evenRuns(off []int) []int32 {
	run := make([]int32, len(off))
	for p := len(off) - 1; p >= 0; p-- {
		switch {
		case p == len(off)-1 || off[p+1] <= off[p]:
			run[p] = 1
		case p+2 == len(off) || off[p+2]-off[p+1] != off[p+1]-off[p]:
			run[p] = 2
		default:
			run[p] = run[p+1] + 1
		}
	}
	return run
}

// bRows addresses B's rows: row p starts at b[off[p]] when off is set,
// else at b[p·ld]; run, when set, is evenRuns(off). When group is set, B
// is interleaved in groups of four rows (QGEMMGroups): row p starts at
// b[group[p/4] + p%4], its columns 4 bytes apart; gmax is group's largest
// offset.
type bRows struct {
	ld    int
	off   []int
	run   []int32
	group []int
	gmax  int
}

func (r bRows) at(p int) int {
	if r.group != nil {
		return r.group[p>>2] + p&3
	}
	if r.off != nil {
		return r.off[p]
	}
	return p * r.ld
}

// span returns how many of the n rows from p on lie evenly spaced (at
// least 1), and their spacing (positive, or 0 with a count of 1).
func (r bRows) span(p, n int) (int, int) {
	if r.off == nil {
		return n, r.ld
	}
	if n < 2 || r.off[p+1] <= r.off[p] {
		return min(n, 1), 0
	}
	if r.run != nil {
		return min(n, int(r.run[p])), r.off[p+1] - r.off[p]
	}
	ld, i := r.off[p+1]-r.off[p], 2
	for i < n && r.off[p+i]-r.off[p+i-1] == ld {
		i++
	}
	return i, ld
}

// qgemm is QGEMMPacked after the checks, with B's rows addressed by rows.
func qgemm(m, n, k int, a []byte, lda int, aSigned bool, pa *QPackedA, b []byte, rows bRows, c []int32, ldc int) {
	if k == 0 {
		for i := range m {
			clear(c[i*ldc : i*ldc+n])
		}
		return
	}
	kn := qkernelFor(curISA())
	if kn == nil || rows.group != nil && kn.runGroups == nil {
		qgemmGeneric(m, n, k, a, lda, aSigned, b, rows, c, ldc)
		return
	}
	if pa != nil && ((pa.kn != kn && pa.kn != qkernelNarrow(kn)) || pa.m != m || pa.k != k || pa.aSigned != aSigned) {
		panic(fmt.Sprintf("cpu: QGEMMPacked %dx%dx%d: A packed as %dx%d for kernel %s", m, n, k, pa.m, pa.k, pa.kn.name))
	}
	kn = qkernelPick(kn, m, n, k, a, lda, aSigned, pa, b, rows)
	work := int64(m) * int64(n) * int64(k)
	threads := parallel.Threads()
	if work < 1<<18 {
		threads = 1
	}
	// Split the columns into chunks of whole tiles when there are enough,
	// else the rows; each part packs its own panels.
	colTiles, rowTiles := ceilDiv(n, kn.nr), ceilDiv(m, kn.mr)
	if colTiles >= threads || colTiles >= rowTiles {
		parts := min(threads, colTiles)
		per := ceilDiv(colTiles, parts)
		parallel.For(parts, 1, func(lo, hi int) {
			for p := lo; p < hi; p++ {
				j0, j1 := p*per*kn.nr, min((p+1)*per*kn.nr, n)
				if j0 < j1 {
					kn.region(0, m, j0, j1, k, a, lda, aSigned, pa, b, rows, c, ldc)
				}
			}
		})
		return
	}
	parts := min(threads, rowTiles)
	per := ceilDiv(rowTiles, parts)
	parallel.For(parts, 1, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			i0, i1 := p*per*kn.mr, min((p+1)*per*kn.mr, m)
			if i0 < i1 {
				kn.region(i0, i1, 0, n, k, a, lda, aSigned, pa, b, rows, c, ldc)
			}
		}
	})
}

// qkernelPick returns the kernel of one product at the level's kernel kn:
// the one A was packed for, else the narrow one (qkernelNarrow) when the
// signed operand lies in [-64, 63], else kn.
func qkernelPick(kn *qkernel, m, n, k int, a []byte, lda int, aSigned bool, pa *QPackedA, b []byte, rows bRows) *qkernel {
	if pa != nil {
		return pa.kn
	}
	nk := qkernelNarrow(kn)
	if nk != nil && (aSigned && s8NarrowMat(a, lda, m, k) || !aSigned && s8NarrowRows(b, rows, k, n)) {
		return nk
	}
	return kn
}

func checkQGemm(m, n, k, la, lda, lb, ldb, lc, ldc int) {
	switch {
	case k < 0 || lda < k || ldb < n || ldc < n:
		panic(fmt.Sprintf("cpu: QGEMM %dx%dx%d: leading dimensions %d, %d, %d too small", m, n, k, lda, ldb, ldc))
	case k > 0 && la < (m-1)*lda+k, k > 0 && lb > 0 && lb < (k-1)*ldb+n, lc < (m-1)*ldc+n:
		panic(fmt.Sprintf("cpu: QGEMM %dx%dx%d: operand lengths %d, %d, %d too short", m, n, k, la, lb, lc))
	}
}

// qbuf holds one goroutine's packed panels and an edge tile's scratch
// (mr·nr ≤ 12·32; on the stack it escaped to the heap, 1.5 KB per call).
type qbuf struct {
	a, b []byte
	tile [12 * 32]int32
}

var qbufs sync.Pool

// region computes c's rows [i0, i1) × columns [j0, j1): per column block
// (qpackedB), k in blocks of qkc; per block, B's panels (packed, or B
// grouped, read in place where they lie within b), then each row panel
// of A (packed beforehand in pa, or here) against them. (Packing one B panel
// at a time and running every row panel of a prepacked A against it
// while it is in L1 measured no faster on int8 PP-OCRv4.)
func (kn *qkernel) region(i0, i1, j0, j1, k int, a []byte, lda int, aSigned bool, pa *QPackedA, b []byte, rows bRows, c []int32, ldc int) {
	buf, _ := qbufs.Get().(*qbuf)
	if buf == nil {
		buf = &qbuf{}
	}
	defer qbufs.Put(buf)
	cols := j1 - j0
	kcMax := min(k, qkc)
	kpMax := ceilDiv(kcMax, kn.kg) * kn.kg
	// Column blocks of packed B within qpackedB bytes (in L2 while every
	// row panel of A runs against them), when A is packed beforehand;
	// else one block (packing A again per block would cost more).
	jstep := cols
	if pa != nil {
		jstep = max(1, qpackedB/(kn.nr*kpMax*kn.esize)) * kn.nr
	}
	needB := ceilDiv(min(cols, jstep), kn.nr) * kn.nr * kpMax * kn.esize
	needA := kn.mr * kpMax * kn.esize
	if len(buf.b) < needB {
		buf.b = make([]byte, needB)
	}
	if len(buf.a) < needA {
		buf.a = make([]byte, needA)
	}
	// run runs the row panel ap against the B panel bp, packed, or with
	// off set, B in place (bp from the panel's first column).
	// (sh: a short variant, for a panel of fewer rows)
	run := func(sh *qshort, kp int, ap, bp []byte, off []int, c []int32, ldc int, accum bool) {
		switch {
		case sh != nil && off != nil:
			sh.runGroups(kp/kn.kg, ap, bp, off, c, ldc, accum, aSigned)
		case sh != nil:
			sh.run(kp, ap, bp, c, ldc, accum, aSigned)
		case off != nil:
			kn.runGroups(kp/kn.kg, ap, bp, off, c, ldc, accum, aSigned)
		default:
			kn.run(kp, ap, bp, c, ldc, accum, aSigned)
		}
	}
	// tileRun runs the row panel ap (from row i) against the B panel bp
	// (and off: run) of the columns from jq.
	tileRun := func(kp int, ap, bp []byte, off []int, i, jq int, accum bool) {
		nr, w := min(kn.mr, i1-i), min(kn.nr, j1-jq)
		var sh *qshort
		if nr < kn.mr {
			sh = kn.shortFor(nr, off != nil)
		}
		if (nr == kn.mr || sh != nil && sh.rows == nr) && w == kn.nr {
			run(sh, kp, ap, bp, off, c[i*ldc+jq:], ldc, accum)
			return
		}
		t := buf.tile[:kn.mr*kn.nr]
		run(sh, kp, ap, bp, off, t, kn.nr, false)
		for r := range nr {
			dst, src := c[(i+r)*ldc+jq:][:w], t[r*kn.nr:][:w]
			if accum {
				for x := range dst {
					dst[x] += src[x]
				}
			} else {
				copy(dst, src)
			}
		}
	}
	// inPlace says whether the kernel reads the B panel of the columns
	// from jq in place: B grouped (QGEMMGroups) and every group's nr
	// columns within b (the columns past j1 are computed and dropped).
	inPlace := func(jq int) bool {
		return rows.group != nil && rows.gmax+4*(jq+kn.nr) <= len(b)
	}
	for jb := j0; jb < j1; jb += jstep {
		je := min(jb+jstep, j1)
		npan := ceilDiv(je-jb, kn.nr)
		for p0 := 0; p0 < k; p0 += qkc {
			kc := min(qkc, k-p0)
			kp := ceilDiv(kc, kn.kg) * kn.kg
			pstride := kn.nr * kp * kn.esize
			for q := range npan {
				jq := jb + q*kn.nr
				switch {
				case inPlace(jq):
				case rows.group != nil:
					packGroups(kn.nr, b, rows.group[p0/4:(p0+kc)/4], jq, min(kn.nr, je-jq), buf.b[q*pstride:(q+1)*pstride])
				default:
					kn.packB(b, rows, !aSigned, p0, kc, kp, jq, min(kn.nr, je-jq), buf.b[q*pstride:(q+1)*pstride])
				}
			}
			for i := i0; i < i1; i += kn.mr {
				ap := buf.a[:kn.mr*kp*kn.esize]
				if pa != nil {
					ap = pa.panel(i, p0)
				} else {
					kn.packA(a, lda, aSigned, i, min(kn.mr, i1-i), p0, kc, kp, ap)
				}
				for q := range npan {
					jq := jb + q*kn.nr
					if inPlace(jq) {
						tileRun(kp, ap, b[4*jq:], rows.group[p0/4:(p0+kc)/4], i, jq, p0 > 0)
						continue
					}
					tileRun(kp, ap, buf.b[q*pstride:(q+1)*pstride], nil, i, jq, p0 > 0)
				}
			}
		}
	}
}

// qpackedB is the most bytes of packed B a region packs at a time when A
// comes packed: a column block that stays in L2 while every row panel of
// A runs against it, instead of all of a large image's columns (tens of
// MiB for a 3×3 conv at 240×240) streaming from memory once per row panel.
const qpackedB = 256 << 10

// qgemmGeneric is the portable level: plain loops, one row of c at a time.
func qgemmGeneric(m, n, k int, a []byte, lda int, aSigned bool, b []byte, rows bRows, c []int32, ldc int) {
	parallel.For(m, max(1, (1<<16)/max(1, n*k)), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			row := c[i*ldc : i*ldc+n]
			clear(row)
			for p := range k {
				av := int32(a[i*lda+p])
				if aSigned {
					av = int32(int8(a[i*lda+p]))
				}
				if av == 0 {
					continue
				}
				if rows.group != nil { // four rows interleaved: column j at 4j
					br := b[rows.at(p):]
					for j := range row {
						row[j] += av * byteVal(br[4*j], !aSigned)
					}
					continue
				}
				br := b[rows.at(p):][:n]
				if aSigned {
					for j, bv := range br {
						row[j] += av * int32(bv)
					}
				} else {
					for j, bv := range br {
						row[j] += av * int32(int8(bv))
					}
				}
			}
		}
	})
}

// byteVal reads a byte as int8 or uint8.
func byteVal(v byte, signed bool) int32 {
	if signed {
		return int32(int8(v))
	}
	return int32(v)
}

// packA4 is the VNNI A layout: per group g of 4 k, mr rows of 4 bytes:
// dst[g·4mr + 4i + t] = A[i0+i, p0+4g+t].
func packA4(mr int) func(a []byte, lda int, signed bool, i0, rows, p0, kc, kcPad int, dst []byte) {
	return func(a []byte, lda int, _ bool, i0, rows, p0, kc, kcPad int, dst []byte) {
		clear(dst[:mr*kcPad])
		full := kc &^ 3
		for i := range rows {
			src := a[(i0+i)*lda+p0:][:kc]
			for p := 0; p < full; p += 4 {
				binary.LittleEndian.PutUint32(dst[p*mr+i*4:], binary.LittleEndian.Uint32(src[p:]))
			}
			for p := full; p < kc; p++ {
				dst[(p>>2)*4*mr+i*4+p&3] = src[p]
			}
		}
	}
}

// packFast packs whole groups of k of one full-width panel: groups·kg
// rows of B from src (rows ldb apart) into dst in a kernel's B layout,
// signed saying how to widen when the layout does.
type packFast func(src []byte, ldb, groups int, signed bool, dst []byte)

// packB4 is the VNNI B layout: per group g of 4 k, nr columns of 4 bytes:
// dst[g·4nr + 4j + t] = B[p0+4g+t, j0+j]. fast (may be nil) packs the
// whole groups of a full panel whose rows lie evenly spaced.
func packB4(nr int, fast packFast) func(b []byte, rows bRows, signed bool, p0, kc, kcPad, j0, cols int, dst []byte) {
	return packBGroups(nr, 4, 1, fast, func(src []byte, cols int, d []byte, _ bool) {
		for j, v := range src[:cols] {
			d[4*j] = v
		}
	})
}

// packGroups is packB for B grouped in place (QGEMMGroups) at the VNNI
// layout: the panel of cols columns from j0 (zero past them) of the groups
// at off, nr columns wide, copied out.
func packGroups(nr int, b []byte, off []int, j0, cols int, dst []byte) {
	for g, o := range off {
		d := dst[g*4*nr:][:4*nr]
		copy(d, b[o+4*j0:][:4*cols])
		clear(d[4*cols:])
	}
}

// qpart is the number of packed groups a partial B panel is copied out
// for at a time (packBGroups).
const qpart = 16

// packBGroups packs B panels in groups of kg rows (esize bytes per packed
// element): whole evenly spaced groups of a full panel by fast, the rest
// row by row by one, which writes a row's cols elements from src to d
// (d[kg·esize·j + ...]: the first element's place).
func packBGroups(nr, kg, esize int, fast packFast, one func(src []byte, cols int, d []byte, signed bool)) func(b []byte, rows bRows, signed bool, p0, kc, kcPad, j0, cols int, dst []byte) {
	return func(b []byte, rows bRows, signed bool, p0, kc, kcPad, j0, cols int, dst []byte) {
		if cols < nr || kc < kcPad {
			clear(dst[:nr*kcPad*esize])
		}
		full := kc - kc%kg
		if fast == nil {
			full = 0
		}
		gsize := kg * nr * esize // bytes of one packed group
		if cols < nr {
			// A partial panel: its rows copied into a full-width block
			// (zero columns past cols), qpart groups at a time, then
			// packed by fast.
			var blk [qpart * 4 * 32]byte
			for p := 0; p < full; p += qpart * kg {
				g := min(qpart, (full-p)/kg)
				for t := range g * kg {
					row := blk[t*nr:][:nr]
					copy(row, b[rows.at(p0+p+t)+j0:][:cols])
					clear(row[cols:])
				}
				fast(blk[:], nr, g, signed, dst[p/kg*gsize:])
			}
		}
		for p := 0; p < full && cols == nr; {
			n, ld := rows.span(p0+p, full-p)
			if g := n / kg; g > 0 {
				fast(b[rows.at(p0+p)+j0:], ld, g, signed, dst[p/kg*gsize:])
				p += g * kg
				continue
			}
			for t := range kg { // a group whose rows are not evenly spaced
				one(b[rows.at(p0+p+t)+j0:], cols, dst[p/kg*gsize+t*esize:], signed)
			}
			p += kg
		}
		for p := full; p < kc; p++ {
			one(b[rows.at(p0+p)+j0:], cols, dst[p/kg*gsize+p%kg*esize:], signed)
		}
	}
}

// packA2 is the int16-pair A layout: per pair g, mr rows of two int16
// (little-endian): element [g·2mr + 2i + t] = A[i0+i, p0+2g+t] widened.
func packA2(mr int) func(a []byte, lda int, signed bool, i0, rows, p0, kc, kcPad int, dst []byte) {
	return func(a []byte, lda int, signed bool, i0, rows, p0, kc, kcPad int, dst []byte) {
		clear(dst[:2*mr*kcPad])
		for i := range rows {
			src := a[(i0+i)*lda+p0:][:kc]
			for p, v := range src {
				e := 2 * ((p>>1)*2*mr + i*2 + p&1)
				w := uint16(byteVal(v, signed))
				dst[e], dst[e+1] = byte(w), byte(w>>8)
			}
		}
	}
}

// packB2 is the int16-pair B layout: element [g·2nr + 2j + t] = B[p0+2g+t, j0+j] widened.
func packB2(nr int, fast packFast) func(b []byte, rows bRows, signed bool, p0, kc, kcPad, j0, cols int, dst []byte) {
	return packBGroups(nr, 2, 2, fast, func(src []byte, cols int, d []byte, signed bool) {
		for j, v := range src[:cols] {
			w := uint16(byteVal(v, signed))
			d[4*j], d[4*j+1] = byte(w), byte(w>>8)
		}
	})
}

// fillBytes sets every byte of s to v, by doubling copies (memmove, not a
// byte loop), and returns s.
func fillBytes(s []byte, v byte) []byte {
	if len(s) == 0 {
		return s
	}
	s[0] = v
	for n := 1; n < len(s); n *= 2 {
		copy(s[n:], s[:n])
	}
	return s
}
