package chem

import (
	"fmt"
	"strconv"
)

// ParseError is a SMILES syntax or chemistry error. Col is the 1-based column
// of the offending character (0 when the error is about the whole molecule).
type ParseError struct {
	SMILES string
	Col    int
	Msg    string
}

func (e *ParseError) Error() string {
	if e.Col > 0 {
		return fmt.Sprintf("smiles %q: column %d: %s", e.SMILES, e.Col, e.Msg)
	}
	return fmt.Sprintf("smiles %q: %s", e.SMILES, e.Msg)
}

// organic subset symbols (outside brackets) and their atomic numbers.
var organic = map[string]int{"B": 5, "C": 6, "N": 7, "O": 8, "P": 15, "S": 16, "F": 9, "Cl": 17, "Br": 35, "I": 53, "*": 0}

var aromaticOrganic = map[string]int{"b": 5, "c": 6, "n": 7, "o": 8, "p": 15, "s": 16}

// aromatic symbols allowed inside brackets.
var aromaticBracket = map[string]int{"b": 5, "c": 6, "n": 7, "o": 8, "p": 15, "s": 16, "se": 34, "as": 33, "te": 52, "si": 14}

var symbolZ = func() map[string]int {
	m := map[string]int{}
	for z, e := range elements {
		if z > 0 {
			m[e.symbol] = z
		}
	}
	return m
}()

type ringOpen struct {
	atom  int
	order BondOrder // 0: unspecified
	dir   byte
	col   int
	slot  int // index into the atom's chirality order list
}

type parser struct {
	s        string
	pos      int
	m        *Mol
	arom     []bool // written lowercase
	explicit []bool // bond k had an explicit order symbol
	rings    map[int]ringOpen
}

func (p *parser) errf(col int, format string, a ...any) error {
	return &ParseError{SMILES: p.s, Col: col, Msg: fmt.Sprintf(format, a...)}
}

// parseGraph reads the SMILES string into an unsanitised graph: aromatic
// atoms flagged, bonds between two lowercase atoms without a symbol aromatic.
func parseGraph(s string) (*Mol, []bool, error) {
	p := &parser{s: s, m: &Mol{}, rings: map[int]ringOpen{}}
	if err := p.parse(); err != nil {
		return nil, nil, err
	}
	return p.m, p.arom, nil
}

func (p *parser) parse() error {
	s := p.s
	if len(s) == 0 {
		return &ParseError{SMILES: s, Msg: "empty SMILES"}
	}
	prev := -1         // atom the next one bonds to
	var stack []int    // branch stack of atoms
	var stackCol []int // column of each '('
	var bo BondOrder   // pending bond order (0: default)
	var dir byte       // pending '/' or '\'
	bondCol := 0       // column of the pending bond symbol
	dot := false       // pending '.'
	for p.pos < len(s) {
		c := s[p.pos]
		col := p.pos + 1
		switch {
		case c == '(':
			if prev < 0 {
				return p.errf(col, "branch with no atom before it")
			}
			if bo != 0 || dir != 0 || dot {
				return p.errf(col, "bond symbol before a branch")
			}
			stack = append(stack, prev)
			stackCol = append(stackCol, col)
			p.pos++
			if p.pos < len(s) && s[p.pos] == ')' {
				return p.errf(col+1, "empty branch")
			}
		case c == ')':
			if len(stack) == 0 {
				return p.errf(col, "unmatched ')'")
			}
			if bo != 0 || dir != 0 || dot {
				return p.errf(bondCol, "bond symbol with no atom after it")
			}
			prev = stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			stackCol = stackCol[:len(stackCol)-1]
			p.pos++
		case c == '-' || c == '=' || c == '#' || c == '$' || c == ':' || c == '/' || c == '\\':
			if prev < 0 {
				return p.errf(col, "bond with no atom before it")
			}
			if bo != 0 || dir != 0 || dot {
				return p.errf(col, "two bond symbols in a row")
			}
			bondCol = col
			switch c {
			case '-':
				bo = Single
			case '=':
				bo = Double
			case '#':
				bo = Triple
			case '$':
				bo = Quadruple
			case ':':
				bo = Aromatic
			case '/', '\\':
				bo, dir = Single, c
			}
			p.pos++
		case c == '.':
			if prev < 0 || bo != 0 || dir != 0 || dot {
				return p.errf(col, "misplaced '.'")
			}
			dot = true
			bondCol = col
			p.pos++
		case c >= '0' && c <= '9' || c == '%':
			if prev < 0 {
				return p.errf(col, "ring-closure digit with no atom before it")
			}
			if dot {
				return p.errf(col, "ring-closure digit after '.'")
			}
			num, err := p.ringNumber()
			if err != nil {
				return err
			}
			if err := p.ringBond(prev, num, bo, dir, col); err != nil {
				return err
			}
			bo, dir = 0, 0
		default:
			a, err := p.atom()
			if err != nil {
				return err
			}
			if prev >= 0 && !dot {
				if err := p.bond(prev, a, bo, dir, bondCol); err != nil {
					return err
				}
			}
			bo, dir, dot = 0, 0, false
			prev = a
		}
	}
	if len(stack) > 0 {
		return p.errf(stackCol[len(stackCol)-1], "unclosed branch")
	}
	if bo != 0 || dir != 0 || dot {
		return p.errf(bondCol, "bond symbol with no atom after it")
	}
	minCol, any := 0, false
	for _, r := range p.rings {
		if !any || r.col < minCol {
			minCol, any = r.col, true
		}
	}
	if any {
		return p.errf(minCol, "unclosed ring")
	}
	return nil
}

func (p *parser) ringNumber() (int, error) {
	s, col := p.s, p.pos+1
	if s[p.pos] != '%' {
		n := int(s[p.pos] - '0')
		p.pos++
		return n, nil
	}
	p.pos++
	if p.pos < len(s) && s[p.pos] == '(' {
		end := p.pos + 1
		for end < len(s) && s[end] >= '0' && s[end] <= '9' {
			end++
		}
		if end == p.pos+1 || end >= len(s) || s[end] != ')' || end-p.pos-1 > 5 {
			return 0, p.errf(col, "bad ring-closure number")
		}
		n, _ := strconv.Atoi(s[p.pos+1 : end])
		p.pos = end + 1
		return n, nil
	}
	if p.pos+2 > len(s) || !isDigit(s[p.pos]) || !isDigit(s[p.pos+1]) {
		return 0, p.errf(col, "'%%' must be followed by two digits")
	}
	n := int(s[p.pos]-'0')*10 + int(s[p.pos+1]-'0')
	p.pos += 2
	return n, nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (p *parser) ringBond(a, num int, bo BondOrder, dir byte, col int) error {
	r, open := p.rings[num]
	if !open {
		at := &p.m.Atoms[a]
		at.order = append(at.order, -2) // filled when the ring closes
		p.rings[num] = ringOpen{atom: a, order: bo, dir: dir, col: col, slot: len(at.order) - 1}
		return nil
	}
	delete(p.rings, num)
	if r.atom == a {
		return p.errf(col, "ring closure %d bonds an atom to itself", num)
	}
	if p.m.BondBetween(r.atom, a) >= 0 {
		return p.errf(col, "ring closure %d duplicates a bond", num)
	}
	if r.order != 0 && bo != 0 && r.order != bo {
		return p.errf(col, "ring closure %d has conflicting bond orders", num)
	}
	if bo == 0 {
		bo = r.order
	}
	d := dir
	if d == 0 && r.dir != 0 {
		// a direction written at the opening digit reads from the opening atom
		d = flipDir(r.dir)
	}
	p.m.Atoms[r.atom].order[r.slot] = a
	p.m.Atoms[a].order = append(p.m.Atoms[a].order, r.atom)
	p.addBond(a, r.atom, bo, d)
	return nil
}

func flipDir(d byte) byte {
	switch d {
	case '/':
		return '\\'
	case '\\':
		return '/'
	}
	return d
}

func (p *parser) bond(a, b int, bo BondOrder, dir byte, col int) error {
	if a == b {
		return p.errf(col, "bond to itself")
	}
	p.m.Atoms[a].order = append(p.m.Atoms[a].order, b)
	// b's first neighbour is a: put it before any H already listed
	ob := p.m.Atoms[b].order
	p.m.Atoms[b].order = append([]int{a}, ob...)
	p.addBond(a, b, bo, dir)
	return nil
}

func (p *parser) addBond(a, b int, bo BondOrder, dir byte) {
	explicit := bo != 0
	if bo == 0 {
		bo = Single
		if p.arom[a] && p.arom[b] {
			bo = Aromatic
		}
	}
	p.m.addBond(a, b, bo, dir)
	p.explicit = append(p.explicit, explicit)
}

// atom reads one organic-subset or bracket atom and appends it.
func (p *parser) atom() (int, error) {
	s, col := p.s, p.pos+1
	var at Atom
	arom := false
	if s[p.pos] == '[' {
		end := p.pos + 1
		for end < len(s) && s[end] != ']' {
			if s[end] == '[' {
				return 0, p.errf(end+1, "'[' inside a bracket atom")
			}
			end++
		}
		if end >= len(s) {
			return 0, p.errf(col, "unclosed '['")
		}
		var err error
		at, arom, err = p.bracket(p.pos+1, end)
		if err != nil {
			return 0, err
		}
		p.pos = end + 1
	} else {
		sym := s[p.pos : p.pos+1]
		if p.pos+1 < len(s) && (sym == "C" && s[p.pos+1] == 'l' || sym == "B" && s[p.pos+1] == 'r') {
			sym = s[p.pos : p.pos+2]
		}
		if z, ok := organic[sym]; ok {
			at.Z = z
		} else if z, ok := aromaticOrganic[sym]; ok {
			at.Z, arom = z, true
		} else {
			return 0, p.errf(col, "unexpected character %q", s[p.pos])
		}
		p.pos += len(sym)
	}
	at.Aromatic = arom
	p.m.Atoms = append(p.m.Atoms, at)
	p.m.adj = append(p.m.adj, nil)
	p.arom = append(p.arom, arom)
	return len(p.m.Atoms) - 1, nil
}

// bracket parses s[i:end] (inside the brackets): isotope, symbol, chirality, H count, charge, map.
func (p *parser) bracket(i, end int) (Atom, bool, error) {
	s := p.s
	at := Atom{Bracket: true}
	arom := false
	j := i
	for j < end && isDigit(s[j]) {
		j++
	}
	if j > i {
		if j-i > 4 {
			return at, false, p.errf(i+1, "isotope too large")
		}
		at.Isotope, _ = strconv.Atoi(s[i:j])
		if at.Isotope == 0 {
			at.Isotope = 0
		}
	}
	if j >= end {
		return at, false, p.errf(j+1, "bracket atom with no element")
	}
	// element symbol: two letters first
	matched := false
	if j+1 < end {
		two := s[j : j+2]
		if z, ok := symbolZ[two]; ok {
			at.Z, j, matched = z, j+2, true
		} else if z, ok := aromaticBracket[two]; ok {
			at.Z, arom, j, matched = z, true, j+2, true
		}
	}
	if !matched {
		one := s[j : j+1]
		if one == "*" {
			at.Z, matched = 0, true
		} else if z, ok := symbolZ[one]; ok {
			at.Z, matched = z, true
		} else if z, ok := aromaticBracket[one]; ok {
			at.Z, arom, matched = z, true, true
		}
		if !matched {
			return at, false, p.errf(j+1, "unknown element in bracket atom")
		}
		j++
	}
	if j < end && s[j] == '@' {
		k := j + 1
		if k < end && s[k] == '@' {
			at.Chiral = ChiralCW
			k++
		} else if k+1 < end && (s[k:k+2] == "TH" || s[k:k+2] == "AL" || s[k:k+2] == "SP" || s[k:k+2] == "TB" || s[k:k+2] == "OH") {
			k += 2
			for k < end && isDigit(s[k]) {
				k++
			}
			at.ChiralOther = s[j:k]
		} else {
			at.Chiral = ChiralCCW
		}
		j = k
	}
	if j < end && s[j] == 'H' {
		j++
		at.ExplicitH = 1
		if j < end && isDigit(s[j]) {
			at.ExplicitH = int(s[j] - '0')
			j++
		}
		at.order = append(at.order, -1)
	}
	if j < end && (s[j] == '+' || s[j] == '-') {
		sign := 1
		if s[j] == '-' {
			sign = -1
		}
		c := s[j]
		j++
		n := 1
		if j < end && isDigit(s[j]) {
			k := j
			for k < end && isDigit(s[k]) {
				k++
			}
			if k-j > 2 {
				return at, false, p.errf(j+1, "charge too large")
			}
			n, _ = strconv.Atoi(s[j:k])
			j = k
		} else {
			for j < end && s[j] == c {
				n++
				j++
			}
		}
		at.Charge = sign * n
	}
	if j < end && s[j] == ':' {
		k := j + 1
		for k < end && isDigit(s[k]) {
			k++
		}
		if k == j+1 || k-j-1 > 6 {
			return at, false, p.errf(j+1, "bad atom-map number")
		}
		at.Map, _ = strconv.Atoi(s[j+1 : k])
		j = k
	}
	if j != end {
		return at, false, p.errf(j+1, "unexpected character %q in bracket atom", s[j])
	}
	return at, arom, nil
}
