package chem

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadSDFBZR reads rdkit-data's bzr.sdf and checks each molecule
// against the SMILES RDKit wrote from the same file (the golden file's
// bzr_smiles): the same graph, hence our same canonical string.
func TestReadSDFBZR(t *testing.T) {
	dir := rdkitDataDir()
	if dir == "" {
		t.Skip("rdkit-data not found (run scripts/setup.sh, or set RDKIT_DATA)")
	}
	f, err := os.Open(filepath.Join(dir, "Projects/DbCLI/testData/bzr.sdf"))
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	g := loadGolden(t)
	var recs []SDFRecord
	if err := ReadSDF(f, "bzr.sdf", func(r SDFRecord) error { recs = append(recs, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(recs) != len(g.BZRSmiles) {
		t.Fatalf("%d records, want %d", len(recs), len(g.BZRSmiles))
	}
	bad := 0
	for i, r := range recs {
		if r.Err != nil {
			t.Errorf("record %d (line %d): %v", i, r.Line, r.Err)
			bad++
			continue
		}
		if r.Props["ACTIVITY"] == "" {
			t.Errorf("record %d: no ACTIVITY", i)
		}
		r.Mol.ClearStereo()
		if got, want := r.Mol.SMILES(), canonicalOf(g.BZRSmiles[i]); got != want {
			t.Errorf("record %d %s: %s, RDKit's gives %s", i, r.Name, got, want)
			bad++
		}
	}
	if recs[0].Name != "Adinazolam" || recs[0].Props["ACTIVITY"] != "6.87" || recs[0].Line != 1 {
		t.Errorf("first record: %q %v line %d", recs[0].Name, recs[0].Props, recs[0].Line)
	}
	t.Logf("%d of %d molecules differ", bad, len(recs))
}

func TestParseMolBlockChargesAndErrors(t *testing.T) {
	// acetate with the charge in an M  CHG line, and a bare H that is folded away
	block := `acetate
  test

  5  4  0  0  0  0  0  0  0  0999 V2000
    0.0000    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0
    1.0000    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0
    2.0000    0.0000    0.0000 O   0  0  0  0  0  0  0  0  0  0  0  0
    1.0000    1.0000    0.0000 O   0  0  0  0  0  0  0  0  0  0  0  0
   -1.0000    0.0000    0.0000 H   0  0  0  0  0  0  0  0  0  0  0  0
  1  2  1  0
  2  3  1  0
  2  4  2  0
  1  5  1  0
M  CHG  1   3  -1
M  END`
	m, err := ParseMolBlock(block)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Parse("CC(=O)[O-]")
	if m.SMILES() != want.SMILES() || len(m.Atoms) != 4 || m.Atoms[0].TotalH() != 3 {
		t.Errorf("got %s (%d atoms), want %s", m.SMILES(), len(m.Atoms), want.SMILES())
	}
	bad := strings.Replace(block, "  2  3  1  0", "  2  9  1  0", 1)
	if _, err := ParseMolBlock(bad); err == nil || !strings.Contains(err.Error(), "line 11") {
		t.Errorf("bad bond: %v", err)
	}
	var recs []SDFRecord
	sdf := block + "\n>  <Act>  (1)\n5.5\n\n$$$$\n" + bad + "\n$$$$\n"
	if err := ReadSDF(strings.NewReader(sdf), "x.sdf", func(r SDFRecord) error { recs = append(recs, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].Props["Act"] != "5.5" || recs[1].Err == nil || !strings.Contains(recs[1].Err.Error(), "x.sdf:20:") {
		t.Errorf("records: %+v", recs)
	}
}
