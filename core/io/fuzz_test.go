package io

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/tensor"
)

// FuzzDecodeNpy: DecodeNpy never panics and never allocates more than the
// input holds; what decodes encodes back to an array that decodes equal.
func FuzzDecodeNpy(f *testing.F) {
	names, err := filepath.Glob(filepath.Join("testdata", "*.npy"))
	if err != nil || len(names) == 0 {
		f.Fatalf("no npy seeds: %v", err)
	}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("\x93NUMPY\x01\x00\x76\x00{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000000, 1000000), }"))
	f.Fuzz(func(t *testing.T, b []byte) {
		x, err := DecodeNpy(bytes.NewReader(b))
		if err != nil {
			return
		}
		if x.Len()*x.DType().Size() > len(b) {
			t.Fatalf("decoded %v %v from %d bytes", x.DType(), x.Shape(), len(b))
		}
		var out bytes.Buffer
		if err := EncodeNpy(&out, x); err != nil {
			return // a dtype npy cannot write back is fine
		}
		y, err := DecodeNpy(&out)
		if err != nil {
			t.Fatalf("re-decode: %v", err)
		}
		if !sameBytes(x, y) {
			t.Fatalf("round trip changed %v %v", x.DType(), x.Shape())
		}
	})
}

// FuzzDecodeSafetensors: DecodeSafetensors never panics, and every tensor it
// returns fits in the input.
func FuzzDecodeSafetensors(f *testing.F) {
	for _, seed := range safetensorsSeeds(f) {
		f.Add(seed)
	}
	f.Add([]byte("\x10\x00\x00\x00\x00\x00\x00\x00{\"a\":{}}        "))
	f.Fuzz(func(t *testing.T, b []byte) {
		ts, _, err := DecodeSafetensors(bytes.NewReader(b), int64(len(b)), "in.safetensors")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "in.safetensors: ") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		for _, n := range ts {
			if n.T.Len()*n.T.DType().Size() > len(b) {
				t.Fatalf("tensor %q %v %v from %d bytes", n.Name, n.T.DType(), n.T.Shape(), len(b))
			}
		}
	})
}

// FuzzCheckpoint: a checkpoint folder with any model.safetensors and any
// state.yaml (each present or not, and a previous folder beside it) is
// resolved, loaded and its state decoded without a panic; every error names
// the folder.
func FuzzCheckpoint(f *testing.F) {
	seeds := safetensorsSeeds(f)
	state := []byte("epoch: 2\nbatch: 0\nstep: 10\nseed: 1\nmetric: acc\nbest_metric: 0.5\nbest_epoch: 1\nlast_metric: 0.5\n")
	for _, m := range seeds {
		for layout := range uint8(8) {
			f.Add(m, state, layout)
		}
	}
	f.Add(seeds[0], []byte("epoch: [1\nstep: x\n"), uint8(3))
	f.Add(seeds[0], []byte("unknown_key: 1\n"), uint8(3))
	root := f.TempDir() // one per fuzzing process, emptied before each input
	f.Fuzz(func(t *testing.T, model, state []byte, layout uint8) {
		dir := filepath.Join(root, "latest")
		for _, d := range []string{dir, PrevDir(dir)} {
			if err := os.RemoveAll(d); err != nil {
				t.Fatal(err)
			}
		}
		write := func(dir, name string, b []byte) {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		// layout's bits: model in dir, state in dir, a complete previous folder.
		if layout&1 != 0 {
			write(dir, ModelFile, model)
		}
		if layout&2 != 0 {
			write(dir, StateFile, state)
		}
		if layout&4 != 0 {
			write(PrevDir(dir), ModelFile, model)
			write(PrevDir(dir), StateFile, state)
		}
		use, _, err := ResolveCheckpoint(dir)
		if err != nil {
			if !strings.Contains(err.Error(), dir) {
				t.Fatalf("error %q does not name %s", err, dir)
			}
			return
		}
		c, err := LoadCheckpoint(use)
		if err != nil {
			if !strings.Contains(err.Error(), use) {
				t.Fatalf("error %q does not name %s", err, use)
			}
			return
		}
		var st struct {
			Epoch      int     `yaml:"epoch"`
			Batch      int     `yaml:"batch"`
			Step       int     `yaml:"step"`
			Seed       uint64  `yaml:"seed"`
			Metric     string  `yaml:"metric"`
			BestMetric float64 `yaml:"best_metric"`
			BestEpoch  int     `yaml:"best_epoch"`
			LastMetric float64 `yaml:"last_metric"`
		}
		if err := c.DecodeState(&st); err != nil && !strings.Contains(err.Error(), use) {
			t.Fatalf("state error %q does not name %s", err, use)
		}
		_ = CheckNames(map[string]Spec{"w": {DType: tensor.Float32, Shape: tensor.Shape{2, 3}}}, c.Model)
	})
}

// safetensorsSeeds returns small valid safetensors files: two tensors with
// metadata, a scalar, an empty tensor.
func safetensorsSeeds(f *testing.F) [][]byte {
	var out [][]byte
	for _, ts := range [][]Named{
		{{"w", tensor.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)}, {"b", tensor.FromSlice([]int64{7}, 1)}},
		{{"s", tensor.Scalar[float64](2.5)}},
		{{"e", tensor.New(tensor.Float32, 0, 4)}},
	} {
		var b bytes.Buffer
		if err := EncodeSafetensors(&b, ts, map[string]string{"format": "pt"}); err != nil {
			f.Fatal(err)
		}
		out = append(out, b.Bytes())
	}
	return out
}

// sameBytes compares dtype, shape and the bytes of the elements (NaNs too).
func sameBytes(a, b *tensor.Tensor) bool {
	if a.DType() != b.DType() || !a.Shape().Equal(b.Shape()) {
		return false
	}
	var x, y bytes.Buffer
	return EncodeNpy(&x, a) == nil && EncodeNpy(&y, b) == nil && bytes.Equal(x.Bytes(), y.Bytes())
}
