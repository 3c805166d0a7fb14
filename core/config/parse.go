package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

var lineRE = regexp.MustCompile(`^(?:yaml: )?line (\d+): `)

// parse turns data into a root mapping node with aliases expanded, and
// remembers file as every node's origin.
func (l *loader) parse(file string, data []byte) (*yaml.Node, error) {
	var doc, next yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil && err != io.EOF {
		return nil, syntaxError(file, err)
	}
	if err := dec.Decode(&next); err != io.EOF {
		if err != nil {
			return nil, syntaxError(file, err)
		}
		return nil, &Error{File: file, Line: next.Line, Err: errors.New("more than one YAML document (---) in a config")}
	}
	var root *yaml.Node
	switch {
	case doc.Kind == 0: // empty file
		root = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	case doc.Kind == yaml.DocumentNode && len(doc.Content) == 1:
		root = doc.Content[0]
	default:
		root = &doc
	}
	if isNull(root) {
		root = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: root.Line}
	}
	if root.Kind != yaml.MappingNode {
		return nil, &Error{File: file, Line: root.Line, Err: fmt.Errorf("expected a map at the top, got %s", describe(root))}
	}
	budget := 1 << 20 // nodes alias expansion may create (guards "billion laughs")
	root, err := expand(root, &budget)
	if err != nil {
		return nil, &Error{File: file, Err: err}
	}
	if err := l.checkKeys(file, root, ""); err != nil {
		return nil, err
	}
	l.cfg.remember(root, file)
	return root, nil
}

// syntaxError turns a yaml.v3 parse error into an *Error with the line.
func syntaxError(file string, err error) *Error {
	msg := err.Error()
	if m := lineRE.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		if parserProblem(msg[len(m[0]):]) {
			line++ // yaml.v3 reports the parser's 0-based line for these
		}
		return &Error{File: file, Line: line, Err: errors.New(msg[len(m[0]):])}
	}
	return &Error{File: file, Err: errors.New(strings.TrimPrefix(msg, "yaml: "))}
}

// parserProblem reports whether msg comes from yaml.v3's parser (as opposed
// to its scanner), whose error lines are 0-based.
func parserProblem(msg string) bool {
	switch msg {
	case "did not find expected key", "did not find expected node content",
		"did not find expected ',' or ']'", "did not find expected ',' or '}'",
		"did not find expected '-' indicator", "did not find expected <document start>":
		return true
	}
	return false
}

// expand returns n with aliases replaced by copies of their anchors' nodes,
// `<<` merge keys resolved and anchors dropped.
func expand(n *yaml.Node, budget *int) (*yaml.Node, error) {
	if *budget--; *budget < 0 {
		return nil, errors.New("too many nodes after expanding aliases")
	}
	if n.Kind == yaml.AliasNode {
		cp := *n.Alias
		cp.Line, cp.Column = n.Line, n.Column
		return expand(&cp, budget)
	}
	out := *n
	out.Anchor = ""
	out.Content = make([]*yaml.Node, len(n.Content))
	for i, c := range n.Content {
		e, err := expand(c, budget)
		if err != nil {
			return nil, err
		}
		out.Content[i] = e
	}
	if out.Kind == yaml.MappingNode {
		resolveMergeKeys(&out)
	}
	return &out, nil
}

// resolveMergeKeys applies `<<: *base` (or a list of them): keys written in
// the map win, then earlier merged maps over later ones.
func resolveMergeKeys(n *yaml.Node) {
	var content []*yaml.Node
	have := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Tag != "!!merge" {
			have[n.Content[i].Value] = true
		}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Tag != "!!merge" {
			content = append(content, k, v)
			continue
		}
		srcs := []*yaml.Node{v}
		if v.Kind == yaml.SequenceNode {
			srcs = v.Content
		}
		for _, s := range srcs {
			for j := 0; s.Kind == yaml.MappingNode && j+1 < len(s.Content); j += 2 {
				if key := s.Content[j].Value; !have[key] {
					have[key] = true
					content = append(content, s.Content[j], s.Content[j+1])
				}
			}
		}
	}
	n.Content = content
}

// checkKeys reports a key given twice in one map.
func (l *loader) checkKeys(file string, n *yaml.Node, path string) error {
	switch n.Kind {
	case yaml.MappingNode:
		first := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			p := join(path, k.Value)
			if line, dup := first[k.Value]; dup {
				return &Error{File: file, Line: k.Line, Path: p, Err: fmt.Errorf("duplicate key (first at line %d)", line)}
			}
			first[k.Value] = k.Line
			if err := l.checkKeys(file, n.Content[i+1], p); err != nil {
				return err
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if err := l.checkKeys(file, c, join(path, strconv.Itoa(i))); err != nil {
				return err
			}
		}
	}
	return nil
}
