package io

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"paddle/core/tensor"
)

// File names inside a checkpoint directory (DESIGN §7).
const (
	ModelFile     = "model.safetensors"
	OptimizerFile = "optimizer.safetensors"
	StateFile     = "state.yaml"
	ConfigFile    = "config.yaml"
)

// Checkpoint is the content of a checkpoint directory.
type Checkpoint struct {
	Dir       string
	Model     map[string]*tensor.Tensor
	Optimizer map[string]*tensor.Tensor // nil if the directory has no optimizer.safetensors
	State     []byte                    // raw state.yaml; nil if absent. See DecodeState.
	Config    []byte                    // raw config.yaml; nil if absent
	Meta      map[string]string         // metadata of model.safetensors
}

// DecodeState unmarshals state.yaml into v (strictly: unknown keys are an error).
func (c *Checkpoint) DecodeState(v any) error {
	if c.State == nil {
		return fmt.Errorf("%s: no %s", c.Dir, StateFile)
	}
	dec := yaml.NewDecoder(strings.NewReader(string(c.State)))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(c.Dir, StateFile), err)
	}
	return nil
}

// SaveCheckpoint writes a checkpoint directory (created if needed): model and
// optimizer tensors as safetensors, state marshalled to state.yaml, and the
// resolved config as config.yaml. Each file is written atomically; state.yaml
// is written last, so a directory with a state.yaml holds a complete
// checkpoint even if an earlier save into it was interrupted. A nil optimizer
// or configYAML skips that file (and removes a stale one).
func SaveCheckpoint(dir string, model, optimizer map[string]*tensor.Tensor, state any, configYAML []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	// An interrupted overwrite must not leave an old state.yaml next to new weights.
	if err := removeIfExists(filepath.Join(dir, StateFile)); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if err := WriteSafetensors(filepath.Join(dir, ModelFile), model, nil); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if err := writeOrRemove(filepath.Join(dir, OptimizerFile), optimizer != nil, func(p string) error {
		return WriteSafetensors(p, optimizer, nil)
	}); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if err := writeOrRemove(filepath.Join(dir, ConfigFile), configYAML != nil, func(p string) error {
		return WriteFileAtomic(p, configYAML, 0o644)
	}); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	st, err := yaml.Marshal(state)
	if err != nil {
		return fmt.Errorf("checkpoint: marshal state: %w", err)
	}
	if err := WriteFileAtomic(filepath.Join(dir, StateFile), st, 0o644); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

func writeOrRemove(path string, write bool, f func(string) error) error {
	if write {
		return f(path)
	}
	return removeIfExists(path)
}

func removeIfExists(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// LoadCheckpoint reads a checkpoint directory. model.safetensors is required;
// the other files are optional and left nil when absent.
func LoadCheckpoint(dir string) (*Checkpoint, error) {
	c := &Checkpoint{Dir: dir}
	var err error
	c.Model, c.Meta, err = ReadSafetensors(filepath.Join(dir, ModelFile))
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	if c.Optimizer, _, err = ReadSafetensors(filepath.Join(dir, OptimizerFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	if c.State, err = readOptional(filepath.Join(dir, StateFile)); err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	if c.Config, err = readOptional(filepath.Join(dir, ConfigFile)); err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	return c, nil
}

func readOptional(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

// Spec is the expected dtype and shape of a named tensor.
type Spec struct {
	DType tensor.DType
	Shape tensor.Shape
}

// MismatchError lists every difference between expected and actual tensors.
// Each list is sorted by name.
type MismatchError struct {
	Missing    []string // expected but absent
	Unexpected []string // present but not expected
	Shape      []string // "name: have (3, 4), want (4, 3)"
	DType      []string // "name: have float64, want float32"
}

// Error reports every mismatch, one per line after a summary.
func (e *MismatchError) Error() string {
	var b strings.Builder
	n := len(e.Missing) + len(e.Unexpected) + len(e.Shape) + len(e.DType)
	fmt.Fprintf(&b, "%d tensor mismatch(es)", n)
	for _, m := range e.Missing {
		b.WriteString("\n  missing: " + m)
	}
	for _, m := range e.Unexpected {
		b.WriteString("\n  unexpected: " + m)
	}
	for _, m := range e.Shape {
		b.WriteString("\n  shape: " + m)
	}
	for _, m := range e.DType {
		b.WriteString("\n  dtype: " + m)
	}
	return b.String()
}

// CheckNames compares got against want and returns a *MismatchError naming
// every missing, unexpected, wrongly shaped or wrongly typed tensor, or nil.
func CheckNames(want map[string]Spec, got map[string]*tensor.Tensor) error {
	e := &MismatchError{}
	for _, k := range slices.Sorted(maps.Keys(want)) {
		w := want[k]
		g, ok := got[k]
		if !ok || g == nil {
			e.Missing = append(e.Missing, k)
			continue
		}
		if !g.Shape().Equal(w.Shape) {
			e.Shape = append(e.Shape, fmt.Sprintf("%s: have %v, want %v", k, g.Shape(), w.Shape))
		}
		if g.DType() != w.DType {
			e.DType = append(e.DType, fmt.Sprintf("%s: have %v, want %v", k, g.DType(), w.DType))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[k]; !ok {
			e.Unexpected = append(e.Unexpected, k)
		}
	}
	if len(e.Missing)+len(e.Unexpected)+len(e.Shape)+len(e.DType) == 0 {
		return nil
	}
	return e
}

// SpecsOf returns the Spec of every tensor in m, e.g. a model's parameters
// to check a loaded checkpoint against.
func SpecsOf(m map[string]*tensor.Tensor) map[string]Spec {
	out := make(map[string]Spec, len(m))
	for k, t := range m {
		out[k] = Spec{DType: t.DType(), Shape: t.Shape().Clone()}
	}
	return out
}
