// Package pdparams reads the files PaddlePaddle's paddle.save writes: model
// weights (.pdparams) and optimizer states (.pdopt). Such a file is a Python
// pickle (protocol 2, 3 or 4) of a dict of NumPy arrays, plus two tables
// paddle.save adds: "StructuredToParameterName@@" (structured name →
// parameter name) and, for protocols 2 and 3, "UnpackBigParamInfor@@"
// (arrays of 2^30 bytes or more cut into pieces "<key>@@.0", "<key>@@.1"...;
// Read joins them back).
//
// The pickle is decoded by github.com/nlpodyssey/gopickle with a strict
// allow-list of the Python names such files use (classes.go): NumPy arrays,
// dtypes and scalars, and the two reduce forms paddle.save writes for Tensors
// and LoDTensors. Any other name is an error; nothing a file names is run.
package pdparams

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strconv"

	"github.com/nlpodyssey/gopickle/pickle"
	"github.com/nlpodyssey/gopickle/types"

	"paddle/core/tensor"
)

// Keys paddle.save adds next to the arrays.
const (
	NameTableKey = "StructuredToParameterName@@"
	SplitInfoKey = "UnpackBigParamInfor@@"
)

// File is the content of a .pdparams or .pdopt file.
type File struct {
	// Names lists the tensors in file order. Keys of nested dicts are
	// joined with "." ("model.fc.weight"), list items by index.
	Names   []string
	Tensors map[string]*tensor.Tensor
	// ParamNames maps a structured name ("fc.weight") to Paddle's
	// parameter name ("linear_0.w_0"), from the name table.
	ParamNames map[string]string
	// Values holds the entries that are not arrays (an optimizer's
	// LR_Scheduler.last_epoch, say): int64, float64, string, bool or nil.
	Values map[string]any
}

// Read reads a paddle.save file.
func Read(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := Decode(b)
	if err != nil {
		return nil, fmt.Errorf("pdparams: %s: %w", path, err)
	}
	return f, nil
}

// Decode reads a paddle.save file's bytes. The caller names the file in
// its errors.
func Decode(b []byte) (f *File, err error) {
	if len(b) < 2 || b[0] != 0x80 {
		return nil, fmt.Errorf("not a pickle of protocol 2 or later (paddle.save writes protocols 2-4)")
	}
	if p := b[1]; p < 2 || p > 4 {
		return nil, fmt.Errorf("pickle protocol %d (paddle.save writes protocols 2-4)", p)
	}
	if err := checkLengths(b); err != nil {
		return nil, err
	}
	obj, err := unpickle(b)
	if err != nil {
		return nil, err
	}
	f = &File{Tensors: map[string]*tensor.Tensor{}, ParamNames: map[string]string{}, Values: map[string]any{}}
	top, ok := entries(obj)
	if !ok {
		return nil, fmt.Errorf("top level is a %s, want a dict (paddle.save of a state dict)", pyName(obj))
	}
	var split any
	for _, e := range top {
		key, ok := e.key.(string)
		if !ok {
			return nil, fmt.Errorf("dict key %v is a %s, want str", e.key, pyName(e.key))
		}
		switch key {
		case NameTableKey:
			if err := f.readNameTable(e.value); err != nil {
				return nil, err
			}
			continue
		case SplitInfoKey:
			split = e.value
			continue
		}
		if err := f.add(key, e.value, 0); err != nil {
			return nil, err
		}
	}
	if split != nil {
		if err := f.join(split); err != nil {
			return nil, fmt.Errorf("%s: %w", SplitInfoKey, err)
		}
	}
	return f, nil
}

// unpickle runs the allow-listed unpickler, turning a panic inside the
// decoder (malformed input it did not expect) into an error.
func unpickle(b []byte) (obj any, err error) {
	defer func() {
		if r := recover(); r != nil {
			obj, err = nil, fmt.Errorf("malformed pickle: %v", r)
		}
	}()
	u := pickle.NewUnpickler(bytes.NewReader(b))
	u.FindClass = findClass
	u.PersistentLoad = func(any) (any, error) {
		return nil, fmt.Errorf("persistent ids are not supported (not a paddle.save file)")
	}
	obj, err = u.Load()
	if err != nil {
		return nil, fmt.Errorf("pickle: %w", err)
	}
	return obj, nil
}

type entry struct{ key, value any }

// entries lists a dict's or OrderedDict's items in order.
func entries(v any) ([]entry, bool) {
	switch d := v.(type) {
	case *types.Dict:
		out := make([]entry, len(*d))
		for i, e := range *d {
			out[i] = entry{e.Key, e.Value}
		}
		return out, true
	case *types.OrderedDict:
		out := make([]entry, 0, d.Len())
		for el := d.List.Front(); el != nil; el = el.Next() {
			e := el.Value.(*types.OrderedDictEntry)
			out = append(out, entry{e.Key, e.Value})
		}
		return out, true
	}
	return nil, false
}

// maxDepth bounds nesting, so a crafted file cannot recurse without end.
const maxDepth = 32

// add files the value v under name: arrays as tensors, dicts and lists
// recursively, scalars as values.
func (f *File) add(name string, v any, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("%s: nested more than %d levels", name, maxDepth)
	}
	if _, dup := f.Tensors[name]; dup {
		return fmt.Errorf("%s: appears twice", name)
	}
	switch x := v.(type) {
	case *array:
		if x.t == nil {
			return fmt.Errorf("%s: ndarray without data", name)
		}
		f.Names = append(f.Names, name)
		f.Tensors[name] = x.t
		return nil
	case nil, bool, string, float64:
		f.Values[name] = x
		return nil
	case *types.Tuple:
		// A Tensor outside a state dict: (parameter name, array).
		if x.Len() == 2 {
			if pn, ok := x.Get(0).(string); ok {
				if a, ok := x.Get(1).(*array); ok {
					if _, named := f.ParamNames[name]; !named {
						f.ParamNames[name] = pn
					}
					return f.add(name, a, depth+1)
				}
			}
		}
		return f.addSeq(name, *x, depth)
	case *types.List:
		return f.addSeq(name, *x, depth)
	}
	if n, ok := toInt(v); ok {
		f.Values[name] = n
		return nil
	}
	if es, ok := entries(v); ok {
		for _, e := range es {
			k, ok := e.key.(string)
			if !ok {
				n, isInt := toInt(e.key)
				if !isInt {
					return fmt.Errorf("%s: dict key %v is a %s, want str or int", name, e.key, pyName(e.key))
				}
				k = strconv.FormatInt(n, 10)
			}
			if err := f.add(name+"."+k, e.value, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("%s: a %s is not an array, dict, list or scalar", name, pyName(v))
}

func (f *File) addSeq(name string, items []any, depth int) error {
	for i, it := range items {
		if err := f.add(name+"."+strconv.Itoa(i), it, depth+1); err != nil {
			return err
		}
	}
	return nil
}

func (f *File) readNameTable(v any) error {
	es, ok := entries(v)
	if !ok {
		return fmt.Errorf("%s is a %s, want a dict", NameTableKey, pyName(v))
	}
	for _, e := range es {
		k, ok1 := e.key.(string)
		n, ok2 := e.value.(string)
		if !ok1 || !ok2 {
			return fmt.Errorf("%s: entry %v: %v, want str: str", NameTableKey, e.key, e.value)
		}
		f.ParamNames[k] = n
	}
	return nil
}

// join rebuilds the arrays _unpack_saved_dict cut into pieces: each piece
// is a slice of the flattened array, in order.
func (f *File) join(info any) error {
	es, ok := entries(info)
	if !ok {
		return fmt.Errorf("a %s, want a dict", pyName(info))
	}
	for _, e := range es {
		key, _ := e.key.(string)
		spec, ok := entries(e.value)
		if !ok || key == "" {
			return fmt.Errorf("entry %v: want str: {OriginShape, slices}", e.key)
		}
		var shape []int64
		var parts []string
		for _, s := range spec {
			var err error
			switch s.key {
			case "OriginShape":
				shape, err = intTuple(s.value)
			case "slices":
				parts, err = stringList(s.value)
			}
			if err != nil {
				return fmt.Errorf("%s: %v: %w", key, s.key, err)
			}
		}
		t, err := f.joinParts(key, shape, parts)
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		f.Tensors[key] = t
		// The joined array takes its first piece's place in the order.
		at := slices.Index(f.Names, parts[0])
		f.Names = slices.DeleteFunc(f.Names, func(n string) bool { return slices.Contains(parts, n) })
		f.Names = slices.Insert(f.Names, min(at, len(f.Names)), key)
		for _, p := range parts {
			delete(f.Tensors, p)
		}
	}
	return nil
}

func (f *File) joinParts(key string, shape []int64, parts []string) (*tensor.Tensor, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("no slices")
	}
	if _, dup := f.Tensors[key]; dup {
		return nil, fmt.Errorf("both whole and in slices")
	}
	dims := make([]int, len(shape))
	total := 1
	for i, d := range shape {
		if d < 0 || d > 1<<40 || total > (1<<40)/max(int(d), 1) {
			return nil, fmt.Errorf("OriginShape %v is not a valid shape", shape)
		}
		dims[i] = int(d)
		total *= int(d)
	}
	var pieces []*tensor.Tensor
	n := 0
	for _, p := range parts {
		t, ok := f.Tensors[p]
		if !ok {
			return nil, fmt.Errorf("slice %q is not in the file", p)
		}
		if t.Rank() != 1 || t.DType() != f.Tensors[parts[0]].DType() {
			return nil, fmt.Errorf("slice %q is %v %v, want a 1-D %v piece", p, t.DType(), t.Shape(), f.Tensors[parts[0]].DType())
		}
		pieces = append(pieces, t)
		n += t.Len()
	}
	if n != total {
		return nil, fmt.Errorf("slices hold %d elements, OriginShape %v needs %d", n, shape, total)
	}
	out := tensor.New(pieces[0].DType(), total)
	off := 0
	for _, p := range pieces {
		out.Slice(0, off, off+p.Len(), 1).CopyFrom(p)
		off += p.Len()
	}
	return out.Reshape(dims...), nil
}

func stringList(v any) ([]string, error) {
	var items []any
	switch s := v.(type) {
	case *types.List:
		items = *s
	case *types.Tuple:
		items = *s
	default:
		return nil, fmt.Errorf("want a list of str, have %s", pyName(v))
	}
	out := make([]string, len(items))
	for i, x := range items {
		s, ok := x.(string)
		if !ok {
			return nil, fmt.Errorf("want a list of str, have %s at %d", pyName(x), i)
		}
		out[i] = s
	}
	return out, nil
}
