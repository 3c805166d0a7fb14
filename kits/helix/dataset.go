package helix

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"paddle/core/chem"
	"paddle/core/config"
	"paddle/core/hub"
)

// Molecule datasets: MoleculeNet-style CSV (a SMILES column and task
// columns, an empty cell a missing label), SMILES files (SMILES and an id
// per line, labels joined from a CSV by id, as rdkit-data's
// CHEMBL2321810.smi + CHEMBL2321810_act.csv) and SD files (labels from
// data items such as `> <ACTIVITY>`).

// DatasetOpts is the Dataset section.
type DatasetOpts struct {
	Name         string   `yaml:"name"`          // CSV | SMI | SDF
	File         string   `yaml:"file"`          // relative paths not found are looked up in $PADDLE_CACHE/data
	LabelFile    string   `yaml:"label_file"`    // SMI/SDF: a CSV of labels joined by id
	IDColumn     string   `yaml:"id_column"`     // label_file's id column (default: its first column)
	SmilesColumn string   `yaml:"smiles_column"` // CSV (default "smiles", any case)
	Tasks        []string `yaml:"tasks"`         // label columns or SD data items
	Threshold    *float64 `yaml:"threshold"`     // classification: label = value ≥ threshold
	Limit        int      `yaml:"limit"`         // keep the first N molecules (0: all)
}

// Molecule is one labelled molecule.
type Molecule struct {
	ID     string
	SMILES string    // as read (SDF: our canonical SMILES)
	Where  string    // file:line
	Mol    *chem.Mol //
	Labels []float64 // one per task; NaN = missing
}

// resolvePath finds a data file: as given, else under the cache's data folder.
func resolvePath(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	if _, err := os.Stat(p); err == nil {
		return p
	}
	alt := filepath.Join(hub.CacheDir(), "data", p)
	if _, err := os.Stat(alt); err == nil {
		return alt
	}
	return p
}

// datasets are the Dataset.name values (any case), by file format.
var datasets = new(config.Choices[func(file string, o DatasetOpts) ([]Molecule, error)]).
	Add("CSV", readCSVSet).Add("SMI", readSMISet).Add("SDF", readSDFSet)

// LoadDataset reads the molecules o describes. Molecules that do not parse
// are skipped with a warning naming file:line; malformed labels are errors.
func LoadDataset(o DatasetOpts) ([]Molecule, error) {
	if len(o.Tasks) == 0 {
		return nil, fmt.Errorf("Dataset.tasks: name at least one label column")
	}
	file := resolvePath(o.File)
	if file == "" {
		return nil, fmt.Errorf("Dataset.file is required")
	}
	read, ok := datasets.Get(strings.ToUpper(o.Name))
	if !ok {
		return nil, fmt.Errorf("Dataset.name: %q is not a dataset (known: %s)", o.Name, datasets.Known())
	}
	mols, err := read(file, o)
	if err != nil {
		return nil, err
	}
	if o.Threshold != nil {
		for _, m := range mols {
			for t, v := range m.Labels {
				if !math.IsNaN(v) {
					m.Labels[t] = b2f(v >= *o.Threshold)
				}
			}
		}
	}
	kept := mols[:0]
	for _, m := range mols {
		for _, v := range m.Labels {
			if !math.IsNaN(v) {
				kept = append(kept, m)
				break
			}
		}
	}
	if d := len(mols) - len(kept); d > 0 {
		slog.Warn("dataset", "file", file, "skipped", d, "why", "no label")
	}
	if o.Limit > 0 && len(kept) > o.Limit {
		kept = kept[:o.Limit]
	}
	if len(kept) == 0 {
		return nil, fmt.Errorf("%s: no labelled molecule", file)
	}
	return kept, nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// parseLabel reads one label cell: empty (or nan/NA) is missing.
func parseLabel(s, where, task string) (float64, error) {
	s = strings.TrimSpace(s)
	switch strings.ToLower(s) {
	case "", "nan", "na", "n/a", "none":
		return math.NaN(), nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: task %s: %q is not a number", where, task, s)
	}
	return v, nil
}

// parseMol parses s, or warns and returns nil.
func parseMol(s, where string) *chem.Mol {
	m, err := chem.Parse(s)
	if err != nil {
		slog.Warn("dataset: skipped molecule", "at", where, "err", err)
		return nil
	}
	return m
}

// csvTable reads a CSV file with a header: the header's column index by
// lower-cased name and the rows with their line numbers.
func csvTable(file string) (map[string]int, [][]string, []int, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, nil, nil, err
	}
	defer f.Close()
	cr := csv.NewReader(bufio.NewReader(f))
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", file, err)
	}
	cols := map[string]int{}
	for i, h := range header {
		cols[strings.ToLower(strings.TrimSpace(h))] = i
	}
	var rows [][]string
	var lines []int
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%s: %w", file, err)
		}
		line, _ := cr.FieldPos(0)
		rows, lines = append(rows, rec), append(lines, line)
	}
	return cols, rows, lines, nil
}

func taskColumns(cols map[string]int, tasks []string, file string) ([]int, error) {
	idx := make([]int, len(tasks))
	for i, t := range tasks {
		c, ok := cols[strings.ToLower(t)]
		if !ok {
			return nil, fmt.Errorf("%s: no column %q for Dataset.tasks", file, t)
		}
		idx[i] = c
	}
	return idx, nil
}

func readCSVSet(file string, o DatasetOpts) ([]Molecule, error) {
	cols, rows, lines, err := csvTable(file)
	if err != nil {
		return nil, err
	}
	name := o.SmilesColumn
	if name == "" {
		name = "smiles"
	}
	sc, ok := cols[strings.ToLower(name)]
	if !ok {
		return nil, fmt.Errorf("%s: no SMILES column %q (set Dataset.smiles_column)", file, name)
	}
	tc, err := taskColumns(cols, o.Tasks, file)
	if err != nil {
		return nil, err
	}
	var out []Molecule
	for r, rec := range rows {
		where := fmt.Sprintf("%s:%d", file, lines[r])
		cell := func(c int) string {
			if c < len(rec) {
				return rec[c]
			}
			return ""
		}
		s := strings.TrimSpace(cell(sc))
		labels := make([]float64, len(tc))
		for i, c := range tc {
			if labels[i], err = parseLabel(cell(c), where, o.Tasks[i]); err != nil {
				return nil, err
			}
		}
		if m := parseMol(s, where); m != nil {
			out = append(out, Molecule{ID: strconv.Itoa(r + 1), SMILES: s, Where: where, Mol: m, Labels: labels})
		}
	}
	return out, nil
}

// labelsByID reads label_file: id → labels.
func labelsByID(o DatasetOpts) (map[string][]float64, error) {
	file := resolvePath(o.LabelFile)
	cols, rows, lines, err := csvTable(file)
	if err != nil {
		return nil, err
	}
	idc := 0
	if o.IDColumn != "" {
		c, ok := cols[strings.ToLower(o.IDColumn)]
		if !ok {
			return nil, fmt.Errorf("%s: no id column %q", file, o.IDColumn)
		}
		idc = c
	}
	tc, err := taskColumns(cols, o.Tasks, file)
	if err != nil {
		return nil, err
	}
	out := map[string][]float64{}
	for r, rec := range rows {
		where := fmt.Sprintf("%s:%d", file, lines[r])
		labels := make([]float64, len(tc))
		for i, c := range tc {
			v := ""
			if c < len(rec) {
				v = rec[c]
			}
			if labels[i], err = parseLabel(v, where, o.Tasks[i]); err != nil {
				return nil, err
			}
		}
		if idc < len(rec) {
			out[strings.TrimSpace(rec[idc])] = labels
		}
	}
	return out, nil
}

func readSMISet(file string, o DatasetOpts) ([]Molecule, error) {
	if o.LabelFile == "" {
		return nil, fmt.Errorf("Dataset.label_file: an SMI dataset takes its labels from a CSV joined by id")
	}
	labels, err := labelsByID(o)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	var out []Molecule
	missing := 0
	for n := 1; sc.Scan(); n++ {
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 || strings.HasPrefix(fs[0], "#") {
			continue
		}
		where := fmt.Sprintf("%s:%d", file, n)
		if len(fs) < 2 {
			return nil, fmt.Errorf("%s: want SMILES and an id", where)
		}
		lb, ok := labels[fs[1]]
		if !ok {
			missing++
			continue
		}
		if m := parseMol(fs[0], where); m != nil {
			out = append(out, Molecule{ID: fs[1], SMILES: fs[0], Where: where, Mol: m, Labels: append([]float64(nil), lb...)})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if missing > 0 {
		slog.Warn("dataset", "file", file, "without_labels", missing)
	}
	return out, nil
}

func readSDFSet(file string, o DatasetOpts) ([]Molecule, error) {
	var labels map[string][]float64
	if o.LabelFile != "" {
		var err error
		if labels, err = labelsByID(o); err != nil {
			return nil, err
		}
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Molecule
	err = chem.ReadSDF(f, file, func(r chem.SDFRecord) error {
		where := fmt.Sprintf("%s:%d", file, r.Line)
		if r.Err != nil {
			slog.Warn("dataset: skipped molecule", "at", where, "err", r.Err)
			return nil
		}
		var lb []float64
		if labels != nil {
			l, ok := labels[r.Name]
			if !ok {
				return nil
			}
			lb = append([]float64(nil), l...)
		} else {
			lb = make([]float64, len(o.Tasks))
			for i, t := range o.Tasks {
				v, err := parseLabel(firstLine(r.Props[t]), where, t)
				if err != nil {
					return err
				}
				lb[i] = v
			}
		}
		out = append(out, Molecule{ID: r.Name, SMILES: r.Mol.SMILES(), Where: where, Mol: r.Mol, Labels: lb})
		return nil
	})
	return out, err
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
