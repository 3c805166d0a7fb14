package pdparams

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/tensor"
)

func writeEntries() []Entry {
	w := make([]float32, 3*4)
	for i := range w {
		w[i] = float32(i)*0.37 - 1.5 // bytes ≥ 0x80 go through the latin-1 str
	}
	return []Entry{
		{Name: "conv.weight", ParamName: "conv2d_0.w_0", T: tensor.FromSlice(w, 3, 4)},
		{Name: "bn._mean", T: tensor.FromSlice([]float32{0.5, -0.25}, 2)},
		{Name: "fc.bias", T: tensor.FromSlice([]float64{1, -2, 3e300}, 3)},
		{Name: "steps", T: tensor.FromSlice([]int64{-7, 1 << 40}, 2)},
		{Name: "ids", T: tensor.FromSlice([]int32{-3, 9}, 2)},
		{Name: "mask", T: tensor.FromSlice([]bool{true, false}, 2)},
		{Name: "u", T: tensor.FromSlice([]uint8{0, 255}, 2)},
		{Name: "empty", T: tensor.FromSlice([]float32{}, 0, 3)},
	}
}

func checkSame(t *testing.T, f *File, entries []Entry) {
	t.Helper()
	if len(f.Names) != len(entries) {
		t.Fatalf("names %v, want %d entries", f.Names, len(entries))
	}
	for _, e := range entries {
		got, ok := f.Tensors[e.Name]
		if !ok {
			t.Fatalf("%s missing (have %v)", e.Name, f.Names)
		}
		if got.DType() != e.T.DType() || !got.Shape().Equal(e.T.Shape()) {
			t.Fatalf("%s: %s %v, want %s %v", e.Name, got.DType(), got.Shape(), e.T.DType(), e.T.Shape())
		}
		g, w := got.Float64s(), e.T.Float64s()
		for i := range w {
			if g[i] != w[i] {
				t.Fatalf("%s[%d] = %v, want %v", e.Name, i, g[i], w[i])
			}
		}
		pn := e.ParamName
		if pn == "" {
			pn = e.Name
		}
		if f.ParamNames[e.Name] != pn {
			t.Fatalf("%s: parameter name %q, want %q", e.Name, f.ParamNames[e.Name], pn)
		}
	}
}

func TestEncodeReadsBack(t *testing.T) {
	b, err := Encode(writeEntries())
	if err != nil {
		t.Fatal(err)
	}
	if b[0] != 0x80 || b[1] != 2 {
		t.Fatalf("header % x, want protocol 2", b[:2])
	}
	f, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	checkSame(t, f, writeEntries())
}

// With the split limit lowered to 5 elements, conv.weight (12) is cut in 3
// pieces and fc.bias stays whole; the reader joins them back.
func TestEncodeSplitsBigArrays(t *testing.T) {
	b, err := encode(writeEntries(), func(int) int { return 5 })
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "conv.weight@@.2") || strings.Contains(string(b), "conv.weight@@.3") {
		t.Fatal("conv.weight is not cut into pieces @@.0..@@.2")
	}
	f, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	checkSame(t, f, writeEntries())
}

func TestEncodeRefuses(t *testing.T) {
	e := writeEntries()
	if _, err := Encode(append(e, e[0])); err == nil || !strings.Contains(err.Error(), `"conv.weight" is given twice`) {
		t.Fatalf("err = %v", err)
	}
	if _, err := Encode([]Entry{{Name: "x"}}); err == nil || !strings.Contains(err.Error(), "no tensor") {
		t.Fatalf("err = %v", err)
	}
}

// pythonCheck loads the file with Python's pickle and NumPy (no Paddle: the
// file must need nothing else) and prints name, dtype, shape and the sum.
const pythonCheck = `
import pickle, sys
import numpy as np
d = pickle.load(open(sys.argv[1], "rb"))
for k, v in d.items():
    if isinstance(v, np.ndarray):
        print(k, v.dtype.str, list(v.shape), repr(float(v.astype(np.float64).sum())))
    else:
        print(k, sorted(v.items()) if isinstance(v, dict) else v)
`

// The written file loads with Debian's python3 and NumPy as paddle.load's
// pickle.load would, with the same dtypes, shapes and values.
func TestWrittenFileLoadsInPython(t *testing.T) {
	py := "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		t.Skip("skipped: /usr/bin/python3 is not installed, so the file cannot be checked against Python's pickle")
	}
	if err := exec.Command(py, "-c", "import numpy").Run(); err != nil {
		t.Skip("skipped: /usr/bin/python3 has no numpy (Debian python3-numpy)")
	}
	path := filepath.Join(t.TempDir(), "w.pdparams")
	if err := Write(path, writeEntries()); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py, "-c", pythonCheck, path).CombinedOutput()
	if err != nil {
		t.Fatalf("python3 cannot load the file: %v\n%s", err, out)
	}
	got := string(out)
	for _, want := range []string{
		"conv.weight <f4 [3, 4] 6.42000",
		"bn._mean <f4 [2] 0.25",
		"fc.bias <f8 [3] 3e+300",
		"steps <i8 [2] 1099511627769.0",
		"ids <i4 [2] 6.0",
		"mask |b1 [2] 1.0",
		"u |u1 [2] 255.0",
		"empty <f4 [0, 3] 0.0",
		"StructuredToParameterName@@ [('bn._mean', 'bn._mean'), ('conv.weight', 'conv2d_0.w_0'),",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("python3 printed\n%s\nwithout %q", got, want)
		}
	}
}
