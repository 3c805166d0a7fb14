// Package pdtest checks a model's map from PaddlePaddle's parameter names
// (workflow.PaddleNamer) against a fixture written by
// scripts/ref/pdparams_ref.py: each tensor of the fixture, stored under
// Paddle's name and in Paddle's layout, holds Pattern(the project's name for
// it), so a wrong map loads another tensor's pattern or fails on shape.
package pdtest

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"paddle/core/io/pdparams"

	"paddle/core/nn"
	"paddle/core/tensor"
	"paddle/core/workflow"
)

// Pattern is pdparams_ref.py's lcnet_pattern: 0.5 sin(0.37 i + 0.11 Σ
// bytes(name)) over the elements, and 1 + |that| for running variances.
func Pattern(name string, shape tensor.Shape) *tensor.Tensor {
	off := 0.0
	for _, b := range []byte(name) {
		off += float64(b)
	}
	off *= 0.11
	v := make([]float32, shape.NumElements())
	for i := range v {
		x := 0.5 * math.Sin(0.37*float64(i)+off)
		if strings.HasSuffix(name, "running_var") {
			x = 1 + math.Abs(x)
		}
		v[i] = float32(x)
	}
	return tensor.FromSlice(v, shape...)
}

// SetPattern gives every parameter and buffer of m Pattern(its name)
// (batch counters keep theirs).
func SetPattern(m nn.Module) {
	for _, p := range append(m.Params(), nn.Buffers(m)...) {
		if !strings.HasSuffix(p.Name, "num_batches_tracked") {
			p.V.T.CopyFrom(Pattern(p.Name, p.V.T.Shape()))
		}
	}
}

// MaxDiff is the largest absolute difference between a and b's elements.
func MaxDiff(a, b *tensor.Tensor) float64 {
	d := 0.0
	af, bf := a.Contiguous().Float64s(), b.Contiguous().Float64s()
	for i := range af {
		d = max(d, math.Abs(af[i]-bf[i]))
	}
	return d
}

// SamePattern loads fixture into got as --weights does (every tensor
// present, none left over) and compares got with want, which holds the
// pattern by its own names: every tensor, then fwd's predictions.
func SamePattern(fixture string, want, got nn.Module, fwd func(nn.Module) *tensor.Tensor) error {
	if _, err := workflow.LoadCheckpoint(fixture, got, nil); err != nil {
		return err
	}
	ws := nn.State(want)
	for name, g := range nn.State(got) {
		if d := MaxDiff(g, ws[name]); d > 1e-6 {
			return fmt.Errorf("%s differs from the pattern by %g", name, d)
		}
	}
	if d := MaxDiff(fwd(got), fwd(want)); d > 1e-5 {
		return fmt.Errorf("predictions differ by %g", d)
	}
	return nil
}

// WritesFixture writes m (holding the pattern) with
// workflow.WritePaddleWeights into dir and checks that the file holds the
// fixture's names, shapes and values: the writer names and lays out
// tensors as the independent Python writer read Paddle's sources.
func WritesFixture(fixture, dir string, m nn.Module) error {
	path := filepath.Join(dir, "out.pdparams")
	if err := workflow.WritePaddleWeights(path, m); err != nil {
		return err
	}
	return SameFile(path, fixture)
}

// SameFile checks that the .pdparams files path and fixture hold the same
// names, shapes and values.
func SameFile(path, fixture string) error {
	got, err := pdparams.Read(path)
	if err != nil {
		return err
	}
	want, err := pdparams.Read(fixture)
	if err != nil {
		return err
	}
	g, w := slices.Sorted(slices.Values(got.Names)), slices.Sorted(slices.Values(want.Names))
	if !slices.Equal(g, w) {
		return fmt.Errorf("wrote %d tensors, the fixture has %d (first written %v, fixture %v)", len(g), len(w), g[:min(3, len(g))], w[:min(3, len(w))])
	}
	for _, n := range w {
		a, b := got.Tensors[n], want.Tensors[n]
		if !a.Shape().Equal(b.Shape()) {
			return fmt.Errorf("%s: wrote %v, fixture %v", n, a.Shape(), b.Shape())
		}
		if d := MaxDiff(a, b); d > 0 {
			return fmt.Errorf("%s differs from the fixture by %g", n, d)
		}
	}
	return nil
}
