package cpu

// Packing copies a block of op(A) or op(B) into micro-panels the kernels read
// sequentially. Transposes happen here, block by block.

// packA packs rows [i0, i0+mb) and columns [p0, p0+kb) of op(A) into mr-row
// micro-panels: panel q holds dst[q*mr*kb + kk*mr + r] = op(A)[i0+q*mr+r][p0+kk],
// zero for rows past mb. op(A)[i][p] is a[i*lda+p], or a[p*lda+i] when trans.
func packA(trans bool, a []float32, lda, i0, p0, mb, kb, mr int, dst []float32) {
	for q := 0; q*mr < mb; q++ {
		rows := min(mr, mb-q*mr)
		d := dst[q*mr*kb : (q+1)*mr*kb]
		i := i0 + q*mr
		if trans {
			for kk := range kb {
				src := a[(p0+kk)*lda+i:]
				src = src[:rows]
				dd := d[kk*mr : kk*mr+mr]
				copy(dd, src)
				clear(dd[rows:])
			}
			continue
		}
		for r := range rows {
			src := a[(i+r)*lda+p0:]
			src = src[:kb]
			for kk, v := range src {
				d[kk*mr+r] = v
			}
		}
		if rows < mr {
			for kk := range kb {
				clear(d[kk*mr+rows : kk*mr+mr])
			}
		}
	}
}

// packB packs rows [p0, p0+kb) and columns [j0, j0+nb) of op(B) into
// nr-column micro-panels: panel q holds dst[q*nr*kb + kk*w + c] =
// op(B)[p0+kk][j0+q*nr+c], w = nr, except that with half the last panel is
// nr/2 wide when it has at most nr/2 columns. Columns past nb are zero.
// op(B)[p][j] is b[p*ldb+j], or b[j*ldb+p] when trans.
func packB(trans bool, b []float32, ldb, p0, j0, kb, nb, nr int, half bool, dst []float32) {
	for q := 0; q*nr < nb; q++ {
		cols := min(nr, nb-q*nr)
		w := nr
		if half && cols <= nr/2 {
			w = nr / 2
		}
		d := dst[q*nr*kb : q*nr*kb+w*kb]
		j := j0 + q*nr
		if !trans {
			for kk := range kb {
				src := b[(p0+kk)*ldb+j:]
				dd := d[kk*w : kk*w+w]
				copy(dd, src[:cols])
				clear(dd[cols:])
			}
			continue
		}
		if w == 32 && cols == 32 {
			packBT32(b, ldb, p0, j, kb, d)
			continue
		}
		for c := range cols {
			src := b[(j+c)*ldb+p0:]
			src = src[:kb]
			for kk, v := range src {
				d[kk*w+c] = v
			}
		}
		if cols < w {
			for kk := range kb {
				clear(d[kk*w+cols : kk*w+w])
			}
		}
	}
}

// packBT32 packs a full 32-column panel of a transposed B, 4 source rows at
// a time (4 sequential read streams, 4 adjacent writes per k).
func packBT32(b []float32, ldb, p0, j, kb int, d []float32) {
	for c := 0; c < 32; c += 4 {
		s0 := b[(j+c)*ldb+p0:][:kb]
		s1 := b[(j+c+1)*ldb+p0:][:kb]
		s2 := b[(j+c+2)*ldb+p0:][:kb]
		s3 := b[(j+c+3)*ldb+p0:][:kb]
		for kk := range kb {
			dd := d[kk*32+c : kk*32+c+4 : kk*32+c+4]
			dd[0], dd[1], dd[2], dd[3] = s0[kk], s1[kk], s2[kk], s3[kk]
		}
	}
}
