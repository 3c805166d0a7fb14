package onnxpb

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
)

// ReadFile reads and decodes the model file at path, then loads every tensor
// stored as external data (see LoadExternalData) from files relative to the
// model's directory.
func ReadFile(path string) (*Model, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("onnx: %w", err)
	}
	m, err := decodeModel(b) // b is ours: the model may alias it
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			e.File = path
		}
		return nil, err
	}
	if err := m.LoadExternalData(filepath.Dir(path)); err != nil {
		return nil, fmt.Errorf("onnx: %s: %w", path, err)
	}
	return m, nil
}

// LoadExternalData reads the data of every tensor whose DataLocation is
// EXTERNAL (initializers and attribute tensors, subgraphs included) into its
// RawData, and marks it as stored inline, as onnx.load does. The external_data
// keys are "location" (a path relative to dir that must stay inside it),
// "offset" and "length" (decimal byte counts; no length means to the end of
// the file).
func (m *Model) LoadExternalData(dir string) error {
	files := map[string]*os.File{}
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	var err error
	m.EachTensor(func(t *Tensor) bool {
		if t.DataLocation != LocationExternal {
			return true
		}
		if err = loadExternal(t, dir, files); err != nil {
			err = fmt.Errorf("tensor %q: %w", t.Name, err)
			return false
		}
		return true
	})
	return err
}

func loadExternal(t *Tensor, dir string, files map[string]*os.File) error {
	var loc string
	offset, length := int64(0), int64(-1)
	for _, e := range t.ExternalData {
		var err error
		switch e.Key {
		case "location":
			loc = e.Value
		case "offset":
			offset, err = strconv.ParseInt(e.Value, 10, 64)
		case "length":
			length, err = strconv.ParseInt(e.Value, 10, 64)
		}
		if err != nil || offset < 0 || length < -1 {
			return fmt.Errorf("external data %s %q: not a byte count", e.Key, e.Value)
		}
	}
	if loc == "" {
		return errors.New(`external data has no "location"`)
	}
	if !filepath.IsLocal(loc) {
		return fmt.Errorf("external data location %q: not a path inside the model directory", loc)
	}
	f := files[loc]
	if f == nil {
		var err error
		if f, err = os.Open(filepath.Join(dir, loc)); err != nil {
			return fmt.Errorf("external data: %w", err)
		}
		files[loc] = f
	}
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("external data: %w", err)
	}
	if length < 0 {
		length = st.Size() - offset
	}
	if offset > st.Size() || length > st.Size()-offset {
		return fmt.Errorf("external data %s: offset %d + length %d beyond the file's %d bytes",
			loc, offset, length, st.Size())
	}
	data := make([]byte, length)
	if _, err := f.ReadAt(data, offset); err != nil && !(err == io.EOF && length == 0) {
		return fmt.Errorf("external data %s: %w", loc, err)
	}
	t.RawData = data
	t.ExternalData = nil
	t.DataLocation = LocationDefault
	return nil
}

// EachTensor calls fn for every tensor of the model: graph initializers and
// the tensors of node attributes, in subgraphs too. It stops when fn returns
// false.
func (m *Model) EachTensor(fn func(*Tensor) bool) {
	if m.Graph != nil {
		eachTensor(m.Graph, fn)
	}
}

func eachTensor(g *Graph, fn func(*Tensor) bool) bool {
	for _, t := range g.Initializer {
		if t != nil && !fn(t) {
			return false
		}
	}
	for _, n := range g.Node {
		if n == nil {
			continue
		}
		for _, a := range n.Attribute {
			if a == nil {
				continue
			}
			if a.T != nil && !fn(a.T) {
				return false
			}
			for _, t := range a.Tensors {
				if t != nil && !fn(t) {
					return false
				}
			}
			if a.G != nil && !eachTensor(a.G, fn) {
				return false
			}
			for _, sg := range a.Graphs {
				if sg != nil && !eachTensor(sg, fn) {
					return false
				}
			}
		}
	}
	return true
}
