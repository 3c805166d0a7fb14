package chem

import "sort"

// hashCombine is boost's hash_combine on a 32-bit seed, as RDKit's gboost uses it.
func hashCombine(seed *uint32, v uint32) {
	*seed ^= v + 0x9e3779b9 + (*seed << 6) + (*seed >> 2)
}

// atomInvariants are RDKit's Morgan connectivity invariants: atomic number,
// total degree, total H (hydrogen neighbours included), formal charge, mass
// delta (truncated), and 1 when in a ring.
func (m *Mol) atomInvariants() []uint32 {
	inv := make([]uint32, len(m.Atoms))
	for i := range m.Atoms {
		a := &m.Atoms[i]
		nh := a.TotalH() // hydrogens, counting hydrogen atoms kept in the graph ([2H])
		for _, b := range m.adj[i] {
			if m.Atoms[m.Bonds[b].Other(i)].Z == 1 {
				nh++
			}
		}
		comps := []uint32{uint32(a.Z), uint32(len(m.adj[i]) + a.TotalH()), uint32(nh), uint32(int32(a.Charge))}
		delta := int(a.mass() - atomicWeight(a.Z)) // truncated toward zero, as RDKit's cast
		comps = append(comps, uint32(int32(delta)))
		if m.AtomInRing(i) {
			comps = append(comps, 1)
		}
		var h uint32
		for _, c := range comps {
			hashCombine(&h, c)
		}
		inv[i] = h
	}
	return inv
}

// MorganCounts returns RDKit's Morgan (ECFP-like) fingerprint of the given
// radius as a map from the unfolded 32-bit environment id to its count.
func (m *Mol) MorganCounts(radius int) map[uint32]int {
	out := map[uint32]int{}
	m.morgan(radius, func(id uint32) { out[id]++ })
	return out
}

// MorganBits returns the sorted on-bits of RDKit's folded Morgan fingerprint
// (GetMorganFingerprintAsBitVect(mol, radius, nBits)).
func (m *Mol) MorganBits(radius, nBits int) []int {
	on := map[int]bool{}
	m.morgan(radius, func(id uint32) { on[int(id%uint32(nBits))] = true })
	bits := make([]int, 0, len(on))
	for b := range on {
		bits = append(bits, b)
	}
	sort.Ints(bits)
	return bits
}

func (m *Mol) morgan(radius int, emit func(uint32)) {
	n := len(m.Atoms)
	cur := m.atomInvariants()
	for _, v := range cur {
		emit(v)
	}
	words := (len(m.Bonds) + 63) / 64
	nbhd := make([][]uint64, n)
	for i := range nbhd {
		nbhd[i] = make([]uint64, words)
	}
	dead := make([]bool, n)
	seen := map[string]bool{}
	type acc struct {
		bits []uint64
		inv  uint32
		atom int
	}
	for layer := 0; layer < radius; layer++ {
		next := make([]uint32, n) // atoms already dead hash as 0 from now on, as in RDKit
		newNbhd := make([][]uint64, n)
		var round []acc
		for i := 0; i < n; i++ {
			if dead[i] {
				continue
			}
			if len(m.adj[i]) == 0 {
				dead[i] = true
				continue
			}
			bits := append([]uint64(nil), nbhd[i]...)
			type nbr struct {
				bt  int32
				inv uint32
			}
			var ns []nbr
			for _, b := range m.adj[i] {
				j := m.Bonds[b].Other(i)
				bits[b/64] |= 1 << (b % 64)
				for w := range bits {
					bits[w] |= nbhd[j][w]
				}
				ns = append(ns, nbr{int32(m.Bonds[b].Order), cur[j]})
			}
			sort.Slice(ns, func(x, y int) bool {
				if ns[x].bt != ns[y].bt {
					return ns[x].bt < ns[y].bt
				}
				return ns[x].inv < ns[y].inv
			})
			inv := uint32(layer)
			hashCombine(&inv, cur[i])
			for _, nb := range ns {
				var h uint32
				hashCombine(&h, uint32(nb.bt))
				hashCombine(&h, nb.inv)
				hashCombine(&inv, h)
			}
			next[i] = inv
			newNbhd[i] = bits
			round = append(round, acc{bits, inv, i})
		}
		sort.Slice(round, func(x, y int) bool {
			if c := cmpBitset(round[x].bits, round[y].bits); c != 0 {
				return c < 0
			}
			if round[x].inv != round[y].inv {
				return round[x].inv < round[y].inv
			}
			return round[x].atom < round[y].atom
		})
		for _, r := range round {
			key := string(u64bytes(r.bits))
			if seen[key] {
				dead[r.atom] = true
				continue
			}
			emit(r.inv)
			seen[key] = true
		}
		for i := range newNbhd {
			if newNbhd[i] != nil {
				nbhd[i] = newNbhd[i]
			}
		}
		cur = next
	}
}

// cmpBitset orders bond sets as boost::dynamic_bitset's operator< does
// (as binary numbers, highest bit first).
func cmpBitset(a, b []uint64) int {
	for w := len(a) - 1; w >= 0; w-- {
		if a[w] != b[w] {
			if a[w] < b[w] {
				return -1
			}
			return 1
		}
	}
	return 0
}
