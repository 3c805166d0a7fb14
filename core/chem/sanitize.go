package chem

import (
	"fmt"
	"math"
)

// Parse reads a SMILES string and sanitises it as RDKit's MolFromSmiles does:
// explicit [H] atoms folded into their neighbours, nitro and azide groups
// charge-separated, implicit hydrogens from valence rules, aromatic input
// kekulised, valences checked, aromaticity perceived (RDKit's default model).
// Errors are *ParseError values that name the column of a syntax error.
func Parse(s string) (*Mol, error) {
	m, explicit, err := parseRaw(s)
	if err != nil {
		return nil, err
	}
	if err := m.sanitize(s, explicit); err != nil {
		return nil, err
	}
	return m, nil
}

func parseRaw(s string) (*Mol, []bool, error) {
	p := &parser{s: s, m: &Mol{}, rings: map[int]ringOpen{}}
	if err := p.parse(); err != nil {
		return nil, nil, err
	}
	return p.m, p.explicit, nil
}

func (m *Mol) sanitize(s string, explicit []bool) error {
	chemErr := func(format string, a ...any) error {
		return &ParseError{SMILES: s, Msg: fmt.Sprintf(format, a...)}
	}
	ri := m.ringInfo()
	// unspecified bonds between aromatic atoms outside rings are single (RDKit)
	for k := range m.Bonds {
		if m.Bonds[k].Order == Aromatic && !explicit[k] && !ri.bondInRing[k] {
			m.Bonds[k].Order = Single
		}
	}
	for i := range m.Atoms {
		if m.Atoms[i].Aromatic && !ri.atomInRing[i] {
			return chemErr("non-ring atom %d marked aromatic", i)
		}
	}
	m.cleanUp()
	for i := range m.Atoms {
		h, err := m.implicitH(i, true)
		if err != nil {
			return chemErr("%v", err)
		}
		m.Atoms[i].ImplicitH = h
	}
	if err := m.kekulize(); err != nil {
		return chemErr("%v", err)
	}
	for i := range m.Atoms {
		m.Atoms[i].Aromatic = false
		if _, err := m.implicitH(i, true); err != nil {
			return chemErr("%v", err)
		}
	}
	m.perceiveAromaticity()
	m.removeHs()
	m.perceiveBondStereo()
	return nil
}

// explicitValence is RDKit's Atom::calcExplicitValence: bond orders (aromatic
// 1.5) plus explicit hydrogens, with its rounding rule for aromatic atoms.
func (m *Mol) explicitValence(i int) int {
	a := &m.Atoms[i]
	accum := float64(a.ExplicitH)
	for _, b := range m.adj[i] {
		accum += valenceContrib(m.Bonds[b].Order)
	}
	if a.Z == 0 {
		return int(math.Round(accum + 0.1))
	}
	chg := chargeAdjust(a)
	dv := defaultValence(a.Z)
	if a.Aromatic && accum > float64(dv+chg) {
		pval := dv + chg
		for _, v := range valenceList(a.Z) {
			if v == -1 {
				break
			}
			if float64(v+chg) > accum {
				break
			}
			pval = v + chg
		}
		if accum-float64(pval) <= 1.5 {
			accum = float64(pval)
		}
	}
	return int(math.Round(accum + 0.1))
}

// chargeAdjust is the charge as RDKit adds it to allowed valences (negated
// for early elements; a positive charge on carbon lowers its valence).
func chargeAdjust(a *Atom) int {
	chg := a.Charge
	if isEarlyAtom(a.Z) {
		chg = -chg
	}
	if a.Z == 6 && chg > 0 {
		chg = -chg
	}
	return chg
}

// implicitH is RDKit's Atom::calcImplicitValence; with strict it also
// reports a valence above the element's maximum.
func (m *Mol) implicitH(i int, strict bool) (int, error) {
	a := &m.Atoms[i]
	if a.Z == 0 {
		return 0, nil
	}
	ev := m.explicitValence(i)
	if strict {
		vl := valenceList(a.Z)
		if maxV := vl[len(vl)-1]; maxV > 0 {
			eff := ev + a.Charge
			if outerElectrons(a.Z) >= 4 {
				eff = ev - a.Charge
			}
			if eff > maxV {
				return 0, fmt.Errorf("explicit valence for atom %d %s, %d, is greater than permitted", i, a.Symbol(), ev)
			}
		}
	}
	if a.Bracket {
		return 0, nil
	}
	chg := chargeAdjust(a)
	dv := defaultValence(a.Z)
	if a.Aromatic {
		if ev <= dv+chg {
			return dv + chg - ev, nil
		}
		return 0, nil
	}
	for _, v := range valenceList(a.Z) {
		if v < 0 {
			break
		}
		if ev <= v+chg {
			return v + chg - ev, nil
		}
	}
	return 0, nil
}

// cleanUp charge-separates nitro-like N(=O)=O, azide N=N#N and halogen
// oxo-acids X(=O)(=O)(=O)O as RDKit's MolOps::cleanUp does.
func (m *Mol) cleanUp() {
	for i := range m.Atoms {
		a := &m.Atoms[i]
		if (a.Z == 17 || a.Z == 35 || a.Z == 53) && a.Charge == 0 && len(m.adj[i]) == 4 && m.explicitValence(i) == 7 {
			allO := true
			for _, b := range m.adj[i] {
				allO = allO && m.Atoms[m.Bonds[b].Other(i)].Z == 8
			}
			if allO {
				for _, b := range m.adj[i] {
					bd := &m.Bonds[b]
					if o := &m.Atoms[bd.Other(i)]; bd.Order == Double && o.Charge == 0 {
						bd.Order = Single
						o.Charge = -1
						a.Charge++
					}
				}
			}
			continue
		}
		if a.Z != 7 || a.Charge != 0 || a.Aromatic || m.explicitValence(i) != 5 {
			continue
		}
		for _, b := range m.adj[i] {
			bd := &m.Bonds[b]
			o := &m.Atoms[bd.Other(i)]
			if bd.Order == Double && o.Z == 8 && o.Charge == 0 {
				bd.Order = Single
				a.Charge, o.Charge = 1, -1
				break
			}
			if bd.Order == Triple && o.Z == 7 && o.Charge == 0 {
				bd.Order = Double
				a.Charge, o.Charge = 1, -1
				break
			}
		}
	}
}

// removeHs folds plain explicit [H] atoms with one heavy neighbour into that
// neighbour's hydrogen count, as RDKit's RemoveHs after parsing.
func (m *Mol) removeHs() {
	drop := make([]bool, len(m.Atoms))
	any := false
	for i := range m.Atoms {
		a := &m.Atoms[i]
		if a.Z != 1 || a.Isotope != 0 || a.Charge != 0 || a.Map != 0 || len(m.adj[i]) != 1 {
			continue
		}
		b := &m.Bonds[m.adj[i][0]]
		j := b.Other(i)
		if m.Atoms[j].Z <= 1 || b.Order != Single {
			continue
		}
		drop[i], any = true, true
		m.Atoms[j].ExplicitH++
		for k, o := range m.Atoms[j].order {
			if o == i {
				m.Atoms[j].order[k] = -1
			}
		}
	}
	if any {
		m.deleteAtoms(drop)
	}
}

// deleteAtoms removes the marked atoms and their bonds, renumbering the rest.
func (m *Mol) deleteAtoms(drop []bool) {
	newIdx := make([]int, len(m.Atoms))
	var atoms []Atom
	for i := range m.Atoms {
		if drop[i] {
			newIdx[i] = -1
			continue
		}
		newIdx[i] = len(atoms)
		atoms = append(atoms, m.Atoms[i])
	}
	var bonds []Bond
	for _, b := range m.Bonds {
		if drop[b.A] || drop[b.B] {
			continue
		}
		b.A, b.B = newIdx[b.A], newIdx[b.B]
		bonds = append(bonds, b)
	}
	for i := range atoms {
		var order []int
		for _, o := range atoms[i].order {
			switch {
			case o < 0:
				order = append(order, o)
			case newIdx[o] >= 0:
				order = append(order, newIdx[o])
			}
		}
		atoms[i].order = order
	}
	m.Atoms, m.Bonds = atoms, bonds
	m.rebuild()
}
