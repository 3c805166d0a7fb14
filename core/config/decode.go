package config

import (
	"encoding"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// Error is a problem in a config, located by file, line and key path:
//
//	configs/ocr/x.yaml:12: Optimizer.lr.learning_rate: expected a number, got "fast"
//
// File is "-o" for a value that came from an override (Line is then 0); a
// part that is unknown is left out of the message.
type Error struct {
	File string // the config file as it was named, or "-o"
	Line int    // 1-based; 0 when unknown
	Path string // dotted key path from the root, e.g. "Train.dataset.transforms.3"
	Err  error
}

// Error formats the error as "file:line: path: message".
func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			b.WriteString(":" + strconv.Itoa(e.Line))
		}
		b.WriteString(": ")
	}
	if e.Path != "" {
		b.WriteString(e.Path + ": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Ignored lists keys that PaddleOCR, PaddleClas and PaddleDetection configs
// carry for things this engine does differently (devices, distributed runs,
// mixed precision, loggers). A key the schema does not know but that is listed
// here is skipped with a warning (log/slog, once per config and key path)
// instead of failing.
// Keys the schema knows are never ignored. Change it only before loading.
var Ignored = map[string]bool{
	"use_gpu": true, "use_xpu": true, "use_npu": true, "use_mlu": true, "use_gcu": true,
	"device": true, "distributed": true, "find_unused_parameters": true, "use_sync_bn": true,
	"use_visualdl": true, "use_wandb": true, "wandb": true, "use_tensorboard": true,
	"use_amp": true, "amp_level": true, "amp_dtype": true, "AMP": true,
	"amp_custom_black_list": true, "amp_custom_white_list": true,
	"scale_loss": true, "use_dynamic_loss_scaling": true,
	"to_static": true, "d2s_train_image_shape": true, "use_dali": true,
	"use_shared_memory": true, "profiler_options": true,
}

// warnIgnored logs that the Ignored key at path is skipped, once per Config.
func (c *Config) warnIgnored(n *yaml.Node, path string) {
	c.mu.Lock()
	if c.warned == nil {
		c.warned = map[string]bool{}
	}
	dup := c.warned[path]
	c.warned[path] = true
	c.mu.Unlock()
	if !dup {
		slog.Warn("config: ignoring key", "key", path, "at", c.position(n))
	}
}

// Decode decodes the node at path ("" for the whole config) into v, which
// must be a non-nil pointer. Decoding is strict: a key v has no field for is
// an error (unless listed in Ignored), and so is a value of the wrong type.
// All problems are reported, each as an *Error with file, line and full key
// path; several are joined with errors.Join. Fields of type Component keep
// their node for the registry that owns the name (see Component.Decode).
// Fields v already holds are kept when the config does not set them, so
// defaults can be filled in before decoding.
func (c *Config) Decode(path string, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("config: Decode(%q) needs a non-nil pointer, got %T", path, v)
	}
	n, ok := c.Node(path)
	if !ok {
		return &Error{File: c.File, Path: path, Err: errors.New("missing")}
	}
	d := &decoder{c: c}
	d.value(path, n, rv.Elem())
	return d.err()
}

// A decoder walks a yaml node tree and a Go value together, collecting every
// problem it meets instead of stopping at the first.
type decoder struct {
	c    *Config
	s    *Schema // when set (Validate), component names are checked and options decoded
	errs []error
	seen map[string]bool // class-keyed option sections already checked
}

func (d *decoder) err() error {
	switch len(d.errs) {
	case 0:
		return nil
	case 1:
		return d.errs[0]
	}
	return errors.Join(d.errs...)
}

// fail records an error located at node n.
func (d *decoder) fail(n *yaml.Node, path, format string, args ...any) {
	d.errs = append(d.errs, d.c.errorAt(n, path, fmt.Errorf(format, args...)))
}

var (
	componentType   = reflect.TypeFor[Component]()
	nodeType        = reflect.TypeFor[yaml.Node]()
	nodePtrType     = reflect.TypeFor[*yaml.Node]()
	unmarshalerType = reflect.TypeFor[yaml.Unmarshaler]()
	textType        = reflect.TypeFor[encoding.TextUnmarshaler]()
)

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

func (d *decoder) value(path string, n *yaml.Node, v reflect.Value) {
	t := v.Type()
	switch {
	case t == componentType:
		d.component(path, n, v)
		return
	case t == nodeType:
		v.Set(reflect.ValueOf(*n))
		return
	case t == nodePtrType && !isNull(n):
		v.Set(reflect.ValueOf(n)) // the node itself, so errors about it keep their file
		return
	case reflect.PointerTo(t).Implements(unmarshalerType), reflect.PointerTo(t).Implements(textType):
		if err := n.Decode(v.Addr().Interface()); err != nil {
			d.fail(n, path, "%s", yamlMessage(err))
		}
		return
	}
	if isNull(n) {
		switch t.Kind() {
		case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface:
			v.Set(reflect.Zero(t))
		}
		return // like yaml.v3: null leaves other values (and defaults) alone
	}
	switch t.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(t.Elem()))
		}
		d.value(path, n, v.Elem())
	case reflect.Interface:
		var x any
		if err := n.Decode(&x); err != nil {
			d.fail(n, path, "%s", yamlMessage(err))
			return
		}
		if x != nil && !reflect.TypeOf(x).AssignableTo(t) {
			d.fail(n, path, "expected %s, got %s", t, describe(n))
			return
		}
		if x != nil {
			v.Set(reflect.ValueOf(x))
		}
	case reflect.Struct:
		d.structure(path, n, v)
	case reflect.Map:
		d.mapping(path, n, v)
	case reflect.Slice, reflect.Array:
		d.sequence(path, n, v)
	default:
		d.scalar(path, n, v)
	}
}

func (d *decoder) scalar(path string, n *yaml.Node, v reflect.Value) {
	want := kindName(v.Type())
	if n.Kind != yaml.ScalarNode {
		d.fail(n, path, "expected %s, got %s", want, describe(n))
		return
	}
	tmp := reflect.New(v.Type())
	if err := n.Decode(tmp.Interface()); err != nil {
		d.fail(n, path, "expected %s, got %s", want, describe(n))
		return
	}
	v.Set(tmp.Elem())
}

func (d *decoder) structure(path string, n *yaml.Node, v reflect.Value) {
	if n.Kind != yaml.MappingNode {
		d.fail(n, path, "expected a map, got %s", describe(n))
		return
	}
	info := fieldsOf(v.Type())
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		p := join(path, k.Value)
		if f, ok := info.byName[k.Value]; ok {
			n := len(d.errs)
			d.value(p, val, v.FieldByIndex(f))
			if c := info.checks[k.Value]; c != "" && len(d.errs) == n {
				if msg := checkRange(c, v.FieldByIndex(f)); msg != "" {
					d.fail(val, p, "%s", msg)
				}
			}
			continue
		}
		if info.inline != nil {
			m := v.FieldByIndex(info.inline)
			if m.IsNil() {
				m.Set(reflect.MakeMap(m.Type()))
			}
			elem := reflect.New(m.Type().Elem()).Elem()
			d.value(p, val, elem)
			m.SetMapIndex(reflect.ValueOf(k.Value).Convert(m.Type().Key()), elem)
			continue
		}
		d.unknownKey(k, path, info.names, info.names)
	}
}

// unknownKey reports key k under parent, suggesting the closest of
// candidates or listing known, or warns once if the key is Ignored.
func (d *decoder) unknownKey(k *yaml.Node, parent string, candidates, known []string) {
	p := join(parent, k.Value)
	if Ignored[k.Value] {
		d.c.warnIgnored(k, p)
		return
	}
	d.fail(k, p, "unknown key%s", suggest(k.Value, parent, candidates, known))
}

func (d *decoder) mapping(path string, n *yaml.Node, v reflect.Value) {
	if n.Kind != yaml.MappingNode {
		d.fail(n, path, "expected a map, got %s", describe(n))
		return
	}
	t := v.Type()
	if v.IsNil() {
		v.Set(reflect.MakeMap(t))
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		key := reflect.New(t.Key())
		if err := k.Decode(key.Interface()); err != nil {
			d.fail(k, join(path, k.Value), "bad key: expected %s", kindName(t.Key()))
			continue
		}
		elem := reflect.New(t.Elem()).Elem()
		d.value(join(path, k.Value), val, elem)
		v.SetMapIndex(key.Elem(), elem)
	}
}

func (d *decoder) sequence(path string, n *yaml.Node, v reflect.Value) {
	if n.Kind != yaml.SequenceNode {
		d.fail(n, path, "expected a list, got %s", describe(n))
		return
	}
	t := v.Type()
	if t.Kind() == reflect.Array {
		if len(n.Content) != t.Len() {
			d.fail(n, path, "expected a list of %d items, got %d", t.Len(), len(n.Content))
			return
		}
	} else {
		v.Set(reflect.MakeSlice(t, len(n.Content), len(n.Content)))
	}
	for i, item := range n.Content {
		d.value(join(path, strconv.Itoa(i)), item, v.Index(i))
	}
}

// kindName says what a Go type expects, in a user's words.
func kindName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a non-negative integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Struct, reflect.Map:
		return "a map"
	case reflect.Slice, reflect.Array:
		return "a list"
	}
	return t.String()
}

// describe says what a node is, for "expected X, got Y".
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a map"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if isNull(n) {
			return "null"
		}
		return strconv.Quote(n.Value)
	}
	return "an alias"
}

// yamlMessage strips yaml.v3's prefixes ("yaml: unmarshal errors:\n  line 3: ").
func yamlMessage(err error) string {
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msgs := make([]string, len(te.Errors))
		for i, m := range te.Errors {
			msgs[i] = lineRE.ReplaceAllString(m, "")
		}
		return strings.Join(msgs, "; ")
	}
	return strings.TrimPrefix(err.Error(), "yaml: ")
}

// structInfo describes how yaml.v3 maps a struct type's fields to keys.
type structInfo struct {
	byName map[string][]int  // key -> field index path (through inlined structs)
	checks map[string]string // key -> its `check:"..."` range rule
	names  []string          // known keys, in field order
	inline []int             // index path of an `,inline` map field, or nil
}

var structCache sync.Map // reflect.Type -> *structInfo

func fieldsOf(t reflect.Type) *structInfo {
	if si, ok := structCache.Load(t); ok {
		return si.(*structInfo)
	}
	si := &structInfo{byName: map[string][]int{}, checks: map[string]string{}}
	collectFields(t, nil, si)
	structCache.Store(t, si)
	return si
}

func collectFields(t reflect.Type, prefix []int, si *structInfo) {
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() && !f.Anonymous {
			continue
		}
		tag := f.Tag.Get("yaml")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		index := append(slices.Clone(prefix), i)
		if slices.Contains(strings.Split(opts, ","), "inline") {
			switch f.Type.Kind() {
			case reflect.Struct:
				collectFields(f.Type, index, si)
			case reflect.Map:
				si.inline = index
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name) // yaml.v3's default key
		}
		if _, dup := si.byName[name]; !dup {
			si.byName[name] = index
			si.names = append(si.names, name)
			if c := f.Tag.Get("check"); c != "" {
				si.checks[name] = c
			}
		}
	}
}

func join(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}
