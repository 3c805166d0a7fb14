package nlp

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
)

// TagSentence is one sentence for sequence labelling: its tokens and one
// tag per token. File and Line say where it starts (for messages).
type TagSentence struct {
	Tokens []string
	Tags   []string
	File   string
	Line   int
}

// CoNLLOptions configure ReadCoNLL.
type CoNLLOptions struct {
	// TagColumn is the column holding the tag, counting from 0; negative
	// counts from the end (default -1: the last, as CoNLL-2003's NER column).
	TagColumn int
	// Scheme, when set ("BIO" = IOB2, "BIOES" = IOBES, "IOB1"), checks every
	// tag: O, or a prefix the scheme allows followed by "-" and a type.
	Scheme string
}

// ReadCoNLL reads a CoNLL-style file: one token per line, columns split by
// tabs or spaces, the token in the first column and the tag in
// o.TagColumn; a blank line ends a sentence; `-DOCSTART-` lines are
// skipped. A line with fewer columns
// than the tag needs, or a tag outside the scheme, is an error naming
// file:line.
func ReadCoNLL(path string, o CoNLLOptions) ([]TagSentence, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read conll: %w", err)
	}
	defer f.Close()
	return ParseCoNLL(f, path, o)
}

// ParseCoNLL is ReadCoNLL over a reader; name is used in messages.
func ParseCoNLL(r io.Reader, name string, o CoNLLOptions) ([]TagSentence, error) {
	if o.TagColumn == 0 {
		o.TagColumn = -1
	}
	check, err := schemeChecker(o.Scheme)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var out []TagSentence
	cur := TagSentence{File: name}
	flush := func() {
		if len(cur.Tokens) > 0 {
			out = append(out, cur)
		}
		cur = TagSentence{File: name}
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for ln := 1; sc.Scan(); ln++ {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			flush()
			continue
		}
		cols := strings.Fields(line)
		if cols[0] == "-DOCSTART-" {
			continue
		}
		i := o.TagColumn
		if i < 0 {
			i += len(cols)
		}
		if len(cols) < 2 || i < 1 || i >= len(cols) {
			return nil, fmt.Errorf("%s:%d: want a token and a tag (column %d), got %d column(s): %q", name, ln, o.TagColumn, len(cols), line)
		}
		if !check(cols[i]) {
			return nil, fmt.Errorf("%s:%d: tag %q is not a %s tag (O, or a prefix and a type such as B-PER)", name, ln, cols[i], o.Scheme)
		}
		if len(cur.Tokens) == 0 {
			cur.Line = ln
		}
		cur.Tokens = append(cur.Tokens, cols[0])
		cur.Tags = append(cur.Tags, cols[i])
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	flush()
	return out, nil
}

// schemeChecker returns a tag validator for scheme ("" accepts any tag).
func schemeChecker(scheme string) (func(string) bool, error) {
	var prefixes string
	switch strings.ToUpper(scheme) {
	case "":
		return func(string) bool { return true }, nil
	case "BIO", "IOB2", "IOB1", "IOB":
		prefixes = "BI"
	case "BIOES", "IOBES":
		prefixes = "BIES"
	case "BILOU":
		prefixes = "BILU"
	default:
		return nil, fmt.Errorf("unknown tag scheme %q (want BIO, BIOES or BILOU)", scheme)
	}
	return func(t string) bool {
		return t == "O" || (len(t) > 2 && t[1] == '-' && strings.IndexByte(prefixes, t[0]) >= 0)
	}, nil
}

// WriteCoNLL writes sentences as `token<TAB>tag` lines with a blank line
// after each sentence.
func WriteCoNLL(w io.Writer, sents []TagSentence) error {
	bw := bufio.NewWriter(w)
	for _, s := range sents {
		for i, t := range s.Tokens {
			fmt.Fprintf(bw, "%s\t%s\n", t, s.Tags[i])
		}
		bw.WriteString("\n")
	}
	return bw.Flush()
}
