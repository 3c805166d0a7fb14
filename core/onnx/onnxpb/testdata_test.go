package onnxpb

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// onnxTestData is where Debian's libonnx-testdata puts the ONNX backend test
// suite: <kind>/<test>/model.onnx and <test>/test_data_set_N/{input,output}_K.pb.
const onnxTestData = "/usr/share/libonnx-testdata/data"

// testDataVersion is the libonnx-testdata version testdata/libonnx_testdata.json
// was made from (scripts/ref/onnxpb_golden.py).
const testDataVersion = "1.12.0-2"

// TestONNXTestData decodes every model and every test_data_set_0 value of the
// ONNX backend test suite, re-encodes each model (the second encoding must
// equal the first, and tensors must re-encode to their original bytes), and
// compares the tensor values with the onnx package's (libonnx_testdata.json).
func TestONNXTestData(t *testing.T) {
	models, _ := filepath.Glob(filepath.Join(onnxTestData, "*", "*", "model.onnx"))
	if len(models) == 0 {
		t.Skipf("no models under %s: apt-get install -y libonnx-testdata", onnxTestData)
	}
	var golden struct {
		Tensors map[string][2]any `json:"tensors"`
	}
	readJSON(t, "testdata/libonnx_testdata.json", &golden)
	checkValues := debianVersion("libonnx-testdata") == testDataVersion
	if !checkValues {
		t.Logf("libonnx-testdata is not %s: values not compared with the reference", testDataVersion)
	}
	compared := 0
	for _, path := range models {
		dir := filepath.Dir(path)
		rel, _ := filepath.Rel(onnxTestData, dir)
		m, err := ReadFile(path)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		enc, err := m.Marshal()
		if err != nil {
			t.Errorf("%s: Marshal: %v", rel, err)
			continue
		}
		m2, err := Decode(enc)
		if err != nil {
			t.Errorf("%s: Decode(Marshal(m)): %v", rel, err)
			continue
		}
		if enc2, _ := m2.Marshal(); !bytes.Equal(enc, enc2) {
			t.Errorf("%s: Marshal(Decode(Marshal(m))) != Marshal(m)", rel)
		}

		n, sum := checkTestValues(t, rel, m, filepath.Join(dir, "test_data_set_0"))
		want, ok := golden.Tensors[rel]
		switch {
		case !checkValues:
		case n == 0 && ok, n > 0 && !ok:
			t.Errorf("%s: %d tensor values, reference has %v", rel, n, want)
		case n > 0 && (want[0] != float64(n) || want[1] != sum):
			t.Errorf("%s: %d tensor values with digest %s, onnx reference %v", rel, n, sum, want)
		case n > 0:
			compared++
		}
	}
	if checkValues && compared != len(golden.Tensors) {
		t.Errorf("compared %d test directories with the reference, want %d", compared, len(golden.Tensors))
	}
	t.Logf("%d models, tensor values of %d test directories match onnx", len(models), compared)
}

// checkTestValues decodes each input_K.pb / output_K.pb in dir with the type of
// the K-th graph input or output. It returns the number of tensor values and
// the digest onnxpb_golden.py computes over them.
func checkTestValues(t *testing.T, rel string, m *Model, dir string) (int, string) {
	t.Helper()
	pbs, _ := filepath.Glob(filepath.Join(dir, "*.pb"))
	sort.Strings(pbs)
	h := sha256.New()
	n := 0
	for _, pb := range pbs {
		base := filepath.Base(pb)
		b, err := os.ReadFile(pb)
		if err != nil {
			t.Fatal(err)
		}
		v, err := DecodeValue(b, valueType(m.Graph, base))
		if err != nil {
			t.Errorf("%s/%s: %v", rel, base, err)
			continue
		}
		tensor, ok := v.(*Tensor)
		if !ok {
			continue
		}
		if enc, err := tensor.Marshal(); err != nil || !bytes.Equal(enc, b) {
			t.Errorf("%s/%s: Marshal(DecodeTensor(b)) != b (err %v)", rel, base, err)
		}
		c, ok, err := canonical(tensor)
		if err != nil {
			t.Errorf("%s/%s: %v", rel, base, err)
		}
		if !ok {
			continue
		}
		h.Write([]byte(base + "\x00"))
		h.Write(c)
		n++
	}
	return n, hex.EncodeToString(h.Sum(nil))[:16]
}

// valueType returns the type of the graph input or output a test file
// ("input_2.pb") holds, or nil if the graph does not say.
func valueType(g *Graph, base string) *TypeProto {
	vis := g.Input
	name, ok := strings.CutPrefix(base, "input_")
	if !ok {
		vis = g.Output
		name, _ = strings.CutPrefix(base, "output_")
	}
	i, err := strconv.Atoi(strings.TrimSuffix(name, ".pb"))
	if err != nil || i >= len(vis) {
		return nil
	}
	return vis[i].Type
}

// debianVersion returns the installed version of a Debian package, or "".
func debianVersion(pkg string) string {
	f, err := os.Open("/var/lib/dpkg/status")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	found := false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			found = false
		case line == "Package: "+pkg:
			found = true
		case found && strings.HasPrefix(line, "Version: "):
			return strings.TrimPrefix(line, "Version: ")
		}
	}
	return ""
}
