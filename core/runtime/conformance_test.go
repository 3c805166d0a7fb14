package runtime

import (
	"os"
	"testing"
)

const onnxNodeTests = "/usr/share/libonnx-testdata/data/node"

// TestONNXConformance runs every ONNX node test (Debian libonnx-testdata)
// whose ops are all in ConformanceOps and fails on any mismatch. The tests
// not run are listed, each with its reason, in ConformanceExclusions
// (conformance.go): unsupported dtypes (float16, bfloat16, string, 16-bit
// and unsigned 32/64-bit integers, optional/sequence values), random
// outputs (training dropout) and out-of-scope modes (cubic and
// tf_crop_and_resize resize, 3-D pooling/convolution, max-pool indices,
// training-mode batch norm, einsum ellipsis/diagonal, LSTM peepholes).
// ConformanceKnownFailures lists what fails today and why.
func TestONNXConformance(t *testing.T) {
	if _, err := os.Stat(onnxNodeTests); err != nil {
		t.Skipf("ONNX node tests not found in %s: apt-get install libonnx-testdata", onnxNodeTests)
	}
	res, err := Conformance(onnxNodeTests, ConformanceExclusions)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, r := range res {
		count[r.Status]++
		switch r.Status {
		case "fail":
			t.Errorf("%s: %s", r.Name, r.Reason)
		case "known":
			t.Logf("known failure %s: %s", r.Name, r.Reason)
		case "pass":
			if why, ok := ConformanceKnownFailures[r.Name]; ok {
				t.Errorf("%s passes: remove it from ConformanceKnownFailures (%s)", r.Name, why)
			}
		}
	}
	t.Logf("passed %d, failed %d, known failures %d, excluded %d (out of scope: %d)",
		count["pass"], count["fail"], count["known"], count["excluded"], count["skipped"])
}

// TestONNXExportRoundTrip runs the same tests with each imported model
// exported back to ONNX and re-imported first: what import accepts, export
// writes faithfully.
func TestONNXExportRoundTrip(t *testing.T) {
	if _, err := os.Stat(onnxNodeTests); err != nil {
		t.Skipf("ONNX node tests not found in %s: apt-get install libonnx-testdata", onnxNodeTests)
	}
	res, err := ConformanceRoundTrip(onnxNodeTests, ConformanceExclusions)
	if err != nil {
		t.Fatal(err)
	}
	pass := 0
	for _, r := range res {
		switch r.Status {
		case "fail":
			t.Errorf("%s: %s", r.Name, r.Reason)
		case "pass":
			pass++
		}
	}
	t.Logf("round trip: %d passed", pass)
}
