package chem

import "sort"

// bondStereo is the cis/trans configuration of a double bond, read from the
// '/' and '\' marks of its neighbouring single bonds: refA (a neighbour of
// the bond's atom A) and refB (of B) are on the same side when Cis.
type bondStereo struct {
	refA, refB int
	cis        bool
}

// side is +1 ("up") or -1 ("down") for neighbour x of atom at across bond k
// with direction mark dir, where first is the atom written first.
func side(first, x int, dir byte) int {
	s := 1
	if dir == '\\' {
		s = -1
	}
	if first == x {
		s = -s
	}
	return s
}

// perceiveBondStereo turns the parsed direction marks into per-double-bond
// configurations (double bonds outside rings with a marked neighbour on both ends).
func (m *Mol) perceiveBondStereo() {
	m.stereo = nil
	for k, b := range m.Bonds {
		if b.Order != Double || m.ringInfo().bondInRing[k] {
			continue
		}
		ra, sa := m.markedNeighbour(b.A, k)
		rb, sb := m.markedNeighbour(b.B, k)
		if ra < 0 || rb < 0 {
			continue
		}
		if m.stereo == nil {
			m.stereo = map[int]bondStereo{}
		}
		m.stereo[k] = bondStereo{refA: ra, refB: rb, cis: sa == sb}
	}
}

func (m *Mol) markedNeighbour(at, dbl int) (int, int) {
	for _, nb := range m.adj[at] {
		bd := &m.Bonds[nb]
		if nb == dbl || bd.Dir == 0 || bd.Order != Single {
			continue
		}
		x := bd.Other(at)
		return x, side(bd.A, x, bd.Dir)
	}
	return -1, 0
}

// outputDirs chooses '/' or '\' for tree bonds of the written string so that
// every double bond keeps its configuration; dirs are keyed by bond and read
// from parent to child. A double bond whose ends have no tree neighbour, or
// whose marks would conflict, is written without stereo.
func (m *Mol) outputDirs(order []int, parentBond []int) map[int]byte {
	if len(m.stereo) == 0 {
		return nil
	}
	pos := make([]int, len(m.Atoms))
	for i := range pos {
		pos[i] = -1
	}
	for i, v := range order {
		pos[v] = i
	}
	isTree := func(b int) bool {
		bd := &m.Bonds[b]
		return parentBond[bd.A] == b || parentBond[bd.B] == b
	}
	first := func(b int) int { // the end written first
		bd := &m.Bonds[b]
		if pos[bd.A] < pos[bd.B] {
			return bd.A
		}
		return bd.B
	}
	var dbls []int
	for k := range m.stereo {
		if pos[m.Bonds[k].A] >= 0 {
			dbls = append(dbls, k)
		}
	}
	sort.Slice(dbls, func(i, j int) bool {
		return min(pos[m.Bonds[dbls[i]].A], pos[m.Bonds[dbls[i]].B]) < min(pos[m.Bonds[dbls[j]].A], pos[m.Bonds[dbls[j]].B])
	})
	dirs := map[int]byte{}
	pick := func(at, dbl int) int { // a tree single bond of at: one already marked first
		best := -1
		for _, nb := range m.adj[at] {
			if nb == dbl || m.Bonds[nb].Order != Single || !isTree(nb) {
				continue
			}
			if _, ok := dirs[nb]; ok {
				return nb
			}
			if best < 0 || pos[m.Bonds[nb].Other(at)] < pos[m.Bonds[best].Other(at)] {
				best = nb
			}
		}
		return best
	}
	for _, k := range dbls {
		st := m.stereo[k]
		a, b := m.Bonds[k].A, m.Bonds[k].B
		p, q := a, b
		if pos[b] < pos[a] {
			p, q = b, a
		}
		bp, bq := pick(p, k), pick(q, k)
		if bp < 0 || bq < 0 {
			continue
		}
		x, y := m.Bonds[bp].Other(p), m.Bonds[bq].Other(q)
		// configuration between x and y from the stored references
		refP, refQ := st.refA, st.refB
		if p != a {
			refP, refQ = st.refB, st.refA
		}
		cis := st.cis
		if x != refP {
			cis = !cis
		}
		if y != refQ {
			cis = !cis
		}
		dx, ok := dirs[bp]
		if !ok {
			dx = '/'
		}
		sx := side(first(bp), x, dx)
		want := sx
		if !cis {
			want = -sx
		}
		dy := byte('/')
		if side(first(bq), y, dy) != want {
			dy = '\\'
		}
		if old, ok := dirs[bq]; ok && old != dy {
			continue
		}
		dirs[bp], dirs[bq] = dx, dy
	}
	return dirs
}
