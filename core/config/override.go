package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// OverrideError is a bad `-o Section.key=value`.
type OverrideError struct {
	Arg string // the override as given
	Err error
}

// Error formats the error as `-o "arg": message`.
func (e *OverrideError) Error() string { return fmt.Sprintf("-o %q: %v", e.Arg, e.Err) }

// Unwrap returns the underlying error.
func (e *OverrideError) Unwrap() error { return e.Err }

type override struct {
	arg   string
	segs  []string
	value *yaml.Node
}

// parseOverrides parses `Section.key.sub=value` arguments: the path is split
// on dots (list items by index), the value, after the first '=', is YAML.
func parseOverrides(args []string) ([]override, error) {
	ops := make([]override, 0, len(args))
	var errs []error
	for _, arg := range args {
		key, val, ok := strings.Cut(arg, "=")
		key = strings.TrimSpace(key)
		if !ok || key == "" {
			errs = append(errs, &OverrideError{arg, errors.New("want Section.key=value")})
			continue
		}
		segs := strings.Split(key, ".")
		if i := indexEmpty(segs); i >= 0 {
			errs = append(errs, &OverrideError{arg, fmt.Errorf("empty key in %q", key)})
			continue
		}
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(val), &doc); err != nil {
			errs = append(errs, &OverrideError{arg, fmt.Errorf("value: %s", lineRE.ReplaceAllString(yamlMessage(err), ""))})
			continue
		}
		v := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"} // `k=` sets null
		if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
			v = doc.Content[0]
		}
		budget := 1 << 16
		v, err := expand(v, &budget)
		if err != nil {
			errs = append(errs, &OverrideError{arg, fmt.Errorf("value: %w", err)})
			continue
		}
		zeroLines(v)
		ops = append(ops, override{arg, segs, v})
	}
	return ops, errors.Join(errs...)
}

func indexEmpty(segs []string) int {
	for i, s := range segs {
		if s == "" {
			return i
		}
	}
	return -1
}

func zeroLines(n *yaml.Node) {
	n.Line, n.Column = 0, 0
	for _, c := range n.Content {
		zeroLines(c)
	}
}

// apply sets each override in order. A path the config lacks must be known
// to the kit's schema (when there is one).
func (c *Config) apply(ops []override) error {
	var errs []error
	for _, op := range ops {
		if _, ok := c.Node(strings.Join(op.segs, ".")); !ok && c.Schema != nil {
			if err := c.knows(c.Schema, op.segs); err != nil {
				errs = append(errs, &OverrideError{op.arg, err})
				continue
			}
		}
		c.remember(op.value, "-o")
		if err := c.set(op.segs, op.value); err != nil {
			errs = append(errs, &OverrideError{op.arg, err})
		}
	}
	return errors.Join(errs...)
}

// Has reports whether the config has a value at path.
func (c *Config) Has(path string) bool {
	_, ok := c.Node(path)
	return ok
}

// Node returns the node at a dotted path ("" is the root), with list items
// addressed by index: "Train.dataset.transforms.3". Keys containing dots
// cannot be addressed.
func (c *Config) Node(path string) (*yaml.Node, bool) {
	n := c.Root
	if path == "" {
		return n, n != nil
	}
	for _, seg := range strings.Split(path, ".") {
		n = child(n, seg)
		if n == nil {
			return nil, false
		}
	}
	return n, true
}

func child(n *yaml.Node, seg string) *yaml.Node {
	if n == nil {
		return nil
	}
	switch n.Kind {
	case yaml.MappingNode:
		_, v := mapGet(n, seg)
		return v
	case yaml.SequenceNode:
		i, err := strconv.Atoi(seg)
		if err != nil || i < 0 || i >= len(n.Content) {
			return nil
		}
		return n.Content[i]
	}
	return nil
}

// Set puts value at path, creating the maps on the way that are missing (a
// null on the way becomes a map). The value's nodes keep their lines; errors
// about them name no file unless they came from one already loaded. Set does
// not consult the schema: Validate or Decode check the result.
func (c *Config) Set(path string, value *yaml.Node) error {
	if value == nil {
		return errors.New("config: Set with a nil node")
	}
	if path == "" {
		if value.Kind != yaml.MappingNode {
			return fmt.Errorf("config: the root must be a map, got %s", describe(value))
		}
		c.Root = value
		return nil
	}
	c.remember(value, "")
	return c.set(strings.Split(path, "."), value)
}

func (c *Config) set(segs []string, value *yaml.Node) error {
	if c.Root == nil {
		c.Root = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	}
	cur := c.Root
	for i, seg := range segs {
		last := i == len(segs)-1
		path := strings.Join(segs[:i+1], ".")
		switch cur.Kind {
		case yaml.MappingNode:
			j := indexOf(cur, seg)
			if j < 0 {
				next := value
				if !last {
					next = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
				}
				key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: seg}
				c.remember(key, c.fileOf(value))
				c.remember(next, c.fileOf(value))
				cur.Content = append(cur.Content, key, next)
				cur = next
				continue
			}
			if last {
				cur.Content[j+1] = value
				return nil
			}
			cur = cur.Content[j+1]
		case yaml.SequenceNode:
			k, err := strconv.Atoi(seg)
			if err != nil || k < 0 || k >= len(cur.Content) {
				have := "the list is empty"
				if len(cur.Content) > 0 {
					have = fmt.Sprintf("the list has %d items (0..%d)", len(cur.Content), len(cur.Content)-1)
				}
				return c.errorAt(cur, strings.Join(segs[:i], "."), fmt.Errorf("no item %q: %s", seg, have))
			}
			if last {
				cur.Content[k] = value
				return nil
			}
			cur = cur.Content[k]
		default:
			parent := strings.Join(segs[:i], ".")
			return c.errorAt(cur, parent, fmt.Errorf("is %s, not a map: cannot set %s", describe(cur), path))
		}
		if isNull(cur) && !last { // `Neck:` left empty: fill it in
			cur.Kind, cur.Tag, cur.Value = yaml.MappingNode, "!!map", ""
		}
	}
	return nil
}

// YAML returns the resolved config as YAML: bases merged, overrides applied,
// no `_BASE_` keys, keys in their original order and case.
func (c *Config) YAML() ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(c.Root); err != nil {
		return nil, fmt.Errorf("encode config %s: %w", c.File, err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("encode config %s: %w", c.File, err)
	}
	return buf.Bytes(), nil
}

// Save writes the resolved config (see YAML) to path atomically: a temporary
// file in the same directory, then a rename. It creates the directory.
func (c *Config) Save(path string) (err error) {
	data, err := c.YAML()
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("save config: %w", err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("save config: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("save config %s: %w", path, err)
	}
	if err := f.Chmod(0o644); err != nil {
		return fmt.Errorf("save config %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("save config %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("save config %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("save config: %w", err)
	}
	return nil
}
