package io

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/tensor"
)

// goldenNpy rebuilds the arrays scripts/ref/npy_ref.py wrote with NumPy:
// k = 0..5 in a 2x3 grid; floats (k-2)*1.5, signed ints k-2, uint8 k*50, bool k%2==0.
func goldenNpy() map[string]*tensor.Tensor {
	f32, f64 := make([]float32, 6), make([]float64, 6)
	i64, i32, i8 := make([]int64, 6), make([]int32, 6), make([]int8, 6)
	u8, b := make([]uint8, 6), make([]bool, 6)
	for k := range 6 {
		f32[k], f64[k] = float32(k-2)*1.5, float64(k-2)*1.5
		i64[k], i32[k], i8[k] = int64(k-2), int32(k-2), int8(k-2)
		u8[k], b[k] = uint8(k*50), k%2 == 0
	}
	return map[string]*tensor.Tensor{
		"f4": tensor.FromSlice(f32, 2, 3), "f8": tensor.FromSlice(f64, 2, 3),
		"i8": tensor.FromSlice(i64, 2, 3), "i4": tensor.FromSlice(i32, 2, 3),
		"u1": tensor.FromSlice(u8, 2, 3), "i1": tensor.FromSlice(i8, 2, 3),
		"b1": tensor.FromSlice(b, 2, 3),
	}
}

func TestReadNpyGolden(t *testing.T) {
	g := goldenNpy()
	files := map[string]*tensor.Tensor{
		"np_f4_fortran.npy":    g["f4"],
		"np_f8_big.npy":        g["f8"],
		"np_f2.npy":            g["f4"], // (k-2)*1.5 is exact in float16
		"np_f4_v2.npy":         g["f4"],
		"np_f4_v3.npy":         g["f4"],
		"np_scalar.npy":        tensor.Scalar(3.25),
		"np_empty.npy":         tensor.New(tensor.Float32, 0, 3),
		"np_i4_3d_fortran.npy": tensor.Arange(tensor.Int32, 0, 24, 1).Reshape(2, 3, 4),
	}
	for k, v := range g {
		files["np_"+k+".npy"] = v
	}
	for name, want := range files {
		t.Run(name, func(t *testing.T) {
			got, err := ReadNpy(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			sameTensor(t, name, got, want)
		})
	}
}

func TestNpyRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for name, want := range sampleTensors() {
		p := filepath.Join(dir, name+".npy")
		if err := WriteNpy(p, want); err != nil {
			t.Fatal(err)
		}
		got, err := ReadNpy(p)
		if err != nil {
			t.Fatal(err)
		}
		sameTensor(t, name, got, want)
	}
}

// TestNpyWriterMatchesNumPy: our bytes equal numpy.save's for the golden arrays
// (format 1.0, same header text and 64-byte alignment).
func TestNpyWriterMatchesNumPy(t *testing.T) {
	for k, v := range goldenNpy() {
		var b bytes.Buffer
		if err := EncodeNpy(&b, v); err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join("testdata", "np_"+k+".npy"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b.Bytes(), want) {
			t.Errorf("%s:\n got %q\nwant %q", k, b.Bytes(), want)
		}
	}
}

func TestNpyStream(t *testing.T) {
	var b bytes.Buffer
	a, c := tensor.FromSlice([]float32{1, 2, 3}), tensor.FromSlice([]int64{4, 5}, 2, 1)
	EncodeNpy(&b, a)
	EncodeNpy(&b, c)
	r := bytes.NewReader(b.Bytes())
	got1, err := DecodeNpy(r)
	if err != nil {
		t.Fatal(err)
	}
	got2, err := DecodeNpy(r)
	if err != nil {
		t.Fatal(err)
	}
	sameTensor(t, "first", got1, a)
	sameTensor(t, "second", got2, c)
}

func TestNpyCorrupt(t *testing.T) {
	var b bytes.Buffer
	EncodeNpy(&b, tensor.FromSlice([]float64{1, 2, 3, 4}, 2, 2))
	full := b.Bytes()
	for n := range len(full) {
		if _, err := DecodeNpy(bytes.NewReader(full[:n])); err == nil {
			t.Errorf("truncated to %d of %d bytes: no error", n, len(full))
		}
	}
	for i := range len(full) {
		for _, x := range []byte{0x01, 0x80, 0xff} {
			c := bytes.Clone(full)
			c[i] ^= x
			DecodeNpy(bytes.NewReader(c)) // must not panic
		}
	}
	hdr := func(dict string) []byte {
		s := append([]byte("\x93NUMPY\x01\x00"), byte(len(dict)), 0)
		return append(s, dict...)
	}
	for _, tt := range []struct {
		name string
		in   []byte
		want string
	}{
		{"magic", []byte("PK\x03\x04xxxxxxxxxx"), "bad magic"},
		{"version", []byte("\x93NUMPY\x09\x00\x00\x00"), "unsupported format version 9.0"},
		{"dtype", hdr("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }"), `unsupported dtype "<c8"`},
		{"structured", hdr("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }"), "structured"},
		{"missing key", hdr("{'descr': '<f4', 'shape': (1,), }"), `missing key "fortran_order"`},
		{"bad shape", hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (1,x), }"), "shape entry"},
		{"short data", hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000,), }"), "read 1000000000 elements"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeNpy(bytes.NewReader(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
	p := filepath.Join(t.TempDir(), "short.npy")
	os.WriteFile(p, full[:len(full)-3], 0o644)
	if _, err := ReadNpy(p); err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("ReadNpy error %v should name the file", err)
	}
}

// TestNumPyReadsOurNpy asks NumPy itself (Debian python3-numpy) to load what we wrote.
func TestNumPyReadsOurNpy(t *testing.T) {
	const py = "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import numpy").Run(); err != nil {
		t.Skipf("skipping: %s with numpy is not available (%v); the golden files still check the format", py, err)
	}
	dir := t.TempDir()
	var script strings.Builder
	script.WriteString("import numpy as np, sys\n")
	for name, v := range sampleTensors() {
		p := filepath.Join(dir, name+".npy")
		if err := WriteNpy(p, v); err != nil {
			t.Fatal(err)
		}
		c := v.Contiguous()
		fmt.Fprintf(&script, "a = np.load(%q)\n", p)
		fmt.Fprintf(&script, "assert a.shape == %s, (%q, a.shape)\n", pyTuple(v.Shape()), name)
		fmt.Fprintf(&script, "assert a.dtype.str == %q, (%q, a.dtype.str)\n", npyDescr[v.DType()], name)
		fmt.Fprintf(&script, "assert a.flags.c_contiguous\n")
		fmt.Fprintf(&script, "want = np.array(%s, dtype=a.dtype).reshape(a.shape)\n", pyList(c))
		fmt.Fprintf(&script, "assert np.array_equal(a, want), (%q, a, want)\n", name)
	}
	script.WriteString("print('ok')\n")
	out, err := exec.Command(py, "-c", script.String()).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Fatalf("numpy could not read our files: %v\n%s", err, out)
	}
}

func pyTuple(s tensor.Shape) string {
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = fmt.Sprint(d)
	}
	if len(s) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func pyList(t *tensor.Tensor) string {
	parts := make([]string, 0, t.Len())
	switch t.DType() {
	case tensor.Int64:
		for _, v := range t.I64() {
			parts = append(parts, fmt.Sprint(v))
		}
	case tensor.Bool:
		for _, v := range t.Bools() {
			parts = append(parts, map[bool]string{true: "True", false: "False"}[v])
		}
	default:
		for _, v := range t.Float64s() {
			parts = append(parts, fmt.Sprintf("%.17g", v))
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
