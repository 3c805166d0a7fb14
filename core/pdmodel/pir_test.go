package pdmodel_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/io"
	"paddle/core/pdmodel"
	"paddle/core/runtime"
	"paddle/core/tensor"
)

// testdata/tiny_pir/inference.json is scripts/ref/pir_ref.py's PIR form of
// the tiny network (pd_op operators with their Paddle 3 operands, constant
// operands from full_int_array and full, batch_norm_ and relu_ in place);
// its weights are tiny's. Run, it must give tiny's NumPy output.
func TestTinyPIRMatchesNumPy(t *testing.T) {
	g, err := pdmodel.ReadPIRFile("testdata/tiny_pir/inference.json", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Inputs) != 1 || g.Inputs[0].Name != "x" || g.OutputName(0) != "fetch_name_0" {
		t.Fatalf("inputs %v outputs %v", g.Inputs, g.OutputNames)
	}
	p, err := runtime.New(g, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	x, err := io.ReadNpy("testdata/tiny/x.npy")
	if err != nil {
		t.Fatal(err)
	}
	want, err := io.ReadNpy("testdata/tiny/out.npy")
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Run(map[string]*tensor.Tensor{"x": x})
	if err != nil {
		t.Fatal(err)
	}
	if d := maxAbsDiff(t, out[g.OutputName(0)], want); d > 1e-5 {
		t.Fatalf("max abs diff %g from NumPy", d)
	}
}

// pirWith writes the tiny PIR program with one edit into a temp dir.
func pirWith(t *testing.T, old, new string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/tiny_pir/inference.json")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("fixture lacks %q", old)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "inference.json")
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	p, _ := os.ReadFile("testdata/tiny_pir/inference.pdiparams")
	if err := os.WriteFile(filepath.Join(dir, "inference.pdiparams"), p, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestPIRErrorsNameTheOpAndFile(t *testing.T) {
	for _, tt := range []struct{ old, new, want string }{
		{`"1.hardswish"`, `"1.roi_align"`, `"1.roi_align": operator pd_op.roi_align is not supported`},
		{`"1.softmax"`, `"3.my_custom"`, "operator 3.my_custom is not supported"},
		{`"magic": "pir"`, `"magic": "onnx"`, `base_code.magic is not "pir"`},
		{`"0.t_f32"`, `"0.t_c64"`, `element type "0.t_c64" is not supported`},
	} {
		path := pirWith(t, tt.old, tt.new)
		_, err := pdmodel.ReadPIRFile(path, "")
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s → %s: err = %v, want %q and the file", tt.old, tt.new, err, tt.want)
		}
	}
}

// FuzzDecodePIR: no JSON makes the PIR reader or the importer panic.
func FuzzDecodePIR(f *testing.F) {
	if b, err := os.ReadFile("testdata/tiny_pir/inference.json"); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`{"base_code":{"magic":"pir"},"program":{"regions":[{"blocks":[{"ops":[{"#":"p","O":{"%":1},"A":[0,1,0,"w"]}]}]}]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := pdmodel.DecodePIR(b)
		if err != nil {
			return
		}
		_, _ = pdmodel.Import(p, nil)
	})
}
