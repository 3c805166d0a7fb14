// Package ortcheck is test support: it runs an exported ONNX model with
// ONNX Runtime (scripts/ref/ort_run.mjs under node, installed by
// scripts/ref/setup_ort.sh) and compares its outputs with the ones a test
// expects. Only tests import it; when ONNX Runtime is not installed the
// checks log that and pass, so the packages' tests still run without it.
package ortcheck

import (
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"testing"

	"paddle/core/hub"
	"paddle/core/io"
	"paddle/core/tensor"
)

// NotInstalled is the message tests log or skip with when ONNX Runtime is
// absent.
const NotInstalled = "ONNX Runtime not installed (scripts/ref/setup_ort.sh): export not run by it"

// Runner returns the node command and the absolute path of
// scripts/ref/ort_run.mjs when ONNX Runtime is installed, else "", "".
// onnxruntime-node is looked up in $ORT_NODE_DIR, else in
// npm/ortnode-1.30.0 under hub.CacheDir().
func Runner() (node, script string) {
	node, err := exec.LookPath("node")
	if err != nil {
		return "", ""
	}
	dir := os.Getenv("ORT_NODE_DIR")
	if dir == "" {
		dir = filepath.Join(hub.CacheDir(), "npm", "ortnode-1.30.0")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "onnxruntime-node")); err != nil {
		return "", ""
	}
	_, self, _, ok := goruntime.Caller(0)
	if !ok {
		return "", ""
	}
	// self is core/runtime/ortcheck/ortcheck.go in the repository.
	return node, filepath.Join(filepath.Dir(self), "..", "..", "..", "scripts", "ref", "ort_run.mjs")
}

// Available reports whether ONNX Runtime is installed.
func Available() bool {
	node, _ := Runner()
	return node != ""
}

// NpyName is the file name ort_run.mjs writes the output called name to:
// every character outside [A-Za-z0-9._-] becomes "_", plus ".npy".
func NpyName(name string) string {
	b := []byte(name)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	return string(b) + ".npy"
}

// Run runs model with ONNX Runtime (one thread) on inputs, written as .npy
// files, and returns the outputs named in outputs. It returns nil when
// ONNX Runtime is not installed and fails t when ONNX Runtime rejects the
// model or an output is missing.
func Run(t testing.TB, model string, inputs map[string]*tensor.Tensor, outputs ...string) map[string]*tensor.Tensor {
	t.Helper()
	node, script := Runner()
	if node == "" {
		return nil
	}
	dir := t.TempDir()
	args := []string{script, "--threads", "1", model, dir}
	for name, x := range inputs {
		in := filepath.Join(dir, NpyName(name)+".in")
		if err := io.WriteNpy(in, x); err != nil {
			t.Fatal(err)
		}
		args = append(args, name+"="+in)
	}
	if b, err := exec.Command(node, args...).CombinedOutput(); err != nil {
		t.Fatalf("ONNX Runtime rejects %s: %v\n%s", model, err, b)
	}
	out := make(map[string]*tensor.Tensor, len(outputs))
	for _, name := range outputs {
		y, err := io.ReadNpy(filepath.Join(dir, NpyName(name)))
		if err != nil {
			t.Fatal(err)
		}
		out[name] = y
	}
	return out
}

// Output is one output a Compare checks: ONNX Runtime's value must be
// within Tol (max abs difference) of Want.
type Output struct {
	Name string
	Want *tensor.Tensor
	Tol  float64
}

// Compare runs model with ONNX Runtime on inputs and checks each output
// against its Want, logging the max abs difference and failing t (Errorf)
// beyond Tol. When ONNX Runtime is not installed it logs NotInstalled and
// returns false; otherwise it returns true.
func Compare(t testing.TB, model string, inputs map[string]*tensor.Tensor, outs ...Output) bool {
	t.Helper()
	names := make([]string, len(outs))
	for i, o := range outs {
		names[i] = o.Name
	}
	got := Run(t, model, inputs, names...)
	if got == nil {
		t.Log(NotInstalled)
		return false
	}
	for _, o := range outs {
		d, _ := tensor.MaxDiff(got[o.Name], o.Want, 0, 0)
		t.Logf("ONNX Runtime on %s vs want: %s max abs diff %.3g", filepath.Base(model), o.Name, d)
		if d > o.Tol {
			t.Errorf("ONNX Runtime on %s: %s differs by %g (tolerance %g)", filepath.Base(model), o.Name, d, o.Tol)
		}
	}
	return true
}
