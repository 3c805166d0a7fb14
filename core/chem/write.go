package chem

import (
	"slices"
	"sort"
	"strconv"
	"strings"
)

// canonicalRanks orders atoms by refined graph invariants; ties between
// symmetric atoms are broken one at a time, refining again after each.
func (m *Mol) canonicalRanks() []int {
	n := len(m.Atoms)
	ri := m.ringInfo()
	keys := make([]string, n)
	for i := range m.Atoms {
		a := &m.Atoms[i]
		ring := 0
		if ri.atomInRing[i] {
			ring = 1
		}
		arom := 0
		if a.Aromatic {
			arom = 1
		}
		keys[i] = strconv.Itoa(a.Z) + "," + strconv.Itoa(a.Isotope) + "," + strconv.Itoa(a.Charge) + "," +
			strconv.Itoa(a.TotalH()) + "," + strconv.Itoa(len(m.adj[i])) + "," + strconv.Itoa(arom) + "," +
			strconv.Itoa(ring) + "," + strconv.Itoa(a.Map)
	}
	rank := rankKeys(keys)
	keys2 := make([][]int, n)
	refine := func() {
		classes := countClasses(rank)
		for {
			for i := range m.Atoms {
				k := keys2[i][:0]
				k = append(k, rank[i])
				start := len(k)
				for _, b := range m.adj[i] {
					k = append(k, int(m.Bonds[b].Order)<<24|rank[m.Bonds[b].Other(i)])
				}
				sort.Ints(k[start:])
				keys2[i] = k
			}
			rank = rankSlices(keys2)
			c := countClasses(rank)
			if c == classes {
				return
			}
			classes = c
		}
	}
	refine()
	for countClasses(rank) < n {
		// break the lowest tie: the first atom of that class goes first
		cnt := map[int]int{}
		for _, r := range rank {
			cnt[r]++
		}
		best := -1
		for i, r := range rank {
			if cnt[r] > 1 && (best < 0 || r < rank[best]) {
				best = i
			}
		}
		k := make([]string, n)
		for i, r := range rank {
			s := 2 * r
			if i == best {
				s = 2*r - 1
			}
			k[i] = strconv.Itoa(s + 2)
		}
		rank = rankKeysNumeric(k)
		refine()
	}
	return rank
}

func countClasses(rank []int) int {
	seen := make([]bool, len(rank)+1)
	c := 0
	for _, r := range rank {
		if !seen[r] {
			seen[r] = true
			c++
		}
	}
	return c
}

// rankSlices gives equal keys equal ranks 0..k-1 in lexicographic key order.
func rankSlices(keys [][]int) []int {
	idx := make([]int, len(keys))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return slices.Compare(keys[idx[a]], keys[idx[b]]) < 0 })
	r := make([]int, len(keys))
	rk := 0
	for j, i := range idx {
		if j > 0 && slices.Compare(keys[idx[j-1]], keys[i]) != 0 {
			rk++
		}
		r[i] = rk
	}
	return r
}

// rankKeys gives equal keys equal ranks 0..k-1 in sorted key order.
func rankKeys(keys []string) []int {
	u := append([]string(nil), keys...)
	sort.Strings(u)
	idx := map[string]int{}
	for _, k := range u {
		if _, ok := idx[k]; !ok {
			idx[k] = len(idx)
		}
	}
	r := make([]int, len(keys))
	for i, k := range keys {
		r[i] = idx[k]
	}
	return r
}

func rankKeysNumeric(keys []string) []int {
	vals := make([]int, len(keys))
	for i, k := range keys {
		vals[i], _ = strconv.Atoi(k)
	}
	u := append([]int(nil), vals...)
	sort.Ints(u)
	idx := map[int]int{}
	for _, v := range u {
		if _, ok := idx[v]; !ok {
			idx[v] = len(idx)
		}
	}
	r := make([]int, len(vals))
	for i, v := range vals {
		r[i] = idx[v]
	}
	return r
}

// SMILES writes the molecule as a canonical SMILES string in this package's
// own canonical order (not RDKit's string): aromatic atoms lowercase,
// tetrahedral @/@@ kept (re-oriented to the written neighbour order),
// cis/trans double bonds written with / and \ on chain bonds (a double bond
// whose neighbours are reached only by ring closures loses its marks).
// Parsing the result gives the same graph, and the same string again.
func (m *Mol) SMILES() string {
	n := len(m.Atoms)
	if n == 0 {
		return ""
	}
	rank := m.canonicalRanks()
	visited := make([]bool, n)
	var sb strings.Builder
	// components in order of their lowest-ranked atom
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(x, y int) bool { return rank[order[x]] < rank[order[y]] })
	first := true
	for _, start := range order {
		if visited[start] {
			continue
		}
		if !first {
			sb.WriteByte('.')
		}
		first = false
		m.writeComponent(&sb, start, rank, visited)
	}
	return sb.String()
}

func (m *Mol) sortedNbrBonds(i int, rank []int) []int {
	bs := append([]int(nil), m.adj[i]...)
	sort.Slice(bs, func(x, y int) bool { return rank[m.Bonds[bs[x]].Other(i)] < rank[m.Bonds[bs[y]].Other(i)] })
	return bs
}

func (m *Mol) writeComponent(sb *strings.Builder, start int, rank []int, visited []bool) {
	// pass 1: DFS tree; non-tree bonds are ring closures
	n := len(m.Atoms)
	parentBond := make([]int, n)
	children := make([][]int, n) // tree bonds in visiting order
	closeAt := make([][]int, n)  // ring bonds opened at atom (first visited end)
	isTree := map[int]bool{}
	seenBond := map[int]bool{}
	var dfs func(v, pb int)
	dfs = func(v, pb int) {
		visited[v] = true
		parentBond[v] = pb
		for _, b := range m.sortedNbrBonds(v, rank) {
			if b == pb || seenBond[b] {
				continue
			}
			w := m.Bonds[b].Other(v)
			seenBond[b] = true
			if visited[w] {
				closeAt[w] = append(closeAt[w], b) // w opens the ring, v closes it
				continue
			}
			isTree[b] = true
			children[v] = append(children[v], b)
			dfs(w, b)
		}
	}
	var order []int
	var walk func(v int)
	walk = func(v int) {
		order = append(order, v)
		for _, b := range children[v] {
			walk(m.Bonds[b].Other(v))
		}
	}
	dfs(start, -1)
	walk(start)
	dirs := m.outputDirs(order, parentBond)
	// pass 2: emit
	digitOf := map[int]int{}
	inUse := map[int]bool{}
	var emit func(v int)
	emit = func(v int) {
		var written []int // neighbour order as written, for chirality
		if pb := parentBond[v]; pb >= 0 {
			written = append(written, m.Bonds[pb].Other(v))
		}
		a := &m.Atoms[v]
		if a.TotalH() > 0 && a.Chiral != ChiralNone {
			written = append(written, -1)
		}
		var ring strings.Builder
		// closures ending here first, then openings
		var closing []int
		for _, b := range m.adj[v] {
			if _, ok := digitOf[b]; ok {
				closing = append(closing, b)
			}
		}
		sort.Slice(closing, func(x, y int) bool { return digitOf[closing[x]] < digitOf[closing[y]] })
		for _, b := range closing {
			d := digitOf[b]
			delete(digitOf, b)
			inUse[d] = false
			ring.WriteString(ringDigit(d))
			written = append(written, m.Bonds[b].Other(v))
		}
		for _, b := range closeAt[v] {
			d := 1
			for inUse[d] {
				d++
			}
			inUse[d] = true
			digitOf[b] = d
			ring.WriteString(m.bondSymbol(b))
			ring.WriteString(ringDigit(d))
			written = append(written, m.Bonds[b].Other(v))
		}
		for _, b := range children[v] {
			written = append(written, m.Bonds[b].Other(v))
		}
		sb.WriteString(m.atomText(v, written))
		sb.WriteString(ring.String())
		for k, b := range children[v] {
			last := k == len(children[v])-1
			if !last {
				sb.WriteByte('(')
			}
			if d, ok := dirs[b]; ok {
				sb.WriteByte(d)
			} else {
				sb.WriteString(m.bondSymbol(b))
			}
			emit(m.Bonds[b].Other(v))
			if !last {
				sb.WriteByte(')')
			}
		}
	}
	emit(start)
}

func ringDigit(d int) string {
	if d < 10 {
		return strconv.Itoa(d)
	}
	return "%" + strconv.Itoa(d)
}

func (m *Mol) bondSymbol(k int) string {
	b := &m.Bonds[k]
	switch b.Order {
	case Double:
		return "="
	case Triple:
		return "#"
	case Quadruple:
		return "$"
	case Single:
		if m.Atoms[b.A].Aromatic && m.Atoms[b.B].Aromatic {
			return "-"
		}
	case Aromatic:
		if !m.Atoms[b.A].Aromatic || !m.Atoms[b.B].Aromatic {
			return ":"
		}
	}
	return ""
}

// atomText writes atom i; written is its neighbour order in the output (-1: H).
func (m *Mol) atomText(i int, written []int) string {
	a := &m.Atoms[i]
	sym := elementSymbol(a.Z)
	if a.Aromatic {
		sym = strings.ToLower(sym)
	}
	chiral := a.Chiral
	if chiral != ChiralNone && a.order != nil && permutationOdd(a.order, written) {
		chiral = 3 - chiral
	}
	if a.Isotope == 0 && a.Charge == 0 && a.Map == 0 && chiral == ChiralNone && a.ChiralOther == "" && organicWritable(a) {
		// would a reader give it the same hydrogens?
		probe := *a
		probe.Bracket, probe.ExplicitH, probe.ImplicitH = false, 0, 0
		saved := m.Atoms[i]
		m.Atoms[i] = probe
		h, _ := m.implicitH(i, false)
		m.Atoms[i] = saved
		if h == a.TotalH() {
			return sym
		}
	}
	var sb strings.Builder
	sb.WriteByte('[')
	if a.Isotope > 0 {
		sb.WriteString(strconv.Itoa(a.Isotope))
	}
	sb.WriteString(sym)
	switch {
	case a.ChiralOther != "":
		sb.WriteString(a.ChiralOther)
	case chiral == ChiralCCW:
		sb.WriteString("@")
	case chiral == ChiralCW:
		sb.WriteString("@@")
	}
	if h := a.TotalH(); h > 0 {
		sb.WriteByte('H')
		if h > 1 {
			sb.WriteString(strconv.Itoa(h))
		}
	}
	switch {
	case a.Charge == 1:
		sb.WriteByte('+')
	case a.Charge == -1:
		sb.WriteByte('-')
	case a.Charge > 1:
		sb.WriteString("+" + strconv.Itoa(a.Charge))
	case a.Charge < -1:
		sb.WriteString("-" + strconv.Itoa(-a.Charge))
	}
	if a.Map > 0 {
		sb.WriteString(":" + strconv.Itoa(a.Map))
	}
	sb.WriteByte(']')
	return sb.String()
}

func organicWritable(a *Atom) bool {
	if a.Aromatic {
		_, ok := aromaticOrganic[strings.ToLower(elementSymbol(a.Z))]
		return ok
	}
	_, ok := organic[elementSymbol(a.Z)]
	return ok
}

// permutationOdd reports whether b is an odd permutation of a (same elements);
// when they differ as sets the tag is left alone.
func permutationOdd(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	pos := map[int]int{}
	for i, x := range a {
		pos[x] = i
	}
	p := make([]int, len(b))
	for i, x := range b {
		j, ok := pos[x]
		if !ok {
			return false
		}
		p[i] = j
	}
	odd := false
	seen := make([]bool, len(p))
	for i := range p {
		if seen[i] {
			continue
		}
		l := 0
		for j := i; !seen[j]; j = p[j] {
			seen[j] = true
			l++
		}
		if l%2 == 0 {
			odd = !odd
		}
	}
	return odd
}

// ClearStereo drops tetrahedral tags and double-bond direction marks.
func (m *Mol) ClearStereo() {
	for i := range m.Atoms {
		m.Atoms[i].Chiral, m.Atoms[i].ChiralOther = ChiralNone, ""
	}
	for k := range m.Bonds {
		m.Bonds[k].Dir = 0
	}
	m.stereo = nil
}
