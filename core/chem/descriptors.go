package chem

// Hybridization codes are RDKit's Atom::HybridizationType values (2022.09,
// which has SP2D between SP3 and SP3D).
type Hybridization int

// Hybridisation states.
const (
	HybUnspecified Hybridization = 0
	HybS           Hybridization = 1
	HybSP          Hybridization = 2
	HybSP2         Hybridization = 3
	HybSP3         Hybridization = 4
	HybSP2D        Hybridization = 5
	HybSP3D        Hybridization = 6
	HybSP3D2       Hybridization = 7
)

// Conjugated returns, per bond, RDKit's conjugation flag (MolOps::setConjugation).
func (m *Mol) Conjugated() []bool {
	conj := make([]bool, len(m.Bonds))
	for k := range m.Bonds {
		conj[k] = m.Bonds[k].Order == Aromatic
	}
	candidate := func(i int) bool {
		a := &m.Atoms[i]
		no := outerElectrons(a.Z)
		return (a.Z <= 10 || no != 5 && no != 6) && m.countAtomElec(i) > 0
	}
	for i := range m.Atoms {
		if !candidate(i) {
			continue
		}
		sbo := len(m.adj[i]) + m.Atoms[i].TotalH()
		if sbo < 2 || sbo > 3 {
			continue
		}
		for _, b1 := range m.adj[i] {
			if valenceContrib(m.Bonds[b1].Order) < 1.5 {
				continue
			}
			for _, b2 := range m.adj[i] {
				if b1 == b2 {
					continue
				}
				j := m.Bonds[b2].Other(i)
				sbo2 := len(m.adj[j]) + m.Atoms[j].TotalH()
				if sbo2 > 3 {
					continue
				}
				if candidate(j) {
					conj[b1], conj[b2] = true, true
				}
			}
		}
	}
	return conj
}

// Hybridizations returns RDKit's hybridisation of every atom (MolOps::setHybridization).
func (m *Mol) Hybridizations() []Hybridization {
	conj := m.Conjugated()
	out := make([]Hybridization, len(m.Atoms))
	for i := range m.Atoms {
		a := &m.Atoms[i]
		if a.Z == 0 {
			continue
		}
		deg := len(m.adj[i]) + a.TotalH()
		norbs := deg
		if a.Z > 1 && a.Z < 89 {
			nouter := outerElectrons(a.Z)
			tv := m.explicitValence(i) + a.ImplicitH
			free := nouter - (tv + a.Charge)
			norbs = deg + free/2
		}
		switch norbs {
		case 0, 1:
			out[i] = HybS
		case 2:
			out[i] = HybSP
		case 3:
			out[i] = HybSP2
		case 4:
			out[i] = HybSP3
			if deg < 4 {
				for _, b := range m.adj[i] {
					if conj[b] {
						out[i] = HybSP2
						break
					}
				}
			}
		case 5:
			out[i] = HybSP3D
		case 6:
			out[i] = HybSP3D2
		}
	}
	return out
}

// MolWt is the average molecular weight with implicit hydrogens (RDKit's
// Descriptors.MolWt); an atom with an isotope counts with that isotope's mass.
func (m *Mol) MolWt() float64 {
	w := 0.0
	for i := range m.Atoms {
		a := &m.Atoms[i]
		w += a.mass() + float64(a.TotalH())*atomicWeight(1)
	}
	return w
}

// NumAromaticRings counts SSSR rings whose bonds are all aromatic.
func (m *Mol) NumAromaticRings() int {
	n := 0
	for _, bs := range m.ringInfo().ringBonds {
		ok := true
		for _, b := range bs {
			if m.Bonds[b].Order != Aromatic {
				ok = false
				break
			}
		}
		if ok {
			n++
		}
	}
	return n
}

// TPSA is Ertl's topological polar surface area from N and O contributions
// (RDKit's CalcTPSA with its defaults: no S or P).
func (m *Mol) TPSA() float64 {
	t := 0.0
	for i := range m.Atoms {
		a := &m.Atoms[i]
		if a.Z != 7 && a.Z != 8 {
			continue
		}
		nH, chg := a.TotalH(), a.Charge
		nbrs, sing, doub, trip, arom := 0, 0, 0, 0, 0
		for _, b := range m.adj[i] {
			if m.Atoms[m.Bonds[b].Other(i)].Z == 1 {
				nH++
				continue
			}
			nbrs++
			switch m.Bonds[b].Order {
			case Aromatic:
				arom++
			case Single:
				sing++
			case Double:
				doub++
			case Triple:
				trip++
			}
		}
		in3 := m.AtomInRingSize(i, 3)
		t += tpsaContrib(a.Z, nbrs, nH, chg, sing, doub, trip, arom, in3)
	}
	return t
}

func tpsaContrib(z, nbrs, nH, chg, sing, doub, trip, arom int, in3 bool) float64 {
	tmp := -1.0
	if z == 7 {
		switch nbrs {
		case 1:
			switch {
			case nH == 0 && trip == 1 && chg == 0:
				tmp = 23.79
			case nH == 1 && doub == 1 && chg == 0:
				tmp = 23.85
			case nH == 2 && sing == 1 && chg == 0:
				tmp = 26.02
			case nH == 2 && doub == 1 && chg == 1:
				tmp = 25.59
			case nH == 3 && sing == 1 && chg == 1:
				tmp = 27.64
			}
		case 2:
			switch {
			case nH == 0 && sing == 1 && doub == 1 && chg == 0:
				tmp = 12.36
			case nH == 0 && trip == 1 && doub == 1 && chg == 0:
				tmp = 13.60
			case nH == 1 && sing == 2 && chg == 0:
				tmp = 12.03
				if in3 {
					tmp = 21.94
				}
			case nH == 0 && trip == 1 && sing == 1 && chg == 1:
				tmp = 4.36
			case nH == 1 && doub == 1 && sing == 1 && chg == 1:
				tmp = 13.97
			case nH == 2 && sing == 2 && chg == 1:
				tmp = 16.61
			case nH == 0 && arom == 2 && chg == 0:
				tmp = 12.89
			case nH == 1 && arom == 2 && chg == 0:
				tmp = 15.79
			case nH == 1 && arom == 2 && chg == 1:
				tmp = 14.14
			}
		case 3:
			switch {
			case nH == 0 && sing == 3 && chg == 0:
				tmp = 3.24
				if in3 {
					tmp = 3.01
				}
			case nH == 0 && sing == 1 && doub == 2 && chg == 0:
				tmp = 11.68
			case nH == 0 && sing == 2 && doub == 1 && chg == 1:
				tmp = 3.01
			case nH == 1 && sing == 3 && chg == 1:
				tmp = 4.44
			case nH == 0 && arom == 3 && chg == 0:
				tmp = 4.41
			case nH == 0 && sing == 1 && arom == 2 && chg == 0:
				tmp = 4.93
			case nH == 0 && doub == 1 && arom == 2 && chg == 0:
				tmp = 8.39
			case nH == 0 && arom == 3 && chg == 1:
				tmp = 4.10
			case nH == 0 && sing == 1 && arom == 2 && chg == 1:
				tmp = 3.88
			}
		case 4:
			if nH == 0 && sing == 4 && chg == 1 {
				tmp = 0
			}
		}
		if tmp < 0 {
			tmp = max(30.5-float64(nbrs)*8.2+float64(nH)*1.5, 0)
		}
		return tmp
	}
	switch nbrs {
	case 1:
		switch {
		case nH == 0 && doub == 1 && chg == 0:
			tmp = 17.07
		case nH == 1 && sing == 1 && chg == 0:
			tmp = 20.23
		case nH == 0 && sing == 1 && chg == -1:
			tmp = 23.06
		}
	case 2:
		switch {
		case nH == 0 && sing == 2 && chg == 0:
			tmp = 9.23
			if in3 {
				tmp = 12.53
			}
		case nH == 0 && arom == 2 && chg == 0:
			tmp = 13.14
		}
	}
	if tmp < 0 {
		tmp = max(28.5-float64(nbrs)*8.6+float64(nH)*1.5, 0)
	}
	return tmp
}

// isotopeMass holds exact masses of the isotopes that commonly appear in
// SMILES; others are approximated by their mass number.
var isotopeMass = map[[2]int]float64{
	{1, 2}: 2.0141018, {1, 3}: 3.0160493, {6, 11}: 11.011433, {6, 13}: 13.003355, {6, 14}: 14.003242,
	{7, 15}: 15.000109, {8, 17}: 16.999132, {8, 18}: 17.999160, {9, 18}: 18.000938, {15, 32}: 31.973907,
	{16, 35}: 34.969032, {17, 35}: 34.968853, {17, 37}: 36.965903, {35, 79}: 78.918338, {35, 81}: 80.916291,
	{53, 123}: 122.905589, {53, 125}: 124.904630, {53, 131}: 130.906124,
}

// mass is the atom's mass as RDKit's Atom::GetMass: the average atomic weight,
// or the isotope's mass when one is given.
func (a *Atom) mass() float64 {
	if a.Isotope == 0 {
		return atomicWeight(a.Z)
	}
	if m, ok := isotopeMass[[2]int{a.Z, a.Isotope}]; ok {
		return m
	}
	return float64(a.Isotope)
}
