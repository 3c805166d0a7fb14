package chem

// NumHDonors is RDKit's CalcNumHBD: [N&!H0&v3, N&!H0&+1&v4, O&H1&+0, S&H1&+0, n&H1&+0].
func (m *Mol) NumHDonors() int {
	n := 0
	for i := range m.Atoms {
		a := &m.Atoms[i]
		h, v := a.TotalH(), m.explicitValence(i)+a.ImplicitH
		switch {
		case a.Z == 7 && !a.Aromatic && h > 0 && (v == 3 || a.Charge == 1 && v == 4):
			n++
		case (a.Z == 8 || a.Z == 16) && !a.Aromatic && h == 1 && a.Charge == 0:
			n++
		case a.Z == 7 && a.Aromatic && h == 1 && a.Charge == 0:
			n++
		}
	}
	return n
}

// doubleTo reports whether atom j has a double bond (optionally not in a ring)
// to an aliphatic O, N, P or S other than atom skip.
func (m *Mol) doubleToONPS(j int, nonRing bool) bool {
	for _, b := range m.adj[j] {
		if m.Bonds[b].Order != Double || nonRing && m.BondInRing(b) {
			continue
		}
		o := &m.Atoms[m.Bonds[b].Other(j)]
		if !o.Aromatic && (o.Z == 8 || o.Z == 7 || o.Z == 15 || o.Z == 16) {
			return true
		}
	}
	return false
}

// NumHAcceptors is RDKit's CalcNumHBA:
// [$([O,S;H1;v2]-[!$(*=[O,N,P,S])]), $([O,S;H0;v2]), $([O,S;-]),
// $([N;v3;!$(N-*=!@[O,N,P,S])]), $([nH0,o,s;+0])].
func (m *Mol) NumHAcceptors() int {
	n := 0
	for i := range m.Atoms {
		a := &m.Atoms[i]
		h, v := a.TotalH(), m.explicitValence(i)+a.ImplicitH
		os := (a.Z == 8 || a.Z == 16) && !a.Aromatic
		switch {
		case os && h == 1 && v == 2:
			for _, b := range m.adj[i] {
				if m.Bonds[b].Order == Single && !m.doubleToONPS(m.Bonds[b].Other(i), false) {
					n++
					break
				}
			}
		case os && h == 0 && v == 2, os && a.Charge < 0:
			n++
		case a.Z == 7 && !a.Aromatic && v == 3:
			ok := true
			for _, b := range m.adj[i] {
				if m.Bonds[b].Order == Single && m.doubleToONPS(m.Bonds[b].Other(i), true) {
					ok = false
					break
				}
			}
			if ok {
				n++
			}
		case a.Aromatic && a.Charge == 0 && (a.Z == 7 && h == 0 || a.Z == 8 || a.Z == 16):
			n++
		}
	}
	return n
}

// NumRotatableBonds is RDKit's CalcNumRotatableBonds with its default (strict)
// definition: single or aromatic non-ring bonds between atoms that are not
// terminal, not triple-bonded, not CX3/C(CH3)3, and not both amide-like.
func (m *Mol) NumRotatableBonds() int {
	deg := func(i int) int { return len(m.adj[i]) }
	aliph := func(i, z int) bool { return m.Atoms[i].Z == z && !m.Atoms[i].Aromatic }
	hasTriple := func(i int) bool {
		for _, b := range m.adj[i] {
			if m.Bonds[b].Order == Triple {
				return true
			}
		}
		return false
	}
	nbrsCount := func(i int, pred func(j int) bool) int {
		c := 0
		for _, b := range m.adj[i] {
			if pred(m.Bonds[b].Other(i)) {
				c++
			}
		}
		return c
	}
	base := func(i int) bool {
		if deg(i) == 1 || hasTriple(i) {
			return false
		}
		if aliph(i, 6) {
			for _, x := range []int{9, 17, 35} {
				if nbrsCount(i, func(j int) bool { return aliph(j, x) }) >= 3 {
					return false
				}
			}
			if nbrsCount(i, func(j int) bool { return aliph(j, 6) && m.Atoms[j].TotalH() == 3 }) >= 3 {
				return false
			}
		}
		return true
	}
	// [CD3] with =X where X matches pred
	cd3Double := func(i int, pred func(j int) bool) bool {
		if !aliph(i, 6) || deg(i) != 3 {
			return false
		}
		for _, b := range m.adj[i] {
			if m.Bonds[b].Order == Double && pred(m.Bonds[b].Other(i)) {
				return true
			}
		}
		return false
	}
	nos := func(j int) bool { return aliph(j, 7) || aliph(j, 8) || aliph(j, 16) }
	nPlus := func(j int) bool { return aliph(j, 7) && m.Atoms[j].Charge == 1 }
	hetero := func(j int) bool { // [#7,O,S!D1]
		return m.Atoms[j].Z == 7 || aliph(j, 8) || aliph(j, 16) && deg(j) != 1
	}
	n7notD1 := func(j int) bool { return m.Atoms[j].Z == 7 && deg(j) != 1 }
	nonRingSingleNbr := func(i int, pred func(j int) bool) bool {
		for _, b := range m.adj[i] {
			if m.Bonds[b].Order == Single && !m.BondInRing(b) && pred(m.Bonds[b].Other(i)) {
				return true
			}
		}
		return false
	}
	amide := func(i int) bool {
		if cd3Double(i, nos) && nonRingSingleNbr(i, hetero) {
			return true
		}
		if hetero(i) && nonRingSingleNbr(i, func(j int) bool { return cd3Double(j, nos) }) {
			return true
		}
		if cd3Double(i, nPlus) && nonRingSingleNbr(i, n7notD1) {
			return true
		}
		if n7notD1(i) && nonRingSingleNbr(i, func(j int) bool { return cd3Double(j, nPlus) }) {
			return true
		}
		return false
	}
	n := 0
	for k, b := range m.Bonds {
		if b.Order != Single && b.Order != Aromatic || m.BondInRing(k) {
			continue
		}
		if base(b.A) && base(b.B) && (!amide(b.A) || !amide(b.B)) {
			n++
		}
	}
	return n
}
