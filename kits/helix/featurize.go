package helix

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"paddle/core/chem"
	"paddle/core/cli/cmdutil"
)

// featurizeOptions are the inputs of `paddle helix featurize`.
type featurizeOptions struct {
	Factory *cmdutil.Factory
	Smiles  []string // --smiles, repeatable
	Format  string   // jsonl or csv
	Inputs  []string // files, or - for SMILES on stdin
}

func newCmdFeaturize(f *cmdutil.Factory, runF func(*featurizeOptions) error) *cobra.Command {
	opts := &featurizeOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "featurize [--smiles S ...] [FILE... | -]",
		Short: "Descriptors, Morgan fingerprints and scaffolds of molecules given as SMILES",
		Long: "Parses each SMILES as RDKit's MolFromSmiles does (implicit hydrogens, kekulisation,\n" +
			"RDKit's default aromaticity model) and prints one record per molecule: the canonical\n" +
			"SMILES (this package's own canonical order, not RDKit's string), heavy atoms, average\n" +
			"molecular weight, TPSA (N and O), Wildman–Crippen logP, H-bond donors and acceptors and\n" +
			"rotatable bonds as RDKit's rdMolDescriptors count them, SSSR rings, aromatic rings, the\n" +
			"Bemis–Murcko scaffold and the on-bits of the radius-2, 2048-bit Morgan fingerprint.\n\n" +
			"Molecules come from --smiles, from files (one per line: the first field of a .smi line,\n" +
			"or the 'smiles' column of a .csv with a header, else its first column; # lines are\n" +
			"skipped) or from stdin with -. A molecule that does not parse prints\n" +
			"{\"smiles\": ..., \"error\": ...} and the others go on (exit 1 at the end).",
		Example: "  paddle helix featurize --smiles CCO --smiles 'c1ccccc1O'\n" +
			"  paddle helix featurize --format csv molecules.smi > features.csv\n" +
			"  cut -f1 first_5K.smi | paddle helix featurize -",
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Inputs = args
			if len(opts.Smiles) == 0 && len(args) == 0 {
				return cmdutil.FlagErrorf("give --smiles, files, or - for stdin")
			}
			format, err := cmdutil.ResolveFormat(cmd, f.Settings.Format)
			if err != nil {
				return err
			}
			opts.Format = format
			if runF != nil {
				return runF(opts)
			}
			return featurizeRun(opts)
		},
	}
	cmd.Flags().StringArrayVar(&opts.Smiles, "smiles", nil, "a SMILES string (repeatable)")
	cmdutil.SupportsFormats(cmd, "jsonl", "csv")
	return cmd
}

// Features is one output record.
type Features struct {
	SMILES         string   `json:"smiles"`
	Canonical      string   `json:"canonical,omitempty"`
	HeavyAtoms     *int     `json:"heavy_atoms,omitempty"`
	MolWt          *float64 `json:"mol_wt,omitempty"`
	TPSA           *float64 `json:"tpsa,omitempty"`
	LogP           *float64 `json:"logp,omitempty"`
	HBD            *int     `json:"hbd,omitempty"`
	HBA            *int     `json:"hba,omitempty"`
	RotatableBonds *int     `json:"rotatable_bonds,omitempty"`
	Rings          *int     `json:"rings,omitempty"`
	AromaticRings  *int     `json:"aromatic_rings,omitempty"`
	Scaffold       *string  `json:"scaffold,omitempty"`
	Morgan2        []int    `json:"morgan2_2048,omitempty"`
	Error          string   `json:"error,omitempty"`
}

// Featurize computes the record of one SMILES string.
func Featurize(s string) Features {
	m, err := chem.Parse(s)
	if err != nil {
		return Features{SMILES: s, Error: err.Error()}
	}
	ip := func(v int) *int { return &v }
	fp := func(v float64) *float64 { v = math.Round(v*1e4) / 1e4; return &v }
	scaf := m.Scaffold().SMILES()
	bits := m.MorganBits(2, 2048)
	if bits == nil {
		bits = []int{}
	}
	return Features{
		SMILES: s, Canonical: m.SMILES(), HeavyAtoms: ip(m.NumHeavyAtoms()),
		MolWt: fp(m.MolWt()), TPSA: fp(m.TPSA()), LogP: fp(m.LogP()), HBD: ip(m.NumHDonors()), HBA: ip(m.NumHAcceptors()),
		RotatableBonds: ip(m.NumRotatableBonds()), Rings: ip(m.NumRings()), AromaticRings: ip(m.NumAromaticRings()),
		Scaffold: &scaf, Morgan2: bits,
	}
}

var csvHeader = []string{"smiles", "canonical", "heavy_atoms", "mol_wt", "tpsa", "logp", "hbd", "hba", "rotatable_bonds", "rings", "aromatic_rings", "scaffold", "morgan2_2048", "error"}

func (r *Features) csvRow() []string {
	if r.Error != "" {
		row := make([]string, len(csvHeader))
		row[0], row[len(row)-1] = r.SMILES, r.Error
		return row
	}
	bits := make([]string, len(r.Morgan2))
	for i, b := range r.Morgan2 {
		bits[i] = strconv.Itoa(b)
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	return []string{r.SMILES, r.Canonical, strconv.Itoa(*r.HeavyAtoms), f(*r.MolWt), f(*r.TPSA), f(*r.LogP), strconv.Itoa(*r.HBD),
		strconv.Itoa(*r.HBA), strconv.Itoa(*r.RotatableBonds), strconv.Itoa(*r.Rings), strconv.Itoa(*r.AromaticRings),
		*r.Scaffold, strings.Join(bits, " "), ""}
}

func featurizeRun(opts *featurizeOptions) error {
	ios := opts.Factory.IOStreams
	var cw *csv.Writer
	enc := json.NewEncoder(ios.Out)
	enc.SetEscapeHTML(false)
	if opts.Format == "csv" {
		cw = csv.NewWriter(ios.Out)
		if err := cw.Write(csvHeader); err != nil {
			return err
		}
	}
	n, failed := 0, 0
	emit := func(s string) error {
		r := Featurize(s)
		n++
		if r.Error != "" {
			failed++
		}
		if cw != nil {
			return cw.Write(r.csvRow())
		}
		return enc.Encode(r)
	}
	for _, s := range opts.Smiles {
		if err := emit(s); err != nil {
			return err
		}
	}
	inputFailed := false
	for _, in := range opts.Inputs {
		var err error
		if in == "-" {
			err = readSmiles(ios.In, "stdin", false, emit)
		} else {
			err = readFile(in, emit)
		}
		if err != nil {
			fmt.Fprintf(ios.ErrOut, "paddle: %v\n", err)
			inputFailed = true
		}
	}
	if cw != nil {
		cw.Flush()
		if err := cw.Error(); err != nil {
			return err
		}
	}
	if failed > 0 {
		fmt.Fprintf(ios.ErrOut, "paddle: %d of %d molecules failed to parse\n", failed, n)
	}
	if failed > 0 || inputFailed {
		return cmdutil.ErrSilent
	}
	return nil
}

func readFile(path string, emit func(string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return readSmiles(f, path, strings.EqualFold(filepath.Ext(path), ".csv"), emit)
}

// readSmiles emits the SMILES of each line: the first whitespace field, or
// for CSV the 'smiles' column (first column when there is no such header).
func readSmiles(r io.Reader, name string, isCSV bool, emit func(string) error) error {
	if isCSV {
		cr := csv.NewReader(r)
		cr.FieldsPerRecord = -1
		cr.Comment = '#'
		col, first := 0, true
		for {
			rec, err := cr.Read()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			if first {
				first = false
				found := false
				for i, h := range rec {
					if strings.EqualFold(strings.TrimSpace(h), "smiles") {
						col, found = i, true
					}
				}
				if found {
					continue
				}
			}
			if col < len(rec) && strings.TrimSpace(rec[col]) != "" {
				if err := emit(strings.TrimSpace(rec[col])); err != nil {
					return err
				}
			}
		}
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if err := emit(strings.Fields(line)[0]); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}
