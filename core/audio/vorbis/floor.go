package vorbis

// floorRanges is floor 1's amplitude range for multipliers 1 to 4 (§7.2.3).
var floorRanges = [4]int{256, 128, 86, 64}

// decode reads one channel's floor posts (§7.2.3 packet decode, then
// step 1 of curve computation: amplitude values). It returns the final Y
// values, with step2[i] telling which posts draw a line, or ok=false for a
// channel with no energy this packet (the "unused" flag, or end of packet).
func (f *floor1) decode(r *bitReader, books []*codebook, ys []int, step2 []bool) (ok bool) {
	if !r.bit() || r.eop {
		return false
	}
	rng := floorRanges[f.mult-1]
	bits := ilog(rng - 1)
	ys[0], ys[1] = int(r.read(bits)), int(r.read(bits))
	off := 2
	for _, c := range f.partClass {
		dims, sub := f.classDims[c], f.classSub[c]
		mask := 1<<sub - 1
		cval := 0
		if sub > 0 {
			cval = books[f.classMaster[c]].decode(r)
			if cval < 0 {
				return false
			}
		}
		for j := range dims {
			ys[off+j] = 0
			if b := f.subBooks[c][cval&mask]; b >= 0 {
				v := books[b].decode(r)
				if v < 0 {
					return false
				}
				ys[off+j] = v
			}
			cval >>= sub
		}
		off += dims
	}
	if r.eop {
		return false
	}
	// Amplitude value synthesis: each post is predicted from its
	// neighbours and the coded value is an offset folded around it.
	step2[0], step2[1] = true, true
	for i := 2; i < len(f.xs); i++ {
		lo, hi := f.low[i], f.high[i]
		pred := renderPoint(f.xs[lo], ys[lo], f.xs[hi], ys[hi], f.xs[i])
		val := ys[i]
		highRoom, lowRoom := rng-pred, pred
		room := 2 * min(highRoom, lowRoom)
		if val == 0 {
			step2[i] = false
			ys[i] = pred
			continue
		}
		step2[lo], step2[hi], step2[i] = true, true, true
		switch {
		case val >= room && highRoom > lowRoom:
			ys[i] = val - lowRoom + pred
		case val >= room:
			ys[i] = pred - val + highRoom - 1
		case val&1 == 1:
			ys[i] = pred - (val+1)/2
		default:
			ys[i] = pred + val/2
		}
	}
	return true
}

// renderPoint is the Y of x on the line (x0,y0)–(x1,y1), integer (§9.2.6).
func renderPoint(x0, y0, x1, y1, x int) int {
	dy := y1 - y0
	adx := x1 - x0
	if adx == 0 {
		return y0
	}
	off := abs(dy) * (x - x0) / adx
	if dy < 0 {
		return y0 - off
	}
	return y0 + off
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// apply multiplies spec[0:n] by the floor curve (§7.2.4 curve synthesis,
// §9.2.7 render_line), the dB index of each bin mapped through inverseDB.
func (f *floor1) apply(ys []int, step2 []bool, spec []float32) {
	n := len(spec)
	clamp := func(y int) int { return max(0, min(255, y)) }
	lx, ly := 0, clamp(ys[f.order[0]]*f.mult)
	hx := 0
	for _, i := range f.order[1:] {
		if !step2[i] {
			continue
		}
		hx = f.xs[i]
		hy := clamp(ys[i] * f.mult)
		renderLine(lx, ly, hx, hy, spec)
		lx, ly = hx, hy
	}
	for x := hx; x < n; x++ {
		spec[x] *= inverseDB[ly]
	}
}

// renderLine multiplies d[x0:x1] (clipped to len(d)) by the floor along the
// Bresenham-style integer line from (x0,y0) to (x1,y1).
func renderLine(x0, y0, x1, y1 int, d []float32) {
	dy := y1 - y0
	adx := x1 - x0
	if adx <= 0 {
		return
	}
	ady := abs(dy)
	base := dy / adx
	sy := base + 1
	if dy < 0 {
		sy = base - 1
	}
	ady -= abs(base) * adx
	n := min(len(d), x1)
	y, err := y0, 0
	if x0 < n {
		d[x0] *= inverseDB[y]
	}
	for x := x0 + 1; x < n; x++ {
		err += ady
		if err >= adx {
			err -= adx
			y += sy
		} else {
			y += base
		}
		d[x] *= inverseDB[max(0, min(255, y))]
	}
}
