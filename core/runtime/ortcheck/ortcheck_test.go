package ortcheck

import (
	"path/filepath"
	"testing"

	"paddle/core/tensor"
)

func TestNpyName(t *testing.T) {
	tests := []struct{ name, want string }{
		{"output", "output.npy"},
		{"sigmoid_0.tmp_0", "sigmoid_0.tmp_0.npy"},
		{"a/b:c d", "a_b_c_d.npy"},
	}
	for _, tt := range tests {
		if got := NpyName(tt.name); got != tt.want {
			t.Errorf("NpyName(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// When ONNX Runtime is installed, Run reports a model it cannot read as a
// failure rather than passing silently.
func TestRunRejectsBadModel(t *testing.T) {
	if !Available() {
		t.Skip(NotInstalled)
	}
	ft := &fakeT{TB: t}
	func() {
		defer func() { _ = recover() }()
		Run(ft, filepath.Join(t.TempDir(), "missing.onnx"), map[string]*tensor.Tensor{"x": tensor.Zeros(tensor.Float32, 1)}, "y")
	}()
	if !ft.failed {
		t.Error("Run on a missing model did not fail the test")
	}
}

// fakeT records Fatalf instead of stopping the real test.
type fakeT struct {
	testing.TB
	failed bool
}

func (f *fakeT) Helper() {}

func (f *fakeT) Fatalf(format string, args ...any) {
	f.failed = true
	panic("fatal")
}

func (f *fakeT) Fatal(args ...any) {
	f.failed = true
	panic("fatal")
}
