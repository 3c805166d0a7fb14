package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"paddle/core/bounded"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"paddle/configs"
)

// Config is a loaded model config: the files merged through `_BASE_`, the
// overrides applied. Root keeps the keys' case and order and every node's
// line, and the Config remembers which file each node came from, so errors
// point at the line to fix.
type Config struct {
	File    string     // the config as named to Load
	Kit     string     // the kit whose schema checked the overrides ("" when none)
	Schema  *Schema    // that schema, or nil
	Root    *yaml.Node // a mapping node; no `_BASE_` keys left
	Sources []string   // every file read, bases before the files that include them

	mu     sync.Mutex
	files  map[*yaml.Node]string // node -> file it came from ("-o" for overrides)
	warned map[string]bool       // Ignored key paths already warned about
}

// Options say where configs are read from and which schema checks overrides.
// The zero value is what Load uses.
type Options struct {
	// FS, when set, is the only place configs and their bases are read from.
	FS fs.FS
	// Embedded is where a name not found on disk is looked up (nil: configs.FS).
	Embedded fs.FS
	// Kit names the schema that checks overrides ("" : KitOf(path)).
	Kit string
}

// Load reads the config at path, a file on disk or, when no such file exists,
// the name of an embedded config such as "clas/lenet_mnist.yaml" (a leading
// "configs/" and a missing ".yaml" are allowed). It resolves `_BASE_` (or
// `_base_`) inheritance and applies the overrides (see Options.Load).
func Load(path string, overrides ...string) (*Config, error) {
	return Options{}.Load(path, overrides...)
}

// LoadKit is Load with overrides checked against kit's schema, for files
// whose place does not tell the kit.
func LoadKit(kit, path string, overrides ...string) (*Config, error) {
	return Options{Kit: kit}.Load(path, overrides...)
}

// LoadFS is Load reading only from fsys.
func LoadFS(fsys fs.FS, path string, overrides ...string) (*Config, error) {
	return Options{FS: fsys}.Load(path, overrides...)
}

// Load reads the config at name and everything it inherits, then applies the
// overrides in order.
//
// Inheritance: `_BASE_: a.yaml` or `_BASE_: [a.yaml, b.yaml]` (`_base_` is the
// same). Paths are relative to the including file (in the same tree: disk or
// embedded; a base missing on disk is looked up among the embedded configs).
// Bases merge left to right and the including file wins: maps merge key by
// key, lists and scalars replace; a map holding `_inherited_: false`
// (PaddleSeg) replaces instead of merging. A cycle is an error showing the
// chain. YAML anchors and `<<` merge keys are expanded per file.
func (o Options) Load(name string, overrides ...string) (*Config, error) {
	ops, err := parseOverrides(overrides)
	if err != nil {
		return nil, err
	}
	l := &loader{embedded: o.Embedded, cfg: &Config{File: name, files: map[*yaml.Node]string{}}}
	if l.embedded == nil {
		l.embedded = configs.FS
	}
	top, err := l.locate(o.FS, name)
	if err != nil {
		return nil, err
	}
	root, err := l.load(top, nil)
	if err != nil {
		return nil, err
	}
	c := l.cfg
	c.Root = root
	c.Kit = o.Kit
	if c.Kit == "" {
		c.Kit = KitOf(name)
	}
	if s, ok := SchemaFor(c.Kit); ok {
		c.Schema = s
	}
	if err := c.apply(ops); err != nil {
		return nil, err
	}
	return c, nil
}

// Parse makes a config from data (named name in errors), for YAML that is
// not in a file: tests, or a file read by other means. It resolves no bases
// (a `_BASE_` key is an error); overrides are checked against kit's schema.
func Parse(kit, name string, data []byte, overrides ...string) (*Config, error) {
	ops, err := parseOverrides(overrides)
	if err != nil {
		return nil, err
	}
	l := &loader{cfg: &Config{File: name, Kit: kit, Sources: []string{name}}}
	root, err := l.parse(name, data)
	if err != nil {
		return nil, err
	}
	key, bases, err := l.takeBases(root)
	if err != nil {
		return nil, err
	}
	if len(bases) > 0 {
		return nil, l.cfg.errorAt(bases[0], key, errors.New("bases cannot be resolved here: load the config from a file"))
	}
	stripInherited(root)
	c := l.cfg
	c.Root = root
	c.Schema, _ = SchemaFor(kit)
	if err := c.apply(ops); err != nil {
		return nil, err
	}
	return c, nil
}

// KitOf returns the kit a config belongs to from its place under
// configs/<kit>/: "configs/det/x.yaml", "/src/paddle/configs/det/yolo/x.yaml"
// and the embedded name "det/x.yaml" all give "det"; "x.yaml" gives "".
func KitOf(p string) string {
	p = filepath.ToSlash(filepath.Clean(p))
	parts := strings.Split(p, "/")
	for i := len(parts) - 3; i >= 0; i-- {
		if parts[i] == "configs" {
			return parts[i+1]
		}
	}
	if len(parts) >= 2 && parts[0] != "" && parts[0] != ".." && parts[0] != "." {
		return parts[0]
	}
	return ""
}

// A source is one config file: on disk (fsys nil) or in an fs.FS.
type source struct {
	fsys fs.FS
	name string
}

func (s source) read() ([]byte, error) {
	if s.fsys == nil {
		return bounded.ReadFile(s.name, bounded.ConfigBytes, "config")
	}
	return fs.ReadFile(s.fsys, s.name)
}

// id identifies a file for cycle detection.
func (s source) id() string {
	if s.fsys == nil {
		if abs, err := filepath.Abs(s.name); err == nil {
			return "disk:" + abs
		}
		return "disk:" + filepath.Clean(s.name)
	}
	return fmt.Sprintf("fs%p:%s", s.fsys, s.name)
}

type loader struct {
	embedded fs.FS
	cfg      *Config
}

// locate finds the top-level config: in fsys if set, else on disk, else embedded.
func (l *loader) locate(fsys fs.FS, name string) (source, error) {
	if fsys != nil {
		return source{fsys, path.Clean(filepath.ToSlash(name))}, nil
	}
	if st, err := os.Stat(name); err == nil && !st.IsDir() {
		return source{nil, name}, nil
	}
	emb := strings.TrimPrefix(path.Clean(filepath.ToSlash(name)), "configs/")
	for _, cand := range []string{emb, emb + ".yaml"} {
		if fs.ValidPath(cand) {
			if st, err := fs.Stat(l.embedded, cand); err == nil && !st.IsDir() {
				return source{l.embedded, cand}, nil
			}
		}
	}
	hint := ""
	if best := closest(emb, Names(l.embedded)); best != "" {
		hint = fmt.Sprintf("; did you mean %q?", best)
	}
	return source{}, fmt.Errorf("config %q: %w (not on disk, not an embedded config%s)", name, fs.ErrNotExist, hint)
}

// Names lists the configs in fsys (nil: the embedded ones): every `*.yaml`
// outside `_base_` folders, sorted, e.g. "clas/lenet_mnist.yaml".
func Names(fsys fs.FS) []string {
	if fsys == nil {
		fsys = configs.FS
	}
	var names []string
	fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil // list what can be read
		case d.IsDir() && (d.Name() == "_base_" || d.Name() == "_BASE_"):
			return fs.SkipDir
		case !d.IsDir() && strings.HasSuffix(p, ".yaml"):
			names = append(names, p)
		}
		return nil
	})
	return names
}

// base finds the file a `_BASE_` entry names, relative to the including file.
func (l *loader) base(from source, rel string) (source, error) {
	if from.fsys != nil {
		p := path.Join(path.Dir(from.name), rel)
		if !fs.ValidPath(p) {
			return source{}, fmt.Errorf("%s is outside the config tree", rel)
		}
		return source{from.fsys, p}, nil
	}
	p := rel
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[2:])
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(from.name), p)
	}
	if _, err := os.Stat(p); err != nil {
		if emb := path.Clean(rel); fs.ValidPath(emb) {
			if _, err := fs.Stat(l.embedded, emb); err == nil {
				return source{l.embedded, emb}, nil
			}
		}
	}
	return source{nil, p}, nil
}

// load reads src, resolves its bases and returns the merged root mapping.
// chain lists the files that include src, outermost first.
func (l *loader) load(src source, chain []source) (*yaml.Node, error) {
	data, err := src.read()
	if err != nil {
		return nil, err
	}
	root, err := l.parse(src.name, data)
	if err != nil {
		return nil, err
	}
	l.cfg.Sources = append(l.cfg.Sources, src.name)
	key, bases, err := l.takeBases(root)
	if err != nil {
		return nil, err
	}
	chain = append(chain, src)
	var merged *yaml.Node
	for _, b := range bases {
		bsrc, err := l.base(src, b.Value)
		if err != nil {
			return nil, l.cfg.errorAt(b, key, err)
		}
		for i, c := range chain {
			if c.id() == bsrc.id() {
				names := make([]string, 0, len(chain)-i+1)
				for _, c := range chain[i:] {
					names = append(names, c.name)
				}
				names = append(names, bsrc.name)
				return nil, l.cfg.errorAt(b, key, fmt.Errorf("inheritance cycle: %s", strings.Join(names, " -> ")))
			}
		}
		broot, err := l.load(bsrc, chain)
		if err != nil {
			var ce *Error
			if errors.As(err, &ce) {
				return nil, err
			}
			return nil, l.cfg.errorAt(b, key, err)
		}
		merged = merge(merged, broot)
	}
	if merged != nil {
		root = merge(merged, root)
	}
	stripInherited(root)
	return root, nil
}

// takeBases removes the `_BASE_`/`_base_` key from root and returns its
// spelling and its entries.
func (l *loader) takeBases(root *yaml.Node) (string, []*yaml.Node, error) {
	var bases []*yaml.Node
	found := ""
	for i := 0; i+1 < len(root.Content); {
		k, v := root.Content[i], root.Content[i+1]
		if k.Value != "_BASE_" && k.Value != "_base_" {
			i += 2
			continue
		}
		if found != "" {
			return "", nil, l.cfg.errorAt(k, k.Value, fmt.Errorf("%s given twice (already %s)", k.Value, found))
		}
		found = k.Value
		switch {
		case v.Kind == yaml.ScalarNode && !isNull(v):
			bases = append(bases, v)
		case v.Kind == yaml.SequenceNode:
			for _, item := range v.Content {
				if item.Kind != yaml.ScalarNode || isNull(item) {
					return "", nil, l.cfg.errorAt(item, k.Value, fmt.Errorf("expected a file name, got %s", describe(item)))
				}
				bases = append(bases, item)
			}
		case !isNull(v):
			return "", nil, l.cfg.errorAt(v, k.Value, fmt.Errorf("expected a file name or a list of them, got %s", describe(v)))
		}
		root.Content = append(root.Content[:i], root.Content[i+2:]...)
	}
	return found, bases, nil
}

// remember records file as the origin of n and everything under it that has
// no origin yet.
func (c *Config) remember(n *yaml.Node, file string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.files == nil {
		c.files = map[*yaml.Node]string{}
	}
	var walk func(*yaml.Node)
	walk = func(n *yaml.Node) {
		if _, ok := c.files[n]; !ok {
			c.files[n] = file
		}
		for _, ch := range n.Content {
			walk(ch)
		}
	}
	walk(n)
}

func (c *Config) fileOf(n *yaml.Node) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.files[n]
}

// errorAt builds an *Error located at node n.
func (c *Config) errorAt(n *yaml.Node, path string, err error) *Error {
	e := &Error{Path: path, Err: err}
	if n != nil {
		e.File = c.fileOf(n)
		if e.File != "-o" {
			e.Line = n.Line
		}
	}
	return e
}

// position is "file:line" of n, for log messages.
func (c *Config) position(n *yaml.Node) string {
	e := c.errorAt(n, "", nil)
	if e.Line > 0 {
		return e.File + ":" + strconv.Itoa(e.Line)
	}
	return e.File
}
