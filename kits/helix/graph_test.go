package helix

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"paddle/core/ag"
	"paddle/core/chem"
)

func mustGraph(t *testing.T, f *Featurizer, s string) *MolGraph {
	t.Helper()
	m, err := chem.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return f.Graph(m)
}

// TestFeaturesByHand checks the PaddleHelix-style ids of acetate and phenol.
func TestFeaturesByHand(t *testing.T) {
	f, err := NewFeaturizer([]string{"atomic_num", "formal_charge", "degree", "total_numHs", "is_aromatic", "hybridization"},
		[]string{"bond_type", "is_in_ring", "is_conjugated"})
	if err != nil {
		t.Fatal(err)
	}
	// table offsets: atomic_num 0 (120 ids), formal_charge 120 (18), degree 138 (13), total_numHs 151 (11),
	// is_aromatic 162 (3), hybridization 165 (10)
	g := mustGraph(t, f, "CC(=O)[O-]")
	// atom 3: O, charge -1 (id 5 = -1 - (-5) + 1), degree 1, 0 H, not aromatic, SP2 (id 4) — RDKit calls
	// the carboxylate O⁻ SP2 (conjugated)
	want := []int64{8, 120 + 5, 138 + 2, 151 + 1, 162 + 1, 165 + 4}
	if got := g.Atom[3*6 : 4*6]; !slices.Equal(got, want) {
		t.Errorf("O-: %v, want %v", got, want)
	}
	// atom 0: C, charge 0, degree 1, 3 H, SP3
	if got, want := g.Atom[0:6], []int64{6, 120 + 6, 138 + 2, 151 + 4, 162 + 1, 165 + 5}; !slices.Equal(got, want) {
		t.Errorf("CH3: %v, want %v", got, want)
	}
	// bonds: offsets bond_type 0 (6), is_in_ring 6 (3), is_conjugated 9 (3); C=O is double, conjugated
	if got, want := g.Bond[2*3:3*3], []int64{2, 6 + 1, 9 + 2}; !slices.Equal(got, want) {
		t.Errorf("C=O: %v, want %v", got, want)
	}
	if g.E != 6 || !slices.Equal(g.Src[:2], []int64{0, 1}) || !slices.Equal(g.Dst[:2], []int64{1, 0}) {
		t.Errorf("edges: E %d src %v dst %v", g.E, g.Src, g.Dst)
	}
	p := mustGraph(t, f, "c1ccccc1O")
	if got, want := p.Atom[0:6], []int64{6, 126, 138 + 3, 151 + 2, 162 + 2, 165 + 4}; !slices.Equal(got, want) {
		t.Errorf("aromatic CH: %v, want %v", got, want)
	}
	if got, want := p.Bond[0:3], []int64{4, 6 + 2, 9 + 2}; !slices.Equal(got, want) {
		t.Errorf("aromatic bond: %v, want %v", got, want)
	}
	if _, err := NewFeaturizer([]string{"mass"}, nil); err == nil {
		t.Error("unknown feature: want an error")
	}
}

// TestBatchIsDisjointUnion checks the renumbering and the dense matrices.
func TestBatchIsDisjointUnion(t *testing.T) {
	f, _ := NewFeaturizer(nil, nil)
	gs := []*MolGraph{mustGraph(t, f, "CCO"), mustGraph(t, f, "C"), mustGraph(t, f, "C#N")}
	b := f.Batch(gs, true)
	if b.N != 6 || b.E != 6 || b.B != 3 {
		t.Fatalf("N %d E %d B %d", b.N, b.E, b.B)
	}
	if got := b.Src.I64(); !slices.Equal(got, []int64{0, 1, 1, 2, 4, 5}) {
		t.Errorf("src %v", got)
	}
	if got := b.GraphID.I64(); !slices.Equal(got, []int64{0, 0, 0, 1, 2, 2}) {
		t.Errorf("graph ids %v", got)
	}
	// GCN weight of edge C1→C2 in ethanol: degrees 1 and 2 → 1/sqrt(2·3)
	if w := b.EdgeW.F32()[0]; math.Abs(float64(w)-1/math.Sqrt(6)) > 1e-6 {
		t.Errorf("edge weight %v", w)
	}
	sc, pool := b.Scatter.F32(), b.Pool.F32()
	for e, d := range b.Dst.I64() {
		if sc[int(d)*b.E+e] != 1 {
			t.Errorf("scatter: edge %d → atom %d missing", e, d)
		}
	}
	if pool[1*b.N+3] != 1 || pool[0*b.N+3] != 0 {
		t.Errorf("pool %v", pool)
	}
}

// TestDenseMatchesSegment runs every model and readout on one batch in
// the segment form (training) and the dense form (export) and compares.
func TestDenseMatchesSegment(t *testing.T) {
	f, _ := NewFeaturizer(nil, nil)
	var gs []*MolGraph
	for _, s := range []string{"CC(=O)Nc1ccc(O)cc1", "C", "c1ccccc1O", "CCN(CC)CC", "O=C=O"} {
		gs = append(gs, mustGraph(t, f, s))
	}
	for _, name := range []string{"GIN", "GCN", "MPNN"} {
		for _, ro := range []string{"mean", "sum", "max", "attention"} {
			m, err := buildModel(ModelOpts{Name: name, EmbedDim: 16, LayerNum: 2, Readout: ro, Bases: 3}, f, 2, rand.New(rand.NewPCG(3, 4)))
			if err != nil {
				t.Fatal(err)
			}
			var seg, dense []float64
			ag.NoGrad(func() {
				b := Batch{B: len(gs), Graph: f.Batch(gs, false)}
				seg = m.Predict(inputsOf(&b), false).T.Float64s()
				b = Batch{B: len(gs), Graph: f.Batch(gs, true)}
				dense = m.Predict(inputsOf(&b), false).T.Float64s()
			})
			if len(seg) != 10 {
				t.Fatalf("%s/%s: %d outputs", name, ro, len(seg))
			}
			for i := range seg {
				if math.Abs(seg[i]-dense[i]) > 1e-4 {
					t.Errorf("%s/%s: output %d segment %v dense %v", name, ro, i, seg[i], dense[i])
				}
			}
		}
	}
}

// TestGNNFitsSmallSet checks that gradients reach every part of each model:
// a few Adam steps fit five molecules' targets.
func TestGNNFitsSmallSet(t *testing.T) {
	f, _ := NewFeaturizer(nil, nil)
	var gs []*MolGraph
	for _, s := range []string{"CCO", "c1ccccc1O", "CC(=O)Nc1ccc(O)cc1", "CCN", "c1ccccc1N"} {
		gs = append(gs, mustGraph(t, f, s))
	}
	for _, name := range []string{"GIN", "GCN", "MPNN"} {
		m, _ := buildModel(ModelOpts{Name: name, EmbedDim: 32, LayerNum: 2, Readout: "attention"}, f, 1, rand.New(rand.NewPCG(1, 2)))
		first, last := fitSteps(t, m, Batch{B: 5, Graph: f.Batch(gs, false)}, []float32{1, -1, 0.5, -0.5, 2}, 150)
		// measured: first losses ≈ 1–2, after 150 steps < 1e-3
		if last > 0.05*first || last > 0.02 {
			t.Errorf("%s: loss %v → %v", name, first, last)
		}
	}
}
