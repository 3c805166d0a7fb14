package chem

import (
	"fmt"
	"strconv"
)

// A small SMARTS subset for atom typing (Crippen's table): tree patterns of
// bracket or bare atoms with branches and bonds (- = # : ~, default single
// or aromatic), atom primitives #n, element symbols (aliphatic/aromatic),
// A, a, H<n>, X<n>, D<n>, charges, and the operators ! & , ; — no ring
// closures and no recursive SMARTS.

// qctx is what a query atom sees of a molecule atom.
type qatom struct {
	z, charge, h, x, d int
	arom               bool
}

type qnode struct {
	op   byte // 'p' primitive, '!' not, '&' and, ',' or
	kids []*qnode
	test func(a *qatom) bool
}

func (q *qnode) eval(a *qatom) bool {
	switch q.op {
	case 'p':
		return q.test(a)
	case '!':
		return !q.kids[0].eval(a)
	case '&':
		for _, k := range q.kids {
			if !k.eval(a) {
				return false
			}
		}
		return true
	default:
		for _, k := range q.kids {
			if k.eval(a) {
				return true
			}
		}
		return false
	}
}

type patAtom struct {
	q    *qnode
	nbrs []patEdge
}

type patEdge struct {
	bond byte // 0 default, '-', '=', '#', ':', '~'
	to   int
}

type pattern struct{ atoms []patAtom }

var elementSyms = []string{"Cl", "Br", "C", "N", "O", "S", "P", "F", "I", "B", "c", "n", "o", "s", "p"}

func symZ(s string) (int, bool) {
	switch s {
	case "c", "n", "o", "s", "p":
		return aromaticOrganic[s], true
	}
	return organic[s], false
}

func compileSMARTS(s string) (*pattern, error) {
	p := &pattern{}
	var stack []int
	prev := -1
	var bond byte
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '(':
			stack = append(stack, prev)
			i++
		case c == ')':
			if len(stack) == 0 {
				return nil, fmt.Errorf("smarts %q: unmatched ')'", s)
			}
			prev = stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			i++
		case c == '-' || c == '=' || c == '#' || c == ':' || c == '~':
			bond = c
			i++
		default:
			var q *qnode
			if c == '[' {
				end := i + 1
				for end < len(s) && s[end] != ']' {
					end++
				}
				if end >= len(s) {
					return nil, fmt.Errorf("smarts %q: unclosed '['", s)
				}
				var err error
				q, err = parseAtomExpr(s[i+1 : end])
				if err != nil {
					return nil, fmt.Errorf("smarts %q: %w", s, err)
				}
				i = end + 1
			} else {
				prim, n, err := parsePrimitive(s[i:])
				if err != nil {
					return nil, fmt.Errorf("smarts %q: %w", s, err)
				}
				q = prim
				i += n
			}
			p.atoms = append(p.atoms, patAtom{q: q})
			k := len(p.atoms) - 1
			if prev >= 0 {
				p.atoms[prev].nbrs = append(p.atoms[prev].nbrs, patEdge{bond, k})
			}
			prev, bond = k, 0
		}
	}
	return p, nil
}

// parseAtomExpr: ';' (low and) < ',' (or) < '&' and implicit (high and) < '!'.
func parseAtomExpr(s string) (*qnode, error) {
	pos := 0
	var low, or, high func() (*qnode, error)
	unary := func() (*qnode, error) {
		neg := false
		for pos < len(s) && s[pos] == '!' {
			neg = !neg
			pos++
		}
		q, n, err := parsePrimitive(s[pos:])
		if err != nil {
			return nil, err
		}
		pos += n
		if neg {
			return &qnode{op: '!', kids: []*qnode{q}}, nil
		}
		return q, nil
	}
	high = func() (*qnode, error) {
		q := &qnode{op: '&'}
		for {
			k, err := unary()
			if err != nil {
				return nil, err
			}
			q.kids = append(q.kids, k)
			if pos < len(s) && s[pos] == '&' {
				pos++
				continue
			}
			if pos >= len(s) || s[pos] == ',' || s[pos] == ';' {
				return q, nil
			}
		}
	}
	or = func() (*qnode, error) {
		q := &qnode{op: ','}
		for {
			k, err := high()
			if err != nil {
				return nil, err
			}
			q.kids = append(q.kids, k)
			if pos < len(s) && s[pos] == ',' {
				pos++
				continue
			}
			return q, nil
		}
	}
	low = func() (*qnode, error) {
		q := &qnode{op: '&'}
		for {
			k, err := or()
			if err != nil {
				return nil, err
			}
			q.kids = append(q.kids, k)
			if pos < len(s) && s[pos] == ';' {
				pos++
				continue
			}
			return q, nil
		}
	}
	q, err := low()
	if err == nil && pos != len(s) {
		err = fmt.Errorf("unexpected %q in [%s]", s[pos], s)
	}
	return q, err
}

func prim(f func(a *qatom) bool) *qnode { return &qnode{op: 'p', test: f} }

// parsePrimitive reads one primitive at the start of s; it returns the node and its length.
func parsePrimitive(s string) (*qnode, int, error) {
	if s == "" {
		return nil, 0, fmt.Errorf("missing atom primitive")
	}
	num := func(from int) (int, int, bool) {
		j := from
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if j == from {
			return 0, from, false
		}
		v, _ := strconv.Atoi(s[from:j])
		return v, j, true
	}
	switch c := s[0]; c {
	case '#':
		v, j, ok := num(1)
		if !ok {
			return nil, 0, fmt.Errorf("'#' without a number")
		}
		return prim(func(a *qatom) bool { return a.z == v }), j, nil
	case 'A':
		return prim(func(a *qatom) bool { return !a.arom }), 1, nil
	case 'a':
		return prim(func(a *qatom) bool { return a.arom }), 1, nil
	case 'H', 'X', 'D':
		v, j, ok := num(1)
		if !ok {
			v, j = 1, 1
		}
		switch c {
		case 'H':
			return prim(func(a *qatom) bool { return a.h == v }), j, nil
		case 'X':
			return prim(func(a *qatom) bool { return a.x == v }), j, nil
		}
		return prim(func(a *qatom) bool { return a.d == v }), j, nil
	case '+', '-':
		sign := 1
		if c == '-' {
			sign = -1
		}
		v, j, ok := num(1)
		if !ok {
			v, j = 1, 1
			for j < len(s) && s[j] == c {
				v++
				j++
			}
		}
		return prim(func(a *qatom) bool { return a.charge == sign*v }), j, nil
	}
	for _, sym := range elementSyms {
		if len(s) >= len(sym) && s[:len(sym)] == sym {
			z, arom := symZ(sym)
			return prim(func(a *qatom) bool { return a.z == z && a.arom == arom }), len(sym), nil
		}
	}
	return nil, 0, fmt.Errorf("unsupported SMARTS primitive at %q", s)
}

// matchAt reports whether the pattern matches with its first atom on atom i
// of a hydrogen-explicit molecule.
// used is scratch space of len(m.Atoms), all false on entry and on return.
func (p *pattern) matchAt(m *Mol, q []qatom, i int, used []bool) bool {
	if !p.atoms[0].q.eval(&q[i]) {
		return false
	}
	if len(p.atoms) == 1 {
		return true
	}
	used[i] = true
	// pending holds (pattern atom, molecule atom) pairs whose edges are still to match
	pending := make([][2]int, 1, len(p.atoms))
	pending[0] = [2]int{0, i}
	defer func() {
		for _, pa := range pending {
			used[pa[1]] = false
		}
	}()
	var solve func(idx, k int) bool
	solve = func(idx, k int) bool {
		if idx == len(pending) {
			return true
		}
		pa, at := pending[idx][0], pending[idx][1]
		if k == len(p.atoms[pa].nbrs) {
			return solve(idx+1, 0)
		}
		e := p.atoms[pa].nbrs[k]
		for _, b := range m.adj[at] {
			j := m.Bonds[b].Other(at)
			if used[j] || !bondMatches(e.bond, m.Bonds[b].Order) || !p.atoms[e.to].q.eval(&q[j]) {
				continue
			}
			used[j] = true
			pending = append(pending, [2]int{e.to, j})
			if solve(idx, k+1) {
				return true
			}
			pending = pending[:len(pending)-1]
			used[j] = false
		}
		return false
	}
	return solve(0, 0)
}

func bondMatches(q byte, o BondOrder) bool {
	switch q {
	case 0:
		return o == Single || o == Aromatic
	case '-':
		return o == Single
	case '=':
		return o == Double
	case '#':
		return o == Triple
	case ':':
		return o == Aromatic
	}
	return true
}
