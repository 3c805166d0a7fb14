package io

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/tensor"
)

type trainState struct {
	Epoch   int                `yaml:"epoch"`
	Step    int64              `yaml:"step"`
	Metrics map[string]float64 `yaml:"metrics"`
	RNG     []uint64           `yaml:"rng"`
}

func TestCheckpointRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ckpt", "latest")
	model := map[string]*tensor.Tensor{
		"fc.weight": tensor.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3),
		"fc.bias":   tensor.FromSlice([]float32{-1, 1}),
		"bn.count":  tensor.Scalar(int64(7)),
	}
	opt := map[string]*tensor.Tensor{"fc.weight.moment1": tensor.Ones(tensor.Float32, 2, 3)}
	st := trainState{Epoch: 3, Step: 1200, Metrics: map[string]float64{"acc": 0.875}, RNG: []uint64{1, 1 << 63}}
	cfg := []byte("Global:\n  epoch_num: 10\n")
	if err := SaveCheckpoint(dir, model, opt, st, cfg); err != nil {
		t.Fatal(err)
	}
	c, err := LoadCheckpoint(dir)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range model {
		sameTensor(t, k, c.Model[k], v)
	}
	sameTensor(t, "opt", c.Optimizer["fc.weight.moment1"], opt["fc.weight.moment1"])
	if string(c.Config) != string(cfg) {
		t.Errorf("config = %q", c.Config)
	}
	var got trainState
	if err := c.DecodeState(&got); err != nil {
		t.Fatal(err)
	}
	if got.Epoch != 3 || got.Step != 1200 || got.Metrics["acc"] != 0.875 || got.RNG[1] != 1<<63 {
		t.Errorf("state = %+v, want %+v", got, st)
	}
	if err := CheckNames(SpecsOf(model), c.Model); err != nil {
		t.Error(err)
	}

	// Saving again without optimizer and config removes the stale files.
	if err := SaveCheckpoint(dir, model, nil, st, nil); err != nil {
		t.Fatal(err)
	}
	c, err = LoadCheckpoint(dir)
	if err != nil {
		t.Fatal(err)
	}
	if c.Optimizer != nil || c.Config != nil {
		t.Errorf("stale optimizer/config survived: %v %q", c.Optimizer, c.Config)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temp file left: %s", e.Name())
		}
	}
}

func TestDecodeStateStrict(t *testing.T) {
	c := &Checkpoint{Dir: "d", State: []byte("epoch: 1\nbogus: 2\n")}
	var s trainState
	if err := c.DecodeState(&s); err == nil || !strings.Contains(err.Error(), "bogus") {
		t.Errorf("err = %v, want unknown field bogus", err)
	}
}

func TestLoadCheckpointMissing(t *testing.T) {
	_, err := LoadCheckpoint(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), ModelFile) {
		t.Errorf("err = %v, want it to name %s", err, ModelFile)
	}
}

func TestCheckNamesReportsEverything(t *testing.T) {
	want := map[string]Spec{
		"a": {tensor.Float32, tensor.Shape{2, 3}},
		"b": {tensor.Float32, tensor.Shape{4}},
		"c": {tensor.Int64, tensor.Shape{}},
		"d": {tensor.Float32, tensor.Shape{1}},
		"e": {tensor.Float32, tensor.Shape{5}},
	}
	got := map[string]*tensor.Tensor{
		"a": tensor.New(tensor.Float32, 3, 2), // shape
		"b": tensor.New(tensor.Float64, 4),    // dtype
		"c": tensor.New(tensor.Int32, 2),      // both
		"e": tensor.New(tensor.Float32, 5),    // fine
		"x": tensor.New(tensor.Float32, 1),    // unexpected
		"y": tensor.New(tensor.Float32, 1),    // unexpected
	}
	err := CheckNames(want, got)
	var me *MismatchError
	if !errors.As(err, &me) {
		t.Fatalf("err = %v, want *MismatchError", err)
	}
	if strings.Join(me.Missing, ",") != "d" || strings.Join(me.Unexpected, ",") != "x,y" ||
		len(me.Shape) != 2 || len(me.DType) != 2 {
		t.Errorf("mismatch = %+v", me)
	}
	msg := err.Error()
	for _, s := range []string{"7 tensor mismatch", "missing: d", "unexpected: x", "unexpected: y",
		"shape: a: have (3, 2), want (2, 3)", "dtype: b: have float64, want float32", "shape: c: have (2), want ()",
		"dtype: c: have int32, want int64"} {
		if !strings.Contains(msg, s) {
			t.Errorf("message lacks %q:\n%s", s, msg)
		}
	}
	if strings.Contains(msg, " e: ") {
		t.Errorf("message mentions the matching tensor e:\n%s", msg)
	}
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.txt")
	if err := WriteFileAtomic(p, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(p, []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	fi, _ := os.Stat(p)
	if string(b) != "two" || fi.Mode().Perm() != 0o600 {
		t.Errorf("content %q mode %v", b, fi.Mode())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("dir has %d entries, want 1", len(ents))
	}
	if err := WriteFileAtomic(filepath.Join(dir, "no", "such", "f"), nil, 0o644); err == nil {
		t.Error("write into a missing directory: no error")
	}
}

// A save replaces the folder whole, removes temporary folders of earlier
// interrupted saves and keeps no previous copy once it is done.
func TestSaveCheckpointSwapsAndCleansUp(t *testing.T) {
	out := t.TempDir()
	dir := filepath.Join(out, "latest")
	stale := filepath.Join(out, ".latest.tmp-123")
	os.MkdirAll(stale, 0o755)
	os.WriteFile(filepath.Join(stale, ModelFile), []byte("half"), 0o644)
	model := map[string]*tensor.Tensor{"w": tensor.Full(tensor.Float32, 1, 3)}
	for step := 1; step <= 2; step++ {
		model["w"] = tensor.Full(tensor.Float32, float64(step), 3)
		if err := SaveCheckpoint(dir, model, nil, trainState{Step: int64(step)}, nil); err != nil {
			t.Fatal(err)
		}
	}
	ents, _ := os.ReadDir(out)
	if len(ents) != 1 || ents[0].Name() != "latest" {
		t.Errorf("output folder holds %v, want only latest", ents)
	}
	if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o755 {
		t.Errorf("checkpoint folder: %v %v, want mode 0755", st, err)
	}
	c, err := LoadCheckpoint(dir)
	if err != nil || c.Model["w"].F32()[0] != 2 || !strings.Contains(string(c.State), "step: 2") {
		t.Fatalf("latest after two saves: %v", err)
	}
}

// ResolveCheckpoint takes a complete folder, falls back to the previous one
// a save kept, and otherwise says what is missing.
func TestResolveCheckpoint(t *testing.T) {
	out := t.TempDir()
	dir := filepath.Join(out, "latest")
	model := map[string]*tensor.Tensor{"w": tensor.Full(tensor.Float32, 1, 3)}
	if err := SaveCheckpoint(dir, model, nil, trainState{Step: 5}, nil); err != nil {
		t.Fatal(err)
	}
	if use, fb, err := ResolveCheckpoint(dir + "/"); err != nil || use != dir || fb {
		t.Errorf("complete: %q %v %v", use, fb, err)
	}
	// an interrupted in-place save (as before issue 24): weights without state
	os.Remove(filepath.Join(dir, StateFile))
	_, _, err := ResolveCheckpoint(dir)
	if err == nil || !strings.Contains(err.Error(), "incomplete") || !strings.Contains(err.Error(), StateFile) || !strings.Contains(err.Error(), dir) {
		t.Errorf("incomplete: err = %v, want it to name the folder and %s", err, StateFile)
	}
	// killed between the two renames of a swap: only the previous one is there
	os.Rename(dir, PrevDir(dir))
	if use, fb, err := ResolveCheckpoint(dir); err == nil || fb {
		t.Errorf("incomplete previous: %q %v %v, want an error", use, fb, err)
	}
	os.RemoveAll(PrevDir(dir))
	if err := SaveCheckpoint(dir, model, nil, trainState{Step: 5}, nil); err != nil {
		t.Fatal(err)
	}
	os.Rename(dir, PrevDir(dir))
	if use, fb, err := ResolveCheckpoint(dir); err != nil || use != PrevDir(dir) || !fb {
		t.Errorf("previous only: %q %v %v, want the previous one", use, fb, err)
	}
	if _, _, err := ResolveCheckpoint(filepath.Join(out, "none")); err == nil || !strings.Contains(err.Error(), "none") {
		t.Errorf("missing: %v", err)
	}
}
