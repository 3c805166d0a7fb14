package chem

import (
	"errors"
	"sort"
)

// kekulize turns aromatic bonds into single and double bonds: the atoms that
// need a double bond (RDKit's candidate test) are matched along aromatic bonds.
func (m *Mol) kekulize() error {
	n := len(m.Atoms)
	cand := make([]bool, n)
	anyArom := false
	for i := range m.Atoms {
		a := &m.Atoms[i]
		nArom, sbo := 0, a.TotalH()
		for _, b := range m.adj[i] {
			if m.Bonds[b].Order == Aromatic {
				nArom++
				sbo++
			} else {
				sbo += int(m.Bonds[b].Order)
			}
		}
		if nArom == 0 {
			continue
		}
		anyArom = true
		chg := chargeAdjust(a)
		dv := defaultValence(a.Z) + chg
		tbo := m.explicitValence(i) + a.ImplicitH
		vl := valenceList(a.Z)
		for vi := 1; tbo > dv && vi < len(vl) && vl[vi] > 0; vi++ {
			dv = vl[vi] + chg
		}
		if len(m.adj[i])+a.TotalH() >= dv {
			continue
		}
		if dv == sbo+1 {
			cand[i] = true
		}
	}
	if !anyArom {
		return nil
	}
	mate := make([]int, n)
	for i := range mate {
		mate[i] = -1
	}
	steps := 0
	var solve func() bool
	solve = func() bool {
		steps++
		if steps > 200000 {
			return false
		}
		// the unmatched candidate with the fewest free partners
		best, bestN := -1, 1<<30
		for i := 0; i < n; i++ {
			if !cand[i] || mate[i] >= 0 {
				continue
			}
			c := 0
			for _, b := range m.adj[i] {
				j := m.Bonds[b].Other(i)
				if m.Bonds[b].Order == Aromatic && cand[j] && mate[j] < 0 {
					c++
				}
			}
			if c < bestN {
				best, bestN = i, c
			}
		}
		if best < 0 {
			return true
		}
		if bestN == 0 {
			return false
		}
		for _, b := range m.adj[best] {
			j := m.Bonds[b].Other(best)
			if m.Bonds[b].Order != Aromatic || !cand[j] || mate[j] >= 0 {
				continue
			}
			mate[best], mate[j] = j, best
			if solve() {
				return true
			}
			mate[best], mate[j] = -1, -1
		}
		return false
	}
	if !solve() {
		return errors.New("can't kekulize mol")
	}
	for k := range m.Bonds {
		b := &m.Bonds[k]
		if b.Order != Aromatic {
			continue
		}
		if mate[b.A] == b.B {
			b.Order = Double
		} else {
			b.Order = Single
		}
	}
	return nil
}

// electron donor types of RDKit's aromaticity model
const (
	donNone = iota
	donVacant
	donOne
	donTwo
)

func hasMultiple(m *Mol, i int, ring int) (bool, int) {
	// ring: 1 ring bonds only, 0 non-ring only, -1 any; returns the partner
	for _, b := range m.adj[i] {
		if m.Bonds[b].Order < Double || m.Bonds[b].Order == Aromatic {
			continue
		}
		inR := m.ringInfo().bondInRing[b]
		if ring == -1 || ring == 1 && inR || ring == 0 && !inR {
			return true, m.Bonds[b].Other(i)
		}
	}
	return false, -1
}

// countAtomElec is RDKit's MolOps::countAtomElec on the kekulé form.
func (m *Mol) countAtomElec(i int) int {
	a := &m.Atoms[i]
	dv := defaultValence(a.Z)
	if dv <= 1 {
		return -1
	}
	degree := len(m.adj[i]) + a.TotalH()
	if degree > 3 {
		return -1
	}
	nlp := outerElectrons(a.Z) - dv
	nlp = max(nlp-a.Charge, 0)
	res := (dv - degree) + nlp
	if res > 1 {
		if m.explicitValence(i)-len(m.adj[i]) > 1 {
			res = 1
		}
	}
	return res
}

// moreElectroNegative is RDKit's PeriodicTable::moreElectroNegative.
func moreElectroNegative(z1, z2 int) bool {
	o1, o2 := outerElectrons(z1), outerElectrons(z2)
	return o1 > o2 || o1 == o2 && z1 < z2
}

func (m *Mol) donorType(i int) int {
	a := &m.Atoms[i]
	nelec := m.countAtomElec(i)
	multiple := m.explicitValence(i) != len(m.adj[i])+a.ExplicitH
	switch {
	case nelec < 0:
		return donNone
	case nelec == 0:
		if ok, _ := hasMultiple(m, i, 0); ok {
			return donVacant
		}
		if ok, _ := hasMultiple(m, i, 1); ok {
			return donOne
		}
		return donNone
	case nelec == 1:
		if ok, who := hasMultiple(m, i, 0); ok {
			if moreElectroNegative(m.Atoms[who].Z, a.Z) {
				return donVacant
			}
			return donOne
		}
		if multiple {
			return donOne
		}
		if a.Charge == 1 {
			return donVacant
		}
		return donNone
	default:
		if ok, who := hasMultiple(m, i, 0); ok && moreElectroNegative(m.Atoms[who].Z, a.Z) {
			nelec--
		}
		if nelec%2 == 1 {
			return donOne
		}
		return donTwo
	}
}

func (m *Mol) aromaticCandidate(i int, don int) bool {
	a := &m.Atoms[i]
	if a.Z > 18 && a.Z != 34 && a.Z != 52 || a.Z == 0 {
		return false
	}
	if don == donNone {
		return false
	}
	// atoms above their default valence are shut out
	if dv := defaultValence(a.Z); dv > 0 && a.Z-a.Charge >= 0 && a.Z-a.Charge < len(elements) &&
		m.explicitValence(i)+a.ImplicitH > defaultValence(a.Z-a.Charge) {
		return false
	}
	if m.explicitValence(i)-len(m.adj[i]) > 1 {
		nMult := 0
		for _, b := range m.adj[i] {
			switch m.Bonds[b].Order {
			case Double, Triple:
				nMult++
			case Single, Aromatic:
			default:
				return false
			}
		}
		if nMult > 1 {
			return false
		}
	}
	return true
}

// perceiveAromaticity marks rings and fused ring systems that satisfy the
// 4n+2 rule in RDKit's default model: SSSR rings whose atoms are all
// candidates, tried alone and then in fused combinations.
func (m *Mol) perceiveAromaticity() {
	ri := m.ringInfo()
	n := len(m.Atoms)
	don := make([]int, n)
	cand := make([]bool, n)
	for i := range m.Atoms {
		if !ri.atomInRing[i] {
			continue
		}
		don[i] = m.donorType(i)
		cand[i] = m.aromaticCandidate(i, don[i])
	}
	var crings []int
	for r, atoms := range ri.rings {
		ok := true
		for _, a := range atoms {
			if !cand[a] {
				ok = false
				break
			}
		}
		if ok {
			crings = append(crings, r)
		}
	}
	// fused systems: rings sharing a bond
	shares := func(r1, r2 int) bool {
		if len(ri.ringBonds[r1]) > 24 || len(ri.ringBonds[r2]) > 24 {
			return false
		}
		for _, b1 := range ri.ringBonds[r1] {
			for _, b2 := range ri.ringBonds[r2] {
				if b1 == b2 {
					return true
				}
			}
		}
		return false
	}
	done := make([]bool, len(crings))
	for s := range crings {
		if done[s] {
			continue
		}
		sys := []int{crings[s]}
		done[s] = true
		for q := 0; q < len(sys); q++ {
			for t := range crings {
				if !done[t] && shares(sys[q], crings[t]) {
					done[t] = true
					sys = append(sys, crings[t])
				}
			}
		}
		sort.Ints(sys)
		m.huckelFused(sys, don, shares)
	}
}

func huckel(atoms []int, don []int) bool {
	lo := 0
	for _, a := range atoms {
		switch don[a] {
		case donOne:
			lo++
		case donTwo:
			lo += 2
		}
	}
	if lo >= 6 {
		return (lo-2)%4 == 0
	}
	return lo == 2
}

func (m *Mol) huckelFused(sys []int, don []int, shares func(int, int) bool) {
	ri := m.ringInfo()
	n := len(m.Atoms)
	sysAtoms := map[int]bool{}
	for _, r := range sys {
		for _, a := range ri.rings[r] {
			sysAtoms[a] = true
		}
	}
	doneAtoms := map[int]bool{}
	mark := func(rs []int) {
		cnt := map[int]int{}
		for _, r := range rs {
			for _, a := range ri.rings[r] {
				at := &m.Atoms[a]
				at.Aromatic = true
				doneAtoms[a] = true
				if at.Z != 6 && at.ImplicitH > 0 {
					// RDKit keeps a heteroatom's hydrogens as explicit ones
					at.ExplicitH += at.ImplicitH
					at.ImplicitH = 0
				}
			}
			for _, b := range ri.ringBonds[r] {
				cnt[b]++
			}
		}
		// only the outside bonds of a fused combination become aromatic (RDKit)
		for b, c := range cnt {
			if c == 1 && (m.Bonds[b].Order == Single || m.Bonds[b].Order == Double) {
				m.Bonds[b].Order = Aromatic
			}
		}
	}
	nr := len(sys)
	maxSize := min(nr, 6)
	count := make([]int, n)
	for size := 1; size <= maxSize && len(doneAtoms) < len(sysAtoms); size++ {
		comb := make([]int, size)
		for i := range comb {
			comb[i] = i
		}
		for {
			rs := make([]int, size)
			for i, c := range comb {
				rs[i] = sys[c]
			}
			if size == 1 || connected(rs, shares) {
				// atoms in one or two of the rings count; an atom buried in three
				// (the centre of a peri-fused system) does not
				var union, all []int
				for _, r := range rs {
					for _, a := range ri.rings[r] {
						if count[a] == 0 {
							all = append(all, a)
						}
						count[a]++
					}
				}
				for _, a := range all {
					if count[a] <= 2 {
						union = append(union, a)
					}
					count[a] = 0
				}
				if huckel(union, don) {
					mark(rs)
				}
			}
			// next combination
			i := size - 1
			for i >= 0 && comb[i] == nr-size+i {
				i--
			}
			if i < 0 {
				break
			}
			comb[i]++
			for j := i + 1; j < size; j++ {
				comb[j] = comb[j-1] + 1
			}
		}
	}
}

func connected(rs []int, shares func(int, int) bool) bool {
	seen := []int{rs[0]}
	in := map[int]bool{rs[0]: true}
	for q := 0; q < len(seen); q++ {
		for _, r := range rs {
			if !in[r] && shares(seen[q], r) {
				in[r] = true
				seen = append(seen, r)
			}
		}
	}
	return len(seen) == len(rs)
}
