package tokenizer

import (
	"strings"
	"unicode/utf8"
)

// span is a half-open byte range of the original input.
type span struct{ s, e int }

// normStr is a piece of text being normalized, with, for every byte of the
// normalized form, the original byte range it came from (Hugging Face's
// NormalizedString, with absolute original offsets).
type normStr struct {
	s  string
	al []span
}

// newNormStr returns text unchanged, aligned to original offsets base.
func newNormStr(text string, base int) *normStr {
	al := make([]span, len(text))
	for i := 0; i < len(text); {
		_, n := utf8.DecodeRuneInString(text[i:]) // a real U+FFFD is 3 bytes, an invalid byte 1
		for j := 0; j < n; j++ {
			al[i+j] = span{base + i, base + i + n}
		}
		i += n
	}
	return &normStr{s: text, al: al}
}

// change is one character of a transformation and how it relates to the old
// string: 0 replaces the next old char, +1 is inserted, -n replaces the next
// old char and removes the n following ones.
type change struct {
	r rune
	d int
}

// transform rewrites the whole string; initial old chars are removed first.
func (n *normStr) transform(dest []change, initial int) {
	n.transformRange(0, len(n.s), dest, initial)
}

// transformRange rewrites n.s[a:b] as dest, exactly as Hugging Face's
// NormalizedString::transform_range updates alignments.
func (n *normStr) transformRange(a, b int, dest []change, initial int) {
	old := n.s[a:b]
	pos := 0 // byte position in old of the next char to consume
	next := func() int {
		if pos >= len(old) {
			return 0
		}
		_, sz := utf8.DecodeRuneInString(old[pos:])
		pos += sz
		return sz
	}
	for i := 0; i < initial; i++ {
		next()
	}
	var sb strings.Builder
	sb.Grow(len(old))
	al := make([]span, 0, len(old))
	for _, c := range dest {
		idx := a + pos
		var align span
		if c.d > 0 {
			if idx >= 1 {
				align = n.al[idx-1]
			}
		} else {
			align = n.al[idx]
			next()
			for k := 0; k < -c.d; k++ {
				next()
			}
		}
		sz := utf8.RuneLen(c.r)
		sb.WriteRune(c.r)
		for k := 0; k < sz; k++ {
			al = append(al, align)
		}
	}
	ns := n.s[:a] + sb.String() + n.s[b:]
	nal := make([]span, 0, a+len(al)+len(n.al)-b)
	nal = append(nal, n.al[:a]...)
	nal = append(nal, al...)
	nal = append(nal, n.al[b:]...)
	n.s, n.al = ns, nal
}

// slice returns the normalized bytes [a, b) as a new normStr.
func (n *normStr) slice(a, b int) *normStr {
	return &normStr{s: n.s[a:b], al: n.al[a:b]}
}

// origRange maps normalized bytes [a, b) to original bytes.
func (n *normStr) origRange(a, b int) (int, int, bool) {
	if a == b || a > b || b > len(n.al) {
		return a, b, false
	}
	return n.al[a].s, n.al[b-1].e, true
}

// mapRunes applies f to every char (one for one). When no char changes its
// UTF-8 width, the bytes are rewritten in place: every byte of a char has the
// char's alignment, so the alignments stay exactly what transform would give.
func (n *normStr) mapRunes(f func(rune) rune) {
	same, changed := true, false
	for _, r := range n.s {
		m := f(r)
		if m != r {
			changed = true
			if utf8.RuneLen(m) != utf8.RuneLen(r) {
				same = false
				break
			}
		}
	}
	if !changed {
		return
	}
	if same {
		b := make([]byte, 0, len(n.s))
		for _, r := range n.s {
			b = utf8.AppendRune(b, f(r))
		}
		n.s = string(b)
		return
	}
	dest := make([]change, 0, len(n.s))
	for _, r := range n.s {
		dest = append(dest, change{f(r), 0})
	}
	n.transform(dest, 0)
}

// filter keeps the chars for which keep is true.
func (n *normStr) filter(keep func(rune) bool) {
	all := true
	for _, r := range n.s {
		if !keep(r) {
			all = false
			break
		}
	}
	if all {
		return
	}
	dest := make([]change, 0, len(n.s))
	removed, removedStart := 0, 0
	var last rune
	have := false
	for _, r := range n.s {
		if keep(r) {
			if have {
				dest = append(dest, change{last, -removed})
			} else {
				removedStart = removed
			}
			last, have, removed = r, true, 0
		} else {
			removed++
		}
	}
	if have {
		dest = append(dest, change{last, -removed})
	} else {
		removedStart = removed
	}
	n.transform(dest, removedStart)
}

// prepend inserts s before the first char (nothing when empty).
func (n *normStr) prepend(s string) {
	if n.s == "" {
		return
	}
	first, sz := utf8.DecodeRuneInString(n.s)
	var dest []change
	i := 0
	for _, r := range s {
		d := 0
		if i > 0 {
			d = 1
		}
		dest = append(dest, change{r, d})
		i++
	}
	dest = append(dest, change{first, 1})
	n.transformRange(0, sz, dest, 0)
}

// appendStr adds s after the last char.
func (n *normStr) appendStr(s string) {
	if n.s == "" {
		var dest []change
		for _, r := range s {
			dest = append(dest, change{r, 1})
		}
		n.transform(dest, 0)
		return
	}
	last, sz := utf8.DecodeLastRuneInString(n.s)
	dest := []change{{last, 0}}
	for _, r := range s {
		dest = append(dest, change{r, 1})
	}
	n.transformRange(len(n.s)-sz, len(n.s), dest, 0)
}

// replaceMatches replaces every match [s,e) (sorted, disjoint) by content;
// the new chars take the alignment of the match's last byte, as HF does.
func (n *normStr) replaceMatches(ms [][2]int, content string) {
	if len(ms) == 0 {
		return
	}
	var sb strings.Builder
	al := make([]span, 0, len(n.al))
	last := 0
	for _, m := range ms {
		sb.WriteString(n.s[last:m[0]])
		al = append(al, n.al[last:m[0]]...)
		align := n.al[m[1]-1]
		for _, r := range content {
			sb.WriteRune(r)
			for k := 0; k < utf8.RuneLen(r); k++ {
				al = append(al, align)
			}
		}
		last = m[1]
	}
	sb.WriteString(n.s[last:])
	al = append(al, n.al[last:]...)
	n.s, n.al = sb.String(), al
}

// strip removes leading and/or trailing whitespace.
func (n *normStr) strip(left, right bool) {
	rs := []rune(n.s)
	lead, trail := 0, 0
	if left {
		for lead < len(rs) && isWhitespace(rs[lead]) {
			lead++
		}
	}
	if right {
		for trail < len(rs)-lead && isWhitespace(rs[len(rs)-1-trail]) {
			trail++
		}
	}
	if lead == 0 && trail == 0 {
		return
	}
	var dest []change
	for i := lead; i < len(rs)-trail; i++ {
		d := 0
		if i == len(rs)-trail-1 {
			d = -trail
		}
		dest = append(dest, change{rs[i], d})
	}
	n.transform(dest, lead)
}

// split cuts the string at the pattern's matches with the given behaviour,
// dropping empty pieces.
func (n *normStr) split(ms []match, b splitBehavior) []*normStr {
	type cut struct {
		s, e   int
		remove bool
	}
	var cuts []cut
	switch b {
	case splitIsolated:
		for _, m := range ms {
			cuts = append(cuts, cut{m.s, m.e, false})
		}
	case splitRemoved:
		for _, m := range ms {
			cuts = append(cuts, cut{m.s, m.e, m.isMatch})
		}
	case splitContiguous:
		prev := false
		for _, m := range ms {
			if m.isMatch == prev && len(cuts) > 0 {
				cuts[len(cuts)-1].e = m.e
			} else {
				cuts = append(cuts, cut{m.s, m.e, false})
			}
			prev = m.isMatch
		}
	case splitMergedWithPrevious:
		prev := false
		for _, m := range ms {
			if m.isMatch && !prev && len(cuts) > 0 {
				cuts[len(cuts)-1].e = m.e
			} else {
				cuts = append(cuts, cut{m.s, m.e, false})
			}
			prev = m.isMatch
		}
	case splitMergedWithNext:
		prev := false
		for i := len(ms) - 1; i >= 0; i-- {
			m := ms[i]
			if m.isMatch && !prev && len(cuts) > 0 {
				cuts[len(cuts)-1].s = m.s
			} else {
				cuts = append(cuts, cut{m.s, m.e, false})
			}
			prev = m.isMatch
		}
		for i, j := 0, len(cuts)-1; i < j; i, j = i+1, j-1 {
			cuts[i], cuts[j] = cuts[j], cuts[i]
		}
	}
	out := make([]*normStr, 0, len(cuts))
	for _, c := range cuts {
		if !c.remove && c.e > c.s {
			out = append(out, n.slice(c.s, c.e))
		}
	}
	return out
}

// match is one piece of a pattern's segmentation of a string: the pieces
// cover it entirely, isMatch marks the pattern's matches.
type match struct {
	s, e    int
	isMatch bool
}

// segment turns sorted match ranges into a full segmentation of a string of length n.
func segment(spans [][2]int, n int) []match {
	if n == 0 {
		return []match{{0, 0, false}}
	}
	out := make([]match, 0, 2*len(spans)+1)
	prev := 0
	for _, m := range spans {
		if prev != m[0] {
			out = append(out, match{prev, m[0], false})
		}
		out = append(out, match{m[0], m[1], true})
		prev = m[1]
	}
	if prev != n {
		out = append(out, match{prev, n, false})
	}
	return out
}

// charMatches segments s at every char for which f is true.
func charMatches(s string, f func(rune) bool) []match {
	if s == "" {
		return []match{{0, 0, false}}
	}
	var out []match
	last := 0
	for i, r := range s {
		if f(r) {
			sz := utf8.RuneLen(r)
			if sz < 0 {
				sz = 1
			}
			if last < i {
				out = append(out, match{last, i, false})
			}
			out = append(out, match{i, i + sz, true})
			last = i + sz
		}
	}
	if last < len(s) {
		out = append(out, match{last, len(s), false})
	}
	return out
}

func invertMatches(ms []match) []match {
	out := make([]match, len(ms))
	for i, m := range ms {
		out[i] = match{m.s, m.e, !m.isMatch}
	}
	return out
}
