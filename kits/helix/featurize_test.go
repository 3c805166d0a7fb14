package helix

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"paddle/core/cli/cmdutil"
	"paddle/core/cli/iostreams"
)

func runFeaturize(t *testing.T, stdin, format string, args ...string) (string, string, error) {
	t.Helper()
	ios, in, out, errOut := iostreams.Test()
	in.WriteString(stdin)
	f := &cmdutil.Factory{IOStreams: ios}
	f.Settings.Format = format
	cmd := newCmdFeaturize(f, nil)
	cmd.SetArgs(args)
	cmd.SetOut(errOut)
	cmd.SetErr(errOut)
	err := cmd.Execute()
	return out.String(), errOut.String(), err
}

// Paracetamol: the values are RDKit 2022.09's (heavy atoms, MolWt, TPSA,
// MolLogP, CalcNumHBD/HBA, CalcNumRotatableBonds, rings, Morgan radius 2 on-bits).
var paracetamolBits = []int{191, 245, 530, 650, 745, 807, 843, 849, 1017, 1057, 1077, 1152, 1313, 1380, 1602, 1750, 1778, 1816, 1873, 1917}

func TestFeaturizeJSONL(t *testing.T) {
	out, _, err := runFeaturize(t, "c1ccccc1O\n", "", "--smiles", "CC(=O)Nc1ccc(O)cc1", "--smiles", "C1CC(", "-")
	if !errors.Is(err, cmdutil.ErrSilent) {
		t.Fatalf("err = %v, want ErrSilent (one molecule failed)", err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines:\n%s", len(lines), out)
	}
	var r Features
	if err := json.Unmarshal([]byte(lines[0]), &r); err != nil {
		t.Fatal(err)
	}
	if *r.HeavyAtoms != 11 || *r.MolWt != 151.165 || *r.TPSA != 49.33 || *r.LogP != 1.3506 || *r.HBD != 2 || *r.HBA != 2 ||
		*r.RotatableBonds != 1 || *r.Rings != 1 || *r.AromaticRings != 1 || *r.Scaffold != "c1ccccc1" {
		t.Errorf("paracetamol: %s", lines[0])
	}
	if !slices.Equal(r.Morgan2, paracetamolBits) {
		t.Errorf("morgan2 = %v, want %v", r.Morgan2, paracetamolBits)
	}
	if !strings.Contains(lines[1], `"error":"smiles \"C1CC(\": column 5: unclosed branch"`) {
		t.Errorf("error line: %s", lines[1])
	}
	if !strings.Contains(lines[2], `"smiles":"c1ccccc1O"`) || !strings.Contains(lines[2], `"logp":1.3922`) {
		t.Errorf("stdin line: %s", lines[2])
	}
}

func TestFeaturizeCSV(t *testing.T) {
	// a .csv file's 'smiles' column is read; stdin is read as .smi lines, so a header there is a (bad) molecule
	path := filepath.Join(t.TempDir(), "m.csv")
	if err := os.WriteFile(path, []byte("id,SMILES\n1,CCO\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err := runFeaturize(t, "SMILES,TPSA\n", "csv", path, "-")
	if !errors.Is(err, cmdutil.ErrSilent) {
		t.Fatalf("err = %v, want ErrSilent", err)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 || recs[0][0] != "smiles" {
		t.Fatalf("csv: %q", recs)
	}
	// stdin is read as .smi lines: the header line is a (bad) molecule
	if recs[1][0] != "CCO" || recs[1][1] != "C(C)O" || recs[1][3] != "46.069" || recs[1][5] != "-0.0014" || recs[1][12] != "80 222 294 807 1057 1410" {
		t.Errorf("row 1: %q", recs[1])
	}
	if recs[2][0] != "SMILES,TPSA" || recs[2][len(recs[2])-1] == "" {
		t.Errorf("row 2: %q", recs[2])
	}
}
