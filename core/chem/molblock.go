package chem

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// MDL mol blocks (V2000) and SD files. A mol block's atoms and bonds
// become a Mol sanitised as Parse sanitises SMILES (RDKit's MolFromMolBlock
// with its defaults: hydrogens removed, implicit hydrogens from valence
// rules, aromaticity perceived). Coordinates and stereo parities are read
// past, not used: atoms get no chirality tags.

// SDFRecord is one molecule of an SD file.
type SDFRecord struct {
	Name  string            // the header's first line
	Line  int               // 1-based line of the header in the file
	Props map[string]string // data items: "> <ACTIVITY>" → value (lines joined by "\n")
	Mol   *Mol              // nil when Err is set
	Err   error             // the mol block could not be read or sanitised
}

// ReadSDF calls fn for each record of an SD file read from r (name is used
// in errors). A record whose mol block is bad is passed with Err set and the
// reading goes on; an error from fn or from reading r stops it.
func ReadSDF(r io.Reader, name string, fn func(SDFRecord) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 4<<20)
	lineNo := 0
	var block []string
	start := 1
	flush := func() error {
		if len(block) == 0 {
			return nil
		}
		rec := SDFRecord{Line: start, Props: map[string]string{}}
		rec.Name = strings.TrimSpace(block[0])
		end := len(block)
		for i, l := range block {
			if strings.HasPrefix(l, "M  END") {
				end = i + 1
				break
			}
		}
		m, err := ParseMolBlock(strings.Join(block[:end], "\n"))
		if err != nil {
			rec.Err = fmt.Errorf("%s:%d: %w", name, start, err)
		} else {
			rec.Mol = m
		}
		readProps(block[end:], rec.Props)
		block = block[:0]
		return fn(rec)
	}
	for sc.Scan() {
		lineNo++
		l := strings.TrimRight(sc.Text(), "\r")
		if strings.HasPrefix(l, "$$$$") {
			if err := flush(); err != nil {
				return err
			}
			start = lineNo + 1
			continue
		}
		block = append(block, l)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	// a trailing record without $$$$ (only if it holds more than blank lines)
	for _, l := range block {
		if strings.TrimSpace(l) != "" {
			return flush()
		}
	}
	return nil
}

// readProps parses "> <NAME> ..." data items: the value is the following
// lines up to a blank line.
func readProps(lines []string, props map[string]string) {
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if !strings.HasPrefix(l, ">") {
			continue
		}
		a := strings.IndexByte(l, '<')
		if a < 0 {
			continue
		}
		e := strings.IndexByte(l[a+1:], '>')
		if e < 0 {
			continue
		}
		key := l[a+1 : a+1+e]
		var vals []string
		for i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != "" {
			i++
			vals = append(vals, lines[i])
		}
		props[key] = strings.Join(vals, "\n")
	}
}

// ParseMolBlock reads a V2000 mol block (header, counts line, atom and
// bond blocks, M  CHG/ISO properties) and sanitises the molecule.
// Errors name the block's line.
func ParseMolBlock(block string) (*Mol, error) {
	lines := strings.Split(strings.ReplaceAll(block, "\r", ""), "\n")
	if len(lines) < 4 {
		return nil, fmt.Errorf("mol block: %d lines, want a header and a counts line", len(lines))
	}
	counts := lines[3]
	if strings.Contains(counts, "V3000") {
		return nil, fmt.Errorf("mol block line 4: V3000 is not supported")
	}
	na, err1 := fixedInt(counts, 0, 3)
	nb, err2 := fixedInt(counts, 3, 6)
	if err1 != nil || err2 != nil || na < 0 || nb < 0 {
		return nil, fmt.Errorf("mol block line 4: bad counts line %q", counts)
	}
	if len(lines) < 4+na+nb {
		return nil, fmt.Errorf("mol block: %d atoms and %d bonds need %d lines, have %d", na, nb, 4+na+nb, len(lines))
	}
	m := &Mol{}
	for i := range na {
		l := lines[4+i]
		f := strings.Fields(l)
		if len(f) < 4 {
			return nil, fmt.Errorf("mol block line %d: bad atom line %q", 5+i, l)
		}
		sym := f[3]
		z, ok := symbolZ[sym]
		if !ok {
			if sym == "D" || sym == "T" {
				z = 1
			} else {
				return nil, fmt.Errorf("mol block line %d: unknown element %q", 5+i, sym)
			}
		}
		at := Atom{Z: z}
		if sym == "D" {
			at.Isotope = 2
		} else if sym == "T" {
			at.Isotope = 3
		}
		if len(f) > 5 { // the old charge code: 1..7 → +3..-3, 4 a doublet radical
			if c, err := strconv.Atoi(f[5]); err == nil && c >= 1 && c <= 7 && c != 4 {
				at.Charge = 4 - c
			}
		}
		m.Atoms = append(m.Atoms, at)
	}
	m.adj = make([][]int, na)
	explicit := make([]bool, 0, nb)
	for k := range nb {
		l := lines[4+na+k]
		a, e1 := fixedInt(l, 0, 3)
		b, e2 := fixedInt(l, 3, 6)
		t, e3 := fixedInt(l, 6, 9)
		if e1 != nil || e2 != nil || e3 != nil || a < 1 || b < 1 || a > na || b > na || a == b {
			return nil, fmt.Errorf("mol block line %d: bad bond line %q", 5+na+k, l)
		}
		var o BondOrder
		switch t {
		case 1:
			o = Single
		case 2:
			o = Double
		case 3:
			o = Triple
		case 4:
			o = Aromatic
			m.Atoms[a-1].Aromatic, m.Atoms[b-1].Aromatic = true, true
		default:
			return nil, fmt.Errorf("mol block line %d: bond type %d is not supported", 5+na+k, t)
		}
		m.addBond(a-1, b-1, o, 0)
		explicit = append(explicit, true)
	}
	chargeSeen := false
	for i := 4 + na + nb; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "M  END") {
			break
		}
		if !strings.HasPrefix(l, "M  CHG") && !strings.HasPrefix(l, "M  ISO") {
			continue
		}
		f := strings.Fields(l)
		if len(f) < 3 {
			return nil, fmt.Errorf("mol block line %d: bad property line %q", i+1, l)
		}
		n, err := strconv.Atoi(f[2])
		if err != nil || len(f) < 3+2*n {
			return nil, fmt.Errorf("mol block line %d: bad property line %q", i+1, l)
		}
		if f[1] == "CHG" && !chargeSeen { // M  CHG overrides every charge of the atom block
			chargeSeen = true
			for j := range m.Atoms {
				m.Atoms[j].Charge = 0
			}
		}
		for j := range n {
			idx, e1 := strconv.Atoi(f[3+2*j])
			v, e2 := strconv.Atoi(f[4+2*j])
			if e1 != nil || e2 != nil || idx < 1 || idx > na {
				return nil, fmt.Errorf("mol block line %d: bad property line %q", i+1, l)
			}
			if f[1] == "CHG" {
				m.Atoms[idx-1].Charge = v
			} else {
				m.Atoms[idx-1].Isotope = v
			}
		}
	}
	name := strings.TrimSpace(lines[0])
	if name == "" {
		name = "mol block"
	}
	if err := m.sanitize(name, explicit); err != nil {
		return nil, err
	}
	return m, nil
}

// fixedInt reads the integer in columns [a, b) of a fixed-width line.
func fixedInt(l string, a, b int) (int, error) {
	if len(l) < b {
		if len(l) <= a {
			return 0, fmt.Errorf("short line")
		}
		b = len(l)
	}
	return strconv.Atoi(strings.TrimSpace(l[a:b]))
}
