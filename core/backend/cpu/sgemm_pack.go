package cpu

// Packing copies a block of op(A) or op(B) into micro-panels the kernels read
// sequentially. Transposes happen here, block by block.

// packA packs rows [i0, i0+mb) and columns [p0, p0+kb) of op(A) into
// kn.mr-row micro-panels, zero for rows past mb; op(A)[i][p] is a[i*lda+p],
// or a[p*lda+i] when trans. Panel q starts at dst[q*mr*kb] and holds
// element (r, kk) at kk*mr + r (k-major), or, when packA returns true, at
// r*kb + kk (row-major: a non-transposed A with a kernel that reads it).
func packA(trans bool, a []float32, lda, i0, p0, mb, kb int, kn *microKernel, dst []float32) (rowMajor bool) {
	mr := kn.mr
	for q := 0; q*mr < mb; q++ {
		rows := min(mr, mb-q*mr)
		d := dst[q*mr*kb : (q+1)*mr*kb]
		i := i0 + q*mr
		switch {
		case !trans && kn.rowA:
			for r := range rows {
				copy(d[r*kb:(r+1)*kb], a[(i+r)*lda+p0:])
			}
			clear(d[rows*kb:])
		case trans && kn.packRows != nil:
			kn.packRows(a[p0*lda+i:], lda, kb, rows, mr, d)
		case trans:
			for kk := range kb {
				dd := d[kk*mr : kk*mr+mr]
				copy(dd, a[(p0+kk)*lda+i:][:rows])
				clear(dd[rows:])
			}
		default:
			interleave(a[i*lda+p0:], lda, rows, kb, mr, d)
		}
	}
	return !trans && kn.rowA
}

// packB packs rows [p0, p0+kb) and columns [j0, j0+nb) of op(B) into
// nr-column micro-panels: panel q holds dst[q*nr*kb + kk*w + c] =
// op(B)[p0+kk][j0+q*nr+c], w = nr, except that with half the last panel is
// nr/2 wide when it has at most nr/2 columns (kn.half). Columns past nb are zero.
// op(B)[p][j] is b[p*ldb+j], or b[j*ldb+p] when trans.
func packB(trans bool, b []float32, ldb, p0, j0, kb, nb, nr int, kn *microKernel, dst []float32) {
	q0 := 0
	if !trans && kn.packPanels != nil {
		q0 = nb / nr
		kn.packPanels(b[p0*ldb+j0:], ldb, kb, q0, dst)
	}
	for q := q0; q*nr < nb; q++ {
		cols := min(nr, nb-q*nr)
		w := nr
		if kn.half && cols <= nr/2 {
			w = nr / 2
		}
		d := dst[q*nr*kb : q*nr*kb+w*kb]
		j := j0 + q*nr
		if !trans && kn.packRows != nil {
			kn.packRows(b[p0*ldb+j:], ldb, kb, cols, w, d)
			continue
		}
		if !trans {
			for kk := range kb {
				src := b[(p0+kk)*ldb+j:]
				dd := d[kk*w : kk*w+w]
				copy(dd, src[:cols])
				clear(dd[cols:])
			}
			continue
		}
		if cols == nr && kn.packPanelT != nil {
			kn.packPanelT(b[j*ldb+p0:], ldb, kb, d)
			continue
		}
		interleave(b[j*ldb+p0:], ldb, cols, kb, w, d)
	}
}

// interleave writes d[kk*w+r] = src[r*ld+kk] for r < rows, kk < kb, and
// zeros for rows ≤ r < w: the transpose of a rows×kb block into a w-wide
// panel. It reads 4 rows at a time (4 sequential streams, 4 adjacent writes).
func interleave(src []float32, ld, rows, kb, w int, d []float32) {
	d = d[:kb*w]
	r := 0
	for ; r+4 <= rows; r += 4 {
		s0 := src[r*ld:][:kb]
		s1 := src[(r+1)*ld:][:kb]
		s2 := src[(r+2)*ld:][:kb]
		s3 := src[(r+3)*ld:][:kb]
		for kk := range s0 {
			dd := d[kk*w+r : kk*w+r+4 : kk*w+r+4]
			dd[0], dd[1], dd[2], dd[3] = s0[kk], s1[kk], s2[kk], s3[kk]
		}
	}
	for ; r < rows; r++ {
		s0 := src[r*ld:][:kb]
		for kk, v := range s0 {
			d[kk*w+r] = v
		}
	}
	if rows < w {
		for kk := range kb {
			clear(d[kk*w+rows : kk*w+w])
		}
	}
}
