// Package chem is a small cheminformatics core in pure Go: a SMILES parser and
// canonical writer, RDKit-compatible sanitisation (implicit hydrogens, nitro
// clean-up, kekulisation, aromaticity perception in RDKit's default model),
// ring perception, descriptors (MolWt, TPSA, Crippen logP, H-bond
// donors/acceptors, rotatable bonds, ring counts), Morgan/ECFP fingerprints and Bemis–Murcko
// scaffolds. The numbers are checked against RDKit on the molecules that
// Debian's rdkit-data ships (see chem_golden_test.go and docs/helix.md).
//
// Where things are:
//
//	mol.go          Atom, Bond, Mol
//	parse.go        SMILES tokenizer/parser (ParseError carries the column)
//	sanitize.go     implicit H, clean-up, kekulisation, valence checks
//	rings.go        ring membership and the smallest set of smallest rings
//	aromatic.go     aromaticity perception (RDKit default model)
//	write.go        canonical ranking and SMILES writer
//	descriptors.go  MolWt, TPSA, rings, hybridisation, conjugation
//	lipinski.go     H-bond donors/acceptors, rotatable bonds
//	crippen.go      Wildman–Crippen logP (crippen_table.go: RDKit's parameters, generated)
//	smarts.go       the SMARTS subset the Crippen table needs
//	morgan.go       Morgan fingerprints (RDKit's algorithm)
//	scaffold.go     Bemis–Murcko scaffolds
package chem

// BondOrder is a bond's type. The values are RDKit's Bond::BondType codes,
// which the Morgan fingerprint hashes.
type BondOrder int

// Bond orders.
const (
	Single    BondOrder = 1
	Double    BondOrder = 2
	Triple    BondOrder = 3
	Quadruple BondOrder = 4
	Aromatic  BondOrder = 12
)

// Chirality is a tetrahedral tag as written in the SMILES (@ or @@), relative
// to the atom's neighbour order in that string.
type Chirality int

// Chirality tags.
const (
	ChiralNone Chirality = iota
	ChiralCCW            // @
	ChiralCW             // @@
)

// Atom is one heavy atom (or a kept explicit hydrogen).
type Atom struct {
	Z         int       // atomic number; 0 for '*'
	Isotope   int       // mass number; 0 when not given
	Charge    int       // formal charge
	Aromatic  bool      // aromatic after perception (RDKit's default model)
	Bracket   bool      // written in brackets: no implicit hydrogens are added
	ExplicitH int       // hydrogens written in brackets or removed [H] neighbours
	ImplicitH int       // hydrogens added by valence rules
	Chiral    Chirality // tag as parsed (or as written by the canonical writer)
	Map       int       // atom-map number (:n in brackets)

	// ChiralOther holds an extended tag (@TH1, @SP2, @OH12, ...) verbatim; it is kept, not interpreted.
	ChiralOther string

	order []int // neighbour atoms in written order for chirality; -1 stands for the H
}

// TotalH is the number of hydrogens on the atom (explicit + implicit).
func (a *Atom) TotalH() int { return a.ExplicitH + a.ImplicitH }

// Symbol is the element symbol ("*" for a dummy atom).
func (a *Atom) Symbol() string { return elementSymbol(a.Z) }

// Bond joins atoms A and B.
type Bond struct {
	A, B  int
	Order BondOrder
	Dir   byte // '/' or '\\' as written from A towards B; 0 when none
}

// Other returns the bond's atom that is not i.
func (b *Bond) Other(i int) int {
	if b.A == i {
		return b.B
	}
	return b.A
}

// Mol is a molecular graph. Build one with Parse; the zero Mol is empty.
type Mol struct {
	Atoms []Atom
	Bonds []Bond

	adj    [][]int // bond indices per atom
	rings  *ringInfo
	stereo map[int]bondStereo // double-bond configurations by bond index
}

// Neighbors returns the indices of the bonds of atom i.
func (m *Mol) Neighbors(i int) []int { return m.adj[i] }

// Degree is the number of explicit (graph) neighbours of atom i.
func (m *Mol) Degree(i int) int { return len(m.adj[i]) }

// NumHeavyAtoms counts atoms heavier than hydrogen (RDKit's GetNumHeavyAtoms; dummies are not counted).
func (m *Mol) NumHeavyAtoms() int {
	n := 0
	for i := range m.Atoms {
		if m.Atoms[i].Z > 1 {
			n++
		}
	}
	return n
}

// BondBetween returns the index of the bond joining atoms i and j, or -1.
func (m *Mol) BondBetween(i, j int) int {
	for _, b := range m.adj[i] {
		if m.Bonds[b].Other(i) == j {
			return b
		}
	}
	return -1
}

func (m *Mol) addBond(a, b int, o BondOrder, dir byte) int {
	m.Bonds = append(m.Bonds, Bond{A: a, B: b, Order: o, Dir: dir})
	k := len(m.Bonds) - 1
	m.adj[a] = append(m.adj[a], k)
	m.adj[b] = append(m.adj[b], k)
	return k
}

// rebuild recomputes the adjacency lists and drops cached ring data.
func (m *Mol) rebuild() {
	m.adj = make([][]int, len(m.Atoms))
	for k, b := range m.Bonds {
		m.adj[b.A] = append(m.adj[b.A], k)
		m.adj[b.B] = append(m.adj[b.B], k)
	}
	m.rings = nil
	m.stereo = nil
}

// valenceContrib is a bond's contribution to an atom's valence (aromatic: 1.5).
func valenceContrib(o BondOrder) float64 {
	if o == Aromatic {
		return 1.5
	}
	return float64(o)
}

// element is one row of RDKit's periodic table.
type element struct {
	symbol   string
	weight   float64
	defVal   int
	valences []int
	outer    int
}

func elementSymbol(z int) string {
	if z < 0 || z >= len(elements) {
		return "?"
	}
	return elements[z].symbol
}

func defaultValence(z int) int   { return elements[z].defVal }
func outerElectrons(z int) int   { return elements[z].outer }
func valenceList(z int) []int    { return elements[z].valences }
func atomicWeight(z int) float64 { return elements[z].weight }

// isEarlyAtom is RDKit's test for elements whose charge adjusts valence the other way (groups 1, 2, 13 and H).
func isEarlyAtom(z int) bool {
	switch z {
	case 1, 3, 4, 5, 11, 12, 13, 19, 20, 31, 37, 38, 49, 55, 56, 81, 87, 88:
		return true
	}
	return false
}
