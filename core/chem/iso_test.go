package chem

import (
	"math"
	"slices"
	"testing"
)

// TestIsotopes: MolWt and Morgan bits of isotope-labelled molecules, values from RDKit 2022.09.
func TestIsotopes(t *testing.T) {
	for _, c := range []struct {
		smi  string
		mw   float64
		bits []int
	}{
		{"[2H]C([2H])([2H])O", 35.0603, []int{372, 807, 1057, 1155, 1552, 1643}},
		{"[13CH3]O", 33.0344, []int{807, 1057, 1155}},
		{"[11CH3]O", 31.0424, []int{807, 1057, 1155}},
		{"OC[18F]", 49.0349, []int{80, 222, 353, 807, 1239, 1928}},
		{"[125I]c1ccccc1", 202.0106, []int{389, 660, 1008, 1088, 1199, 1353, 1380, 1569, 1715, 1750, 1873}},
	} {
		m, err := Parse(c.smi)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.MolWt(); math.Abs(got-c.mw) > 1e-3 {
			t.Errorf("%s: MolWt %.4f, RDKit %.4f", c.smi, got, c.mw)
		}
		if c.bits != nil && !slices.Equal(m.MorganBits(2, 2048), c.bits) {
			t.Errorf("%s: Morgan %v, RDKit %v", c.smi, m.MorganBits(2, 2048), c.bits)
		}
	}
}
