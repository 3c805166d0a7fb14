package cpu

// The column shuffles around the vector Winograd transforms: an input row
// split by column mod 4 into the planes the transform reads (tile k's
// column j is plane j mod 4 at k + j/4), and the inverse for output rows.
// The vector versions (wgshuffle_amd64.s, avx2_amd64.s) run only where s.vec is set.

// wgRowPlanes writes planes[m*lds + k] = row[iw0 + 4k + m] for m < 4,
// k < lds (lds a multiple of 16), 0 outside row (all 0 when row is nil):
// each group of 16 tiles whose 64 source floats lie in row by one vector
// deinterleave straight from row, the others (at the padded edges) through
// buf (at least 64 floats) zero-padded.
func wgRowPlanes(planes []float32, lds int, buf, row []float32, iw0 int) {
	planes = planes[:4*lds]
	if row == nil || iw0 >= len(row) || iw0+4*lds <= 0 {
		clear(planes)
		return
	}
	groups := lds / 16
	// groups [g0, g1) read row[iw0+64g : iw0+64g+64] in bounds
	g0 := min(groups, ceilDiv(max(0, -iw0), 64))
	g1 := max(g0, min(groups, (len(row)-iw0)/64))
	if g1 > g0 {
		wgDeint4(&row[iw0+64*g0], &planes[16*g0], lds, g1-g0)
	}
	buf = buf[:64]
	edge := func(g int) {
		j0 := iw0 + 64*g
		lo, hi := max(0, -j0), min(64, len(row)-j0)
		if lo >= hi {
			clear(buf)
		} else {
			clear(buf[:lo])
			copy(buf[lo:hi], row[j0+lo:j0+hi])
			clear(buf[hi:])
		}
		wgDeint4(&buf[0], &planes[16*g], lds, 1)
	}
	for g := range g0 {
		edge(g)
	}
	for g := g1; g < groups; g++ {
		edge(g)
	}
}

// wgPlanesRow writes dst[4k + m] = planes[m*ld + k] for m < 4, k < n (the
// outputs of n whole tiles into one output row), n/16 groups at a time
// through the vector interleave and the rest through tmp; each plane must
// hold ceil(n/16)·16 floats.
func wgPlanesRow(dst, planes []float32, ld, n int, tmp *[64]float32) {
	if n == 0 {
		return
	}
	g, rem := n/16, n%16
	_ = planes[3*ld+wgUp16(n)-1]
	dst = dst[:4*n]
	if g > 0 {
		wgInt4(&planes[0], ld, &dst[0], g)
	}
	if rem > 0 {
		wgInt4(&planes[16*g], ld, &tmp[0], 1)
		copy(dst[64*g:], tmp[:4*rem])
	}
}
