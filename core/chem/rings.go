package chem

import "sort"

// ringInfo is the ring perception of a molecule: ring membership from the
// graph's cycle space and a smallest set of smallest rings (a minimum cycle
// basis, as many rings as the cyclomatic number).
type ringInfo struct {
	atomInRing []bool
	bondInRing []bool
	rings      [][]int // atoms of each SSSR ring, in ring order
	ringBonds  [][]int // bonds of each SSSR ring
}

func (m *Mol) ringInfo() *ringInfo {
	if m.rings == nil {
		m.rings = m.perceiveRings()
	}
	return m.rings
}

// NumRings is the size of the smallest set of smallest rings.
func (m *Mol) NumRings() int { return len(m.ringInfo().rings) }

// Rings returns the atoms of each ring of the smallest set of smallest rings.
func (m *Mol) Rings() [][]int { return m.ringInfo().rings }

// AtomInRing reports whether atom i is in a ring.
func (m *Mol) AtomInRing(i int) bool { return m.ringInfo().atomInRing[i] }

// BondInRing reports whether bond k is in a ring.
func (m *Mol) BondInRing(k int) bool { return m.ringInfo().bondInRing[k] }

// AtomInRingSize reports whether atom i is in an SSSR ring of the given size.
func (m *Mol) AtomInRingSize(i, size int) bool {
	for _, r := range m.ringInfo().rings {
		if len(r) == size {
			for _, a := range r {
				if a == i {
					return true
				}
			}
		}
	}
	return false
}

func (m *Mol) perceiveRings() *ringInfo {
	n, nb := len(m.Atoms), len(m.Bonds)
	ri := &ringInfo{atomInRing: make([]bool, n), bondInRing: make([]bool, nb)}
	// bridges (Tarjan): a bond is in a ring iff it is not a bridge
	disc, low := make([]int, n), make([]int, n)
	for i := range disc {
		disc[i] = -1
	}
	t := 0
	type frame struct{ v, parentBond, next int }
	comps := 0
	for s := 0; s < n; s++ {
		if disc[s] >= 0 {
			continue
		}
		comps++
		stack := []frame{{s, -1, 0}}
		disc[s], low[s] = t, t
		t++
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			if f.next < len(m.adj[f.v]) {
				b := m.adj[f.v][f.next]
				f.next++
				if b == f.parentBond {
					continue
				}
				w := m.Bonds[b].Other(f.v)
				if disc[w] < 0 {
					disc[w], low[w] = t, t
					t++
					stack = append(stack, frame{w, b, 0})
				} else {
					ri.bondInRing[b] = true // a back edge closes a cycle
					if disc[w] < low[f.v] {
						low[f.v] = disc[w]
					}
				}
				continue
			}
			v, pb := f.v, f.parentBond
			stack = stack[:len(stack)-1]
			if pb >= 0 {
				u := m.Bonds[pb].Other(v)
				if low[v] < low[u] {
					low[u] = low[v]
				}
				if low[v] <= disc[u] {
					ri.bondInRing[pb] = true
				}
			}
		}
	}
	for k, b := range m.Bonds {
		if m.Bonds[k].A == m.Bonds[k].B {
			continue
		}
		if ri.bondInRing[k] {
			ri.atomInRing[b.A], ri.atomInRing[b.B] = true, true
		}
	}
	nRings := nb - n + comps
	if nRings <= 0 {
		return ri
	}
	ri.rings, ri.ringBonds = m.minimumCycleBasis(ri, nRings)
	return ri
}

// minimumCycleBasis picks nRings independent shortest cycles from Horton's
// candidate set (shortest paths from each ring atom closed by one bond).
func (m *Mol) minimumCycleBasis(ri *ringInfo, nRings int) ([][]int, [][]int) {
	n, nb := len(m.Atoms), len(m.Bonds)
	words := (nb + 63) / 64
	type cand struct {
		atoms, bonds []int
		bits         []uint64
	}
	var cands []cand
	seen := map[string]bool{}
	parent := make([]int, n) // bond to parent in the BFS tree
	dist := make([]int, n)
	for r := 0; r < n; r++ {
		if !ri.atomInRing[r] {
			continue
		}
		for i := range dist {
			dist[i], parent[i] = -1, -1
		}
		dist[r] = 0
		queue := []int{r}
		for q := 0; q < len(queue); q++ {
			v := queue[q]
			for _, b := range m.adj[v] {
				if !ri.bondInRing[b] {
					continue
				}
				w := m.Bonds[b].Other(v)
				if dist[w] < 0 {
					dist[w], parent[w] = dist[v]+1, b
					queue = append(queue, w)
				}
			}
		}
		path := func(v int) ([]int, []int) { // atoms v..r (excluding r), bonds
			var as, bs []int
			for v != r {
				as = append(as, v)
				bs = append(bs, parent[v])
				v = m.Bonds[parent[v]].Other(v)
			}
			return as, bs
		}
		for k, b := range m.Bonds {
			if !ri.bondInRing[k] || parent[b.A] == k || parent[b.B] == k || dist[b.A] < 0 || dist[b.B] < 0 {
				continue
			}
			pa, ba := path(b.A)
			pb, bb := path(b.B)
			// the two paths must meet only at r
			inA := map[int]bool{}
			for _, a := range pa {
				inA[a] = true
			}
			ok := true
			for _, a := range pb {
				if inA[a] {
					ok = false
					break
				}
			}
			if !ok {
				continue
			}
			bits := make([]uint64, words)
			bonds := append(append(append([]int{}, ba...), k), bb...)
			for _, x := range bonds {
				bits[x/64] |= 1 << (x % 64)
			}
			key := string(u64bytes(bits))
			if seen[key] {
				continue
			}
			seen[key] = true
			atoms := []int{r}
			for i := len(pa) - 1; i >= 0; i-- {
				atoms = append(atoms, pa[i])
			}
			atoms = append(atoms, pb...)
			cands = append(cands, cand{atoms, bonds, bits})
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return len(cands[i].bonds) < len(cands[j].bonds) })
	// Gaussian elimination over GF(2). A candidate is kept when it is not a
	// sum of strictly shorter cycles (a relevant cycle): this is the minimum
	// cycle basis plus the equally short alternatives, as RDKit's
	// symmetrised SSSR keeps them (adamantane: 4 rings, cubane: 6).
	var basis [][]uint64
	var pivots []int
	reduce := func(v []uint64, basis [][]uint64, pivots []int) []uint64 {
		v = append([]uint64(nil), v...)
		for i, p := range pivots {
			if v[p/64]>>(p%64)&1 == 1 {
				for w := range v {
					v[w] ^= basis[i][w]
				}
			}
		}
		return v
	}
	pivotOf := func(v []uint64) int {
		for w := range v {
			if v[w] != 0 {
				for bit := 0; bit < 64; bit++ {
					if v[w]>>bit&1 == 1 {
						return w*64 + bit
					}
				}
			}
		}
		return -1
	}
	var rings, ringBonds [][]int
	for g := 0; g < len(cands); {
		h := g
		for h < len(cands) && len(cands[h].bonds) == len(cands[g].bonds) {
			h++
		}
		// the span of the strictly shorter cycles, frozen for this length
		snapB := make([][]uint64, len(basis))
		for i := range basis {
			snapB[i] = append([]uint64(nil), basis[i]...)
		}
		snapP := append([]int(nil), pivots...)
		for _, c := range cands[g:h] {
			if pivotOf(reduce(c.bits, snapB, snapP)) < 0 {
				continue
			}
			rings = append(rings, c.atoms)
			ringBonds = append(ringBonds, c.bonds)
			v := reduce(c.bits, basis, pivots)
			p := pivotOf(v)
			if p < 0 {
				continue
			}
			for i, bv := range basis {
				if bv[p/64]>>(p%64)&1 == 1 {
					for w := range bv {
						basis[i][w] ^= v[w]
					}
				}
			}
			basis = append(basis, v)
			pivots = append(pivots, p)
		}
		if len(basis) == nRings {
			break
		}
		g = h
	}
	return rings, ringBonds
}

func u64bytes(v []uint64) []byte {
	b := make([]byte, 0, 8*len(v))
	for _, x := range v {
		for i := 0; i < 8; i++ {
			b = append(b, byte(x>>(8*i)))
		}
	}
	return b
}
