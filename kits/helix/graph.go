package helix

import (
	"fmt"
	"math"
	"slices"

	"paddle/core/chem"
	"paddle/core/tensor"
)

// Molecular graphs in PaddleHelix's style: every atom and bond feature is
// a category id (CompoundKit's vocabularies: the value's index in the list,
// the last entry "misc" for anything else, plus one so that 0 stays free),
// embedded and summed by the models. A batch is the disjoint union of its
// molecules: atoms and directed edges (both directions of each bond) are
// concatenated, edge ends renumbered, and each atom records its molecule.

// featureVocab is one categorical feature: its values and how an atom or
// bond maps onto them.
type featureVocab struct {
	size int // number of ids including 0 (reserved) and misc
}

// atomFeatures are the atom feature names the models may use, in
// PaddleHelix's naming, with their vocabulary sizes.
var atomFeatures = map[string]featureVocab{
	"atomic_num":      {1 + 119}, // 1..118 and misc
	"formal_charge":   {1 + 17},  // -5..10 and misc
	"degree":          {1 + 12},  // 0..10 and misc
	"chiral_tag":      {1 + 4},   // unspecified, CW, CCW, other
	"total_numHs":     {1 + 10},  // 0..8 and misc
	"is_aromatic":     {1 + 2},
	"hybridization":   {1 + 9}, // unspecified, S, SP, SP2, SP3, SP3D, SP3D2, other, misc
	"atom_is_in_ring": {1 + 2},
}

// bondFeatures are the bond feature names.
var bondFeatures = map[string]featureVocab{
	"bond_dir":      {1 + 3}, // none, end-up-right (/), end-down-right (\)
	"bond_type":     {1 + 5}, // single, double, triple, aromatic, misc
	"is_in_ring":    {1 + 2},
	"is_conjugated": {1 + 2},
}

// DefaultAtomNames and DefaultBondNames are PaddleHelix's GIN/GeoGNN
// feature lists (is_conjugated added).
var (
	DefaultAtomNames = []string{"atomic_num", "formal_charge", "degree", "chiral_tag", "total_numHs", "is_aromatic", "hybridization"}
	DefaultBondNames = []string{"bond_dir", "bond_type", "is_in_ring", "is_conjugated"}
)

// clampID maps v in [lo, hi] to 1 + v - lo, anything else to misc.
func clampID(v, lo, hi int) int64 {
	if v < lo || v > hi {
		return int64(hi - lo + 2)
	}
	return int64(v - lo + 1)
}

func boolID(b bool) int64 {
	if b {
		return 2
	}
	return 1
}

// Featurizer turns molecules into graphs with the configured features.
type Featurizer struct {
	AtomNames, BondNames []string
	atomOff, bondOff     []int64 // offset of each feature in the shared embedding table
	AtomVocab, BondVocab int     // total table sizes
}

// NewFeaturizer checks the feature names and lays out their tables.
func NewFeaturizer(atomNames, bondNames []string) (*Featurizer, error) {
	if len(atomNames) == 0 {
		atomNames = DefaultAtomNames
	}
	if len(bondNames) == 0 {
		bondNames = DefaultBondNames
	}
	f := &Featurizer{AtomNames: atomNames, BondNames: bondNames}
	for _, n := range atomNames {
		v, ok := atomFeatures[n]
		if !ok {
			return nil, fmt.Errorf("atom_names: unknown feature %q (known: %v)", n, sortedKeys(atomFeatures))
		}
		f.atomOff = append(f.atomOff, int64(f.AtomVocab))
		f.AtomVocab += v.size
	}
	for _, n := range bondNames {
		v, ok := bondFeatures[n]
		if !ok {
			return nil, fmt.Errorf("bond_names: unknown feature %q (known: %v)", n, sortedKeys(bondFeatures))
		}
		f.bondOff = append(f.bondOff, int64(f.BondVocab))
		f.BondVocab += v.size
	}
	return f, nil
}

func sortedKeys(m map[string]featureVocab) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// MolGraph is one molecule's graph: per-atom and per-directed-edge feature
// ids (already offset into the shared tables) and the edge ends.
type MolGraph struct {
	N, E     int
	Atom     []int64 // (N, len(AtomNames))
	Bond     []int64 // (E, len(BondNames))
	Src, Dst []int64 // (E)
	Degree   []int   // (N)
}

// Graph featurises m.
func (f *Featurizer) Graph(m *chem.Mol) *MolGraph {
	hyb := m.Hybridizations()
	conj := m.Conjugated()
	g := &MolGraph{N: len(m.Atoms), E: 2 * len(m.Bonds), Degree: make([]int, len(m.Atoms))}
	for i := range m.Atoms {
		a := &m.Atoms[i]
		g.Degree[i] = m.Degree(i)
		for k, n := range f.AtomNames {
			var id int64
			switch n {
			case "atomic_num":
				id = clampID(a.Z, 1, 118)
			case "formal_charge":
				id = clampID(a.Charge, -5, 10)
			case "degree":
				id = clampID(m.Degree(i), 0, 10)
			case "chiral_tag":
				switch {
				case a.ChiralOther != "":
					id = 4
				case a.Chiral == chem.ChiralCW:
					id = 2
				case a.Chiral == chem.ChiralCCW:
					id = 3
				default:
					id = 1
				}
			case "total_numHs":
				id = clampID(a.TotalH(), 0, 8)
			case "is_aromatic":
				id = boolID(a.Aromatic)
			case "hybridization":
				// RDKit codes: 0 unspecified, 1 S, 2 SP, 3 SP2, 4 SP3, 5 SP2D, 6 SP3D, 7 SP3D2, 8 other
				switch h := int(hyb[i]); {
				case h <= 4:
					id = int64(h + 1)
				case h == 6 || h == 7:
					id = int64(h)
				case h == 8:
					id = 8
				default:
					id = 9
				}
			case "atom_is_in_ring":
				id = boolID(m.AtomInRing(i))
			}
			g.Atom = append(g.Atom, f.atomOff[k]+id)
		}
	}
	for k, b := range m.Bonds {
		ids := make([]int64, len(f.BondNames))
		for j, n := range f.BondNames {
			var id int64
			switch n {
			case "bond_dir":
				switch b.Dir {
				case '/':
					id = 2
				case '\\':
					id = 3
				default:
					id = 1
				}
			case "bond_type":
				switch b.Order {
				case chem.Single:
					id = 1
				case chem.Double:
					id = 2
				case chem.Triple:
					id = 3
				case chem.Aromatic:
					id = 4
				default:
					id = 5
				}
			case "is_in_ring":
				id = boolID(m.BondInRing(k))
			case "is_conjugated":
				id = boolID(conj[k])
			}
			ids[j] = f.bondOff[j] + id
		}
		g.Bond = append(g.Bond, ids...)
		g.Bond = append(g.Bond, ids...)
		g.Src = append(g.Src, int64(b.A), int64(b.B))
		g.Dst = append(g.Dst, int64(b.B), int64(b.A))
	}
	return g
}

// GraphBatch is the disjoint union of a batch's molecules as tensors.
type GraphBatch struct {
	B, N, E  int
	Atom     *tensor.Tensor // (N, Fa) int64
	Bond     *tensor.Tensor // (E, Fb) int64
	Src, Dst *tensor.Tensor // (E) int64
	GraphID  *tensor.Tensor // (N) int64: the molecule of each atom
	EdgeW    *tensor.Tensor // (E, 1) float32: GCN's 1/sqrt((d_src+1)(d_dst+1))
	SelfW    *tensor.Tensor // (N, 1) float32: GCN's 1/(d+1)
	// The dense form used by exported models (ONNX has no segment ops):
	Scatter *tensor.Tensor // (N, E) float32: Scatter[i, e] = 1 when edge e ends at atom i
	Pool    *tensor.Tensor // (B, N) float32: Pool[b, i] = 1 when atom i is in molecule b
}

// Batch builds the disjoint union of gs; dense adds the Scatter and Pool
// matrices.
func (f *Featurizer) Batch(gs []*MolGraph, dense bool) *GraphBatch {
	fa, fb := len(f.AtomNames), len(f.BondNames)
	b := &GraphBatch{B: len(gs)}
	for _, g := range gs {
		b.N += g.N
		b.E += g.E
	}
	atom := make([]int64, 0, b.N*fa)
	bond := make([]int64, 0, b.E*fb)
	src, dst := make([]int64, 0, b.E), make([]int64, 0, b.E)
	gid := make([]int64, 0, b.N)
	ew, sw := make([]float32, 0, b.E), make([]float32, 0, b.N)
	off := 0
	for k, g := range gs {
		atom = append(atom, g.Atom...)
		bond = append(bond, g.Bond...)
		for e := range g.E {
			s, d := g.Src[e], g.Dst[e]
			src, dst = append(src, s+int64(off)), append(dst, d+int64(off))
			ew = append(ew, float32(1/math.Sqrt(float64((g.Degree[s]+1)*(g.Degree[d]+1)))))
		}
		for i := range g.N {
			gid = append(gid, int64(k))
			sw = append(sw, float32(1/float64(g.Degree[i]+1)))
		}
		off += g.N
	}
	b.Atom = tensor.FromSlice(atom, b.N, fa)
	b.Bond = tensor.FromSlice(bond, b.E, fb)
	b.Src, b.Dst = tensor.FromSlice(src, b.E), tensor.FromSlice(dst, b.E)
	b.GraphID = tensor.FromSlice(gid, b.N)
	b.EdgeW, b.SelfW = tensor.FromSlice(ew, b.E, 1), tensor.FromSlice(sw, b.N, 1)
	if dense {
		sc := make([]float32, b.N*b.E)
		for e, d := range dst {
			sc[int(d)*b.E+e] = 1
		}
		pool := make([]float32, b.B*b.N)
		for i, g := range gid {
			pool[int(g)*b.N+i] = 1
		}
		b.Scatter, b.Pool = tensor.FromSlice(sc, b.N, b.E), tensor.FromSlice(pool, b.B, b.N)
	}
	return b
}
