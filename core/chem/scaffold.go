package chem

// Scaffold returns the Bemis–Murcko framework as RDKit's
// MurckoScaffold.GetScaffoldForMol builds it: ring atoms and the linkers
// between rings are kept, side chains removed, except atoms double-bonded to
// a kept atom. Aromatic heteroatoms that lose a substituent get one explicit
// H; other bracket atoms that lose one get implicit hydrogens again. A
// molecule without rings has an empty scaffold.
func (m *Mol) Scaffold() *Mol {
	n := len(m.Atoms)
	keep := make([]bool, n)
	ri := m.ringInfo()
	copy(keep, ri.atomInRing)
	// linkers: non-ring atoms on a path between two ring atoms, i.e. what
	// survives pruning terminal non-ring atoms repeatedly
	deg := make([]int, n)
	alive := make([]bool, n)
	for i := range m.Atoms {
		deg[i] = len(m.adj[i])
		alive[i] = true
	}
	var queue []int
	for i := range m.Atoms {
		if !keep[i] && deg[i] <= 1 {
			queue = append(queue, i)
		}
	}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		if !alive[v] {
			continue
		}
		alive[v] = false
		for _, b := range m.adj[v] {
			w := m.Bonds[b].Other(v)
			if alive[w] {
				deg[w]--
				if !keep[w] && deg[w] <= 1 {
					queue = append(queue, w)
				}
			}
		}
	}
	for i := range m.Atoms {
		if alive[i] {
			keep[i] = true
		}
	}
	hasRing := false
	for i := range keep {
		hasRing = hasRing || ri.atomInRing[i]
	}
	out := &Mol{Atoms: append([]Atom(nil), m.Atoms...), Bonds: append([]Bond(nil), m.Bonds...)}
	out.rebuild()
	drop := make([]bool, n)
	if !hasRing {
		for i := range drop {
			drop[i] = true
		}
		out.deleteAtoms(drop)
		return out
	}
	for i := n - 1; i >= 0; i-- {
		if keep[i] {
			continue
		}
		remove := true
		for _, b := range out.adj[i] {
			j := out.Bonds[b].Other(i)
			if !keep[j] || drop[j] {
				continue
			}
			nb := &out.Atoms[j]
			switch {
			case out.Bonds[b].Order == Double:
				remove = false
			case nb.Aromatic && nb.Z != 6:
				nb.ExplicitH = 1
			case nb.Bracket || nb.Chiral != ChiralNone:
				nb.Bracket = false
				nb.ExplicitH = 0
				nb.Chiral = ChiralNone
			}
			if !remove {
				break
			}
		}
		if remove {
			drop[i] = true
		}
	}
	out.deleteAtoms(drop)
	for i := range out.Atoms {
		out.Atoms[i].ImplicitH, _ = out.implicitH(i, false)
		out.Atoms[i].order = nil
		out.Atoms[i].Chiral = ChiralNone
	}
	return out
}
