package chem

import (
	"strings"
	"testing"
)

func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"C1CC(", `smiles "C1CC(": column 5: unclosed branch`},
		{"C1CC", `smiles "C1CC": column 2: unclosed ring`},
		{"CC)C", `column 3: unmatched ')'`},
		{"C[Xx]C", `column 3: unknown element`},
		{"CQ", `column 2: unexpected character 'Q'`},
		{"C=", `column 2: bond symbol with no atom after it`},
		{"c1ccccc1C(=O)(=O)(=O)", `greater than permitted`},
		{"c1cccc1", `can't kekulize`},
		{"", `empty SMILES`},
	} {
		_, err := Parse(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q) = %v, want an error containing %q", c.in, err, c.want)
		}
	}
}

// TestParseFeatures checks hand-worked cases: brackets, isotopes, %nn rings, charges, maps.
func TestParseFeatures(t *testing.T) {
	m, err := Parse("[13CH3:7][C@@H](N)C%12CC%12.[Na+]")
	if err != nil {
		t.Fatal(err)
	}
	a := m.Atoms[0]
	if a.Isotope != 13 || a.TotalH() != 3 || a.Map != 7 {
		t.Errorf("atom 0 = %+v", a)
	}
	if m.Atoms[1].Chiral != ChiralCW || m.Atoms[1].TotalH() != 1 {
		t.Errorf("atom 1 = %+v", m.Atoms[1])
	}
	if m.NumRings() != 1 || m.Atoms[len(m.Atoms)-1].Charge != 1 {
		t.Errorf("rings %d, last atom %+v", m.NumRings(), m.Atoms[len(m.Atoms)-1])
	}
	// pyrrole, furan, pyridinone aromatic; azulene has aromatic atoms but its fusing bond is
	// single, so RDKit counts no aromatic ring; cyclooctatetraene is not aromatic
	for s, want := range map[string]int{"c1cc[nH]c1": 1, "o1cccc1": 1, "O=c1cc[nH]cc1": 1, "C1=CC=C2C=CC=C2C=C1": 0, "C1=CC=CC=CC=C1": 0} {
		m, err := Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.NumAromaticRings(); got != want {
			t.Errorf("%s: %d aromatic rings, want %d", s, got, want)
		}
	}
}

// TestCanonicalRoundTrip: different spellings of one molecule give one string, and it re-parses to itself.
func TestCanonicalRoundTrip(t *testing.T) {
	groups := [][]string{
		{"OCC", "CCO", "C(O)C", "[CH3][CH2][OH]"},
		{"c1ccccc1O", "Oc1ccccc1", "OC1=CC=CC=C1"},
		{"N[C@@H](C)C(=O)O", "C[C@H](N)C(=O)O", "OC(=O)[C@H](C)N"},
		{"[O-][N+](=O)c1ccccc1", "O=N(=O)c1ccccc1"},
		{"F/C=C/F", `F\C=C\F`, `C(\F)=C/F`},                                   // trans
		{`F/C=C\F`, `F\C=C/F`, "C(/F)=C/F"},                                   // cis
		{"OC(=O)/C=C/c1ccccc1", "c1ccccc1/C=C/C(=O)O", `c1ccccc1\C=C\C(O)=O`}, // E-cinnamic acid
		{`CC/C=C(/C)Cl`, `Cl\C(C)=C/CC`, `C(\C)(Cl)=C/CC`},
	}
	for _, g := range groups {
		var first string
		for i, s := range g {
			m, err := Parse(s)
			if err != nil {
				t.Fatal(err)
			}
			c := m.SMILES()
			if i == 0 {
				first = c
			} else if c != first {
				t.Errorf("%s -> %s, but %s -> %s", g[0], first, s, c)
			}
			m2, err := Parse(c)
			if err != nil || m2.SMILES() != c {
				t.Errorf("%s -> %s does not round-trip (%v)", s, c, err)
			}
		}
	}
	// enantiomers and cis/trans isomers differ
	for _, pair := range [][2]string{{"N[C@@H](C)C(=O)O", "N[C@H](C)C(=O)O"}, {"F/C=C/F", `F/C=C\F`}} {
		a, _ := Parse(pair[0])
		b, _ := Parse(pair[1])
		if a.SMILES() == b.SMILES() {
			t.Errorf("%s and %s give the same string %s", pair[0], pair[1], a.SMILES())
		}
	}
}

// FuzzParse: the parser and everything after it never panic; what parses writes and re-parses.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"CCO", "c1ccccc1", "C1CC(", "[13CH3:7][C@@H](N)C%12CC%12.[Na+]", "O=c1cc[nH]cc1",
		"C1=CC=C2C=CC=C2C=C1", "F/C=C/F", "[O-][N+](=O)c1ccccc1", "C%(123)CC%(123)", "[Fe+2]", "*C"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 200 {
			return
		}
		m, err := Parse(s)
		if err != nil {
			return
		}
		c := m.SMILES()
		m.MorganBits(2, 2048)
		m.TPSA()
		m.NumRotatableBonds()
		m.Hybridizations()
		m.Scaffold().SMILES()
		if _, err := Parse(c); err != nil {
			t.Logf("%q -> %q does not re-parse: %v", s, c, err)
		}
	})
}
