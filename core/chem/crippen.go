package chem

import "sync"

type crippenType struct {
	label  string
	smarts string
	logP   float64
}

var (
	crippenOnce     sync.Once
	crippenPatterns []*pattern
)

// LogP is the Wildman–Crippen logP as RDKit's Crippen.MolLogP computes it:
// hydrogens made explicit, each atom typed by the first matching pattern of
// RDKit's table (crippen_table.go), contributions summed.
func (m *Mol) LogP() float64 {
	crippenOnce.Do(func() {
		for _, t := range crippenTypes {
			p, err := compileSMARTS(t.smarts)
			if err != nil {
				panic("chem: crippen table: " + err.Error()) // a bad generated table is a programmer error
			}
			crippenPatterns = append(crippenPatterns, p)
		}
	})
	h, q := m.withHydrogens()
	total := 0.0
	used := make([]bool, len(h.Atoms))
	for i := range h.Atoms {
		for k, p := range crippenPatterns {
			if p.matchAt(h, q, i, used) {
				total += crippenTypes[k].logP
				break
			}
		}
	}
	return total
}

// withHydrogens returns a copy with every hydrogen as an atom, and the query view of its atoms.
func (m *Mol) withHydrogens() (*Mol, []qatom) {
	h := &Mol{Atoms: append([]Atom(nil), m.Atoms...), Bonds: append([]Bond(nil), m.Bonds...)}
	for i := range m.Atoms {
		for range m.Atoms[i].TotalH() {
			h.Atoms = append(h.Atoms, Atom{Z: 1})
			h.Bonds = append(h.Bonds, Bond{A: i, B: len(h.Atoms) - 1, Order: Single})
		}
	}
	h.rebuild()
	q := make([]qatom, len(h.Atoms))
	for i := range h.Atoms {
		a := &h.Atoms[i]
		nh := 0
		for _, b := range h.adj[i] {
			if h.Atoms[h.Bonds[b].Other(i)].Z == 1 {
				nh++
			}
		}
		if i >= len(m.Atoms) {
			nh = 0
		}
		q[i] = qatom{z: a.Z, charge: a.Charge, h: nh, x: len(h.adj[i]), d: len(h.adj[i]), arom: a.Aromatic}
	}
	return h, q
}
