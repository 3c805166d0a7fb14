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

// SaveCheckpoint writes a checkpoint directory: model and optimizer tensors
// as safetensors, state marshalled to state.yaml, and the resolved config as
// config.yaml (a nil optimizer or configYAML leaves that file out).
//
// It never changes dir in place, so a crash at any point leaves a complete
// checkpoint for ResolveCheckpoint to find. The files go into a sibling
// temporary folder (".<name>.tmp-*"), each synced, then the folder is synced;
// the old dir is renamed to ".<name>.prev", the new folder to dir, and only
// then is the previous one removed. Temporary folders left by an earlier
// crash are removed first.
func SaveCheckpoint(dir string, model, optimizer map[string]*tensor.Tensor, state any, configYAML []byte) error {
	dir = filepath.Clean(dir)
	parent, base := filepath.Split(dir)
	if parent == "" {
		parent = "."
	}
	st, err := yaml.Marshal(state)
	if err != nil {
		return fmt.Errorf("checkpoint: marshal state: %w", err)
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if err := removeStale(parent, base); err != nil {
		return fmt.Errorf("checkpoint %s: remove an interrupted save: %w", dir, err)
	}
	// A failed save leaves dir as it was and no temporary folder; the error
	// says why (a full disk, a read-only folder) and what is kept.
	kept := "no checkpoint was written; " + dir + " is unchanged"
	if Complete(dir) {
		kept = "the previous checkpoint " + dir + " is kept unchanged"
	}
	fail := func(tmp string, err error) error {
		if tmp != "" {
			os.RemoveAll(tmp)
		}
		return fmt.Errorf("checkpoint %s not saved: %w", dir, explained(err, kept))
	}
	tmp := ""
	if err = fsFault("mkdir", parent); err == nil {
		tmp, err = os.MkdirTemp(parent, "."+base+tmpInfix)
	}
	if err != nil {
		return fail("", err)
	}
	fsStep()
	if err := writeCheckpointFiles(tmp, model, optimizer, st, configYAML); err != nil {
		return fail(tmp, err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil { // MkdirTemp makes it 0700
		return fail(tmp, err)
	}
	syncDir(tmp)
	if err := swapIn(tmp, dir, PrevDir(dir)); err != nil {
		return fail(tmp, err)
	}
	return nil
}

// tmpInfix marks the temporary folder a save writes before its swap.
const tmpInfix = ".tmp-"

// PrevDir is where SaveCheckpoint keeps the checkpoint dir replaces until the
// new one is in place: ".<name>.prev" beside it.
func PrevDir(dir string) string {
	parent, base := filepath.Split(filepath.Clean(dir))
	return filepath.Join(parent, "."+base+".prev")
}

// writeCheckpointFiles writes the files of a checkpoint into the empty folder dir.
func writeCheckpointFiles(dir string, model, optimizer map[string]*tensor.Tensor, state, configYAML []byte) error {
	if err := WriteSafetensors(filepath.Join(dir, ModelFile), model, nil); err != nil {
		return err
	}
	if optimizer != nil {
		if err := WriteSafetensors(filepath.Join(dir, OptimizerFile), optimizer, nil); err != nil {
			return err
		}
	}
	if configYAML != nil {
		if err := WriteFileAtomic(filepath.Join(dir, ConfigFile), configYAML, 0o644); err != nil {
			return err
		}
	}
	return WriteFileAtomic(filepath.Join(dir, StateFile), state, 0o644)
}

// swapIn puts the complete folder tmp in place of dir. A complete dir is
// kept as prev until tmp is in place; an incomplete one (an interrupted save
// of an older paddle, which overwrote in place) is dropped, and prev kept.
func swapIn(tmp, dir, prev string) error {
	parent := filepath.Dir(dir)
	_, statErr := os.Stat(dir)
	moved := false
	switch {
	case statErr == nil && Complete(dir):
		if err := os.RemoveAll(prev); err != nil {
			return err
		}
		fsStep()
		if err := rename(dir, prev); err != nil {
			return err
		}
		fsStep()
		moved = true
	case statErr == nil:
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
		fsStep()
	case !errors.Is(statErr, fs.ErrNotExist):
		return statErr
	}
	if err := rename(tmp, dir); err != nil {
		if moved { // put the previous checkpoint back where it was
			os.Rename(prev, dir)
		}
		return err
	}
	fsStep()
	syncDir(parent)
	// Saved. A previous checkpoint that cannot be removed now is removed by
	// the next save or resume (RemoveStale).
	os.RemoveAll(prev)
	fsStep()
	syncDir(parent)
	return nil
}

// removeStale removes the temporary folders an interrupted save of
// parent/base left behind.
func removeStale(parent, base string) error {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return err
	}
	removed := false
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "."+base+tmpInfix) {
			if err := os.RemoveAll(filepath.Join(parent, e.Name())); err != nil {
				return err
			}
			removed = true
		}
	}
	if removed {
		fsStep()
	}
	return nil
}

// RemoveStale removes what interrupted saves of dir left beside it: their
// temporary folders, and the previous checkpoint once dir is complete.
func RemoveStale(dir string) error {
	dir = filepath.Clean(dir)
	parent, base := filepath.Split(dir)
	if parent == "" {
		parent = "."
	}
	if err := removeStale(parent, base); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if Complete(dir) {
		return os.RemoveAll(PrevDir(dir))
	}
	return nil
}

// Complete reports whether dir holds a checkpoint a save finished: its
// model and its state.
func Complete(dir string) bool {
	for _, f := range []string{ModelFile, StateFile} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || !st.Mode().IsRegular() {
			return false
		}
	}
	return true
}

// ResolveCheckpoint returns the complete checkpoint to resume dir from:
// dir itself, or, when a save into dir was interrupted, the previous
// checkpoint SaveCheckpoint kept (fallback is then true, for the caller to
// say so). It is an error when neither is complete; the message says what
// is missing.
func ResolveCheckpoint(dir string) (use string, fallback bool, err error) {
	dir = filepath.Clean(dir)
	if Complete(dir) {
		return dir, false, nil
	}
	if prev := PrevDir(dir); Complete(prev) {
		return prev, true, nil
	}
	if _, err := os.Stat(dir); err != nil {
		return "", false, fmt.Errorf("checkpoint %s: %w", dir, err)
	}
	var missing []string
	for _, f := range []string{ModelFile, StateFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			missing = append(missing, f)
		}
	}
	return "", false, fmt.Errorf("checkpoint %s is incomplete (no %s: a save into it was interrupted, or it is not a training checkpoint), and there is no complete previous checkpoint %s to resume from",
		dir, strings.Join(missing, " or "), PrevDir(dir))
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
