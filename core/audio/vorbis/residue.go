package vorbis

// decode reads residue vectors (§8.6) into vs (one per channel of the
// submap, each n long, zeroed by the caller), skipping channels with
// skip[j]. End of packet leaves the rest zero, as the spec asks.
func (res *residue) decode(r *bitReader, books []*codebook, vs [][]float32, skip []bool, n int) {
	if res.kind == 2 {
		res.decodeInterleaved(r, books, vs, skip, n)
		return
	}
	res.decodeChannels(r, books, vs, skip, n)
}

// decodeInterleaved is residue type 2: type 1 over one vector that
// interleaves all the channels.
func (res *residue) decodeInterleaved(r *bitReader, books []*codebook, vs [][]float32, skip []bool, n int) {
	any := false
	for _, s := range skip {
		any = any || !s
	}
	if !any {
		return
	}
	ch := len(vs)
	if ch == 1 {
		res.decodeChannels(r, books, vs, []bool{false}, n)
		return
	}
	flat := make([]float32, n*ch)
	res.decodeChannels(r, books, [][]float32{flat}, []bool{false}, n*ch)
	for i := range n {
		for j, v := range vs {
			v[i] = flat[i*ch+j]
		}
	}
}

// decodeChannels is residue types 0 and 1 (and 2's inner step when kind
// is 2, which then decodes like 1).
func (res *residue) decodeChannels(r *bitReader, books []*codebook, vs [][]float32, skip []bool, n int) {
	begin, end := min(res.begin, n), min(res.end, n)
	if end <= begin {
		return
	}
	cb := books[res.classBook]
	perWord := cb.dims
	parts := (end - begin) / res.partSize
	if parts == 0 {
		return
	}
	classes := make([][]int, len(vs))
	for j := range classes {
		classes[j] = make([]int, parts+perWord)
	}
	for pass := range 8 {
		for p := 0; p < parts; {
			if pass == 0 {
				for j := range vs {
					if skip[j] {
						continue
					}
					t := cb.decode(r)
					if t < 0 {
						return
					}
					for i := perWord - 1; i >= 0; i-- {
						classes[j][p+i] = t % res.classes
						t /= res.classes
					}
				}
			}
			for i := 0; i < perWord && p < parts; i++ {
				for j, v := range vs {
					if skip[j] {
						continue
					}
					b := res.books[classes[j][p]][pass]
					if b < 0 {
						continue
					}
					off := begin + p*res.partSize
					if !res.partition(r, books[b], v[off:off+res.partSize]) {
						return
					}
				}
				p++
			}
		}
	}
}

// partition adds one partition's VQ vectors into v; false at end of packet.
func (res *residue) partition(r *bitReader, cb *codebook, v []float32) bool {
	dims := cb.dims
	if res.kind == 0 {
		// Type 0 interleaves each vector's elements with stride len/dims.
		step := len(v) / dims
		for i := range step {
			vec := cb.vector(r)
			if vec == nil {
				return false
			}
			for j, x := range vec {
				v[i+j*step] += x
			}
		}
		return true
	}
	for i := 0; i < len(v); {
		vec := cb.vector(r)
		if vec == nil {
			return false
		}
		for _, x := range vec {
			if i >= len(v) {
				break
			}
			v[i] += x
			i++
		}
	}
	return true
}
