package helix

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCSVMissingLabelsAndErrors(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "tox.csv", "SMILES,NR-AR,SR-HSE\nCCO,1,\nc1ccccc1O,,0\nC1CC(,1,1\nCCN,,\n")
	mols, err := LoadDataset(DatasetOpts{Name: "CSV", File: p, Tasks: []string{"NR-AR", "SR-HSE"}})
	if err != nil {
		t.Fatal(err)
	}
	// the bad SMILES (line 4) is skipped; CCN has no label and is dropped
	if len(mols) != 2 || mols[0].Labels[0] != 1 || !math.IsNaN(mols[0].Labels[1]) || !math.IsNaN(mols[1].Labels[0]) || mols[1].Where != p+":3" {
		t.Errorf("molecules %+v", mols)
	}
	bad := writeFile(t, dir, "bad.csv", "smiles,y\nCCO,1.5\nCCC,high\n")
	if _, err := LoadDataset(DatasetOpts{Name: "CSV", File: bad, Tasks: []string{"y"}}); err == nil || !strings.Contains(err.Error(), "bad.csv:3: task y: \"high\" is not a number") {
		t.Errorf("bad label: %v", err)
	}
	if _, err := LoadDataset(DatasetOpts{Name: "CSV", File: bad, Tasks: []string{"z"}}); err == nil || !strings.Contains(err.Error(), `no column "z"`) {
		t.Errorf("missing column: %v", err)
	}
	th := 1.0
	mols, err = LoadDataset(DatasetOpts{Name: "CSV", File: bad, Tasks: []string{"y"}, Threshold: &th, Limit: 1})
	if err == nil || len(mols) > 0 {
		t.Errorf("bad label with threshold: %v", err)
	}
}

func TestSMIWithLabelFile(t *testing.T) {
	dir := t.TempDir()
	smi := writeFile(t, dir, "a.smi", "CCO m1\nc1ccccc1O m2\nCCC m3\n")
	act := writeFile(t, dir, "a_act.csv", "Name,Act\nm2,6.5\nm1,5\n")
	th := 6.0
	mols, err := LoadDataset(DatasetOpts{Name: "SMI", File: smi, LabelFile: act, IDColumn: "Name", Tasks: []string{"Act"}, Threshold: &th})
	if err != nil {
		t.Fatal(err)
	}
	if len(mols) != 2 || mols[0].ID != "m1" || mols[0].Labels[0] != 0 || mols[1].Labels[0] != 1 {
		t.Errorf("molecules %+v", mols)
	}
}

func TestSplits(t *testing.T) {
	// scaffolds: benzene ×4, pyridine ×3, cyclohexane ×2, acyclic ×1
	smiles := []string{"c1ccccc1C", "c1ccccc1O", "c1ccncc1C", "CCO", "c1ccccc1N", "C1CCCCC1C", "c1ccncc1O", "c1ccccc1CC", "c1ccncc1N", "C1CCCCC1O"}
	var mols []Molecule
	for i, s := range smiles {
		m, err := parseMolT(s)
		if err != nil {
			t.Fatal(err)
		}
		mols = append(mols, Molecule{Mol: m, Labels: []float64{float64(i % 2)}})
	}
	a, b, c, err := Split(mols, SplitOpts{Name: "scaffold", Frac: []float64{0.7, 0.2, 0.1}})
	if err != nil {
		t.Fatal(err)
	}
	// largest first: benzene (4) + pyridine (3) = 7 ≤ 7 → train; cyclohexane (2) → valid; acyclic → test
	if !slices.Equal(a, []int{0, 1, 4, 7, 2, 6, 8}) || !slices.Equal(b, []int{5, 9}) || !slices.Equal(c, []int{3}) {
		t.Errorf("scaffold split %v %v %v", a, b, c)
	}
	a, b, c, _ = Split(mols, SplitOpts{Name: "random", Seed: 1})
	a2, _, _, _ := Split(mols, SplitOpts{Name: "random", Seed: 1})
	a3, _, _, _ := Split(mols, SplitOpts{Name: "random", Seed: 2})
	if len(a) != 8 || len(b) != 1 || len(c) != 1 || !slices.Equal(a, a2) || slices.Equal(a, a3) {
		t.Errorf("random split %v %v %v (seed 2: %v)", a, b, c, a3)
	}
	all := append(append(append([]int(nil), a...), b...), c...)
	slices.Sort(all)
	if !slices.Equal(all, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}) {
		t.Errorf("random split is not a partition: %v", all)
	}
	// stratified: 20 molecules, 10 of each class → 8/1/1 of each
	mols = append(mols, mols...)
	a, b, c, _ = Split(mols, SplitOpts{Name: "stratified", Seed: 3})
	pos := func(idx []int) (n int) {
		for _, i := range idx {
			n += int(mols[i].Labels[0])
		}
		return n
	}
	if len(a) != 16 || pos(a) != 8 || pos(b) != 1 || pos(c) != 1 {
		t.Errorf("stratified split %v %v %v", a, b, c)
	}
	if _, _, _, err := Split(mols, SplitOpts{Frac: []float64{0.5, 0.2}}); err == nil {
		t.Error("bad frac: want an error")
	}
}

func TestClassificationWantsBinaryLabels(t *testing.T) {
	p := writeFile(t, t.TempDir(), "y.csv", "smiles,y\nCCO,5.5\nCCC,1\n")
	code, _, errOut := paddle(t, "", "helix", "train", "-c", configPath("gin_chembl_cls.yaml"), "-o", "Dataset.name=CSV", "-o", "Dataset.file="+p,
		"-o", "Dataset.threshold=null", "-o", "Dataset.tasks=[y]", "--output", t.TempDir())
	if code == 0 || !strings.Contains(errOut, "y.csv:2: task y label 5.5: classification wants 0/1 labels") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}
