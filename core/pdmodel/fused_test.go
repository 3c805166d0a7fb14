package pdmodel_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/io"
	"paddle/core/pdmodel"
	"paddle/core/pdmodel/pdpb"
	"paddle/core/runtime"
	"paddle/core/tensor"
)

// runFixture runs the program in dir on x and returns its output "out".
func runFixture(t *testing.T, dir string, x *tensor.Tensor) *tensor.Tensor {
	t.Helper()
	g, err := pdmodel.ReadFile(filepath.Join(dir, "inference.pdmodel"), "")
	if err != nil {
		t.Fatal(err)
	}
	p, err := runtime.New(g, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Run(map[string]*tensor.Tensor{"x": x})
	if err != nil {
		t.Fatal(err)
	}
	return out["out"]
}

// TestFusedMatchesUnfused runs the fixture of `pdmodel_ref.py fused`: the
// operators Paddle's inference passes write (fc with padding_weights,
// conv2d_fusion, fused_conv2d_add_act with a residual, fused_conv2d and
// conv2d with oneDNN's fuse_* attributes, fused_elementwise_add,
// elementwise_mul with fuse_activation, fused_matmul with fused
// reshape/transpose, matmul_v2 with ResidualData, fused_elemwise_activation,
// fused_elemwise_add_activation) and the same computation in plain
// operators; both must equal the script's NumPy forward pass.
func TestFusedMatchesUnfused(t *testing.T) {
	x, err := io.ReadNpy("testdata/fused/x.npy")
	if err != nil {
		t.Fatal(err)
	}
	want, err := io.ReadNpy("testdata/fused/out.npy")
	if err != nil {
		t.Fatal(err)
	}
	fused := runFixture(t, "testdata/fused", x)
	plain := runFixture(t, "testdata/unfused", x)
	if d := maxAbsDiff(t, fused, want); d > 1e-5 {
		t.Errorf("fused: max abs diff %g from NumPy", d)
	}
	if d := maxAbsDiff(t, plain, want); d > 1e-5 {
		t.Errorf("unfused: max abs diff %g from NumPy", d)
	}
	if d := maxAbsDiff(t, fused, plain); d > 1e-5 {
		t.Errorf("fused and unfused differ by %g", d)
	}
}

// TestMultiheadMatmulMatchesUnfused: multihead_matmul (heads 2, alpha
// 1/√D, a BiasQK) against the attention written in plain operators and
// NumPy (`pdmodel_ref.py fused`, testdata/fused_mha and unfused_mha).
func TestMultiheadMatmulMatchesUnfused(t *testing.T) {
	x, err := io.ReadNpy("testdata/fused_mha/x.npy")
	if err != nil {
		t.Fatal(err)
	}
	want, err := io.ReadNpy("testdata/fused_mha/out.npy")
	if err != nil {
		t.Fatal(err)
	}
	fused := runFixture(t, "testdata/fused_mha", x)
	plain := runFixture(t, "testdata/unfused_mha", x)
	if d := maxAbsDiff(t, fused, want); d > 1e-5 {
		t.Errorf("fused: max abs diff %g from NumPy", d)
	}
	if d := maxAbsDiff(t, plain, want); d > 1e-5 {
		t.Errorf("unfused: max abs diff %g from NumPy", d)
	}
}

// setAttr gives the first op of type typ in p attribute name: a string,
// float or ints value.
func setAttr(t *testing.T, p *pdpb.Program, typ, name string, v any) {
	t.Helper()
	for _, o := range p.Blocks[0].Ops {
		if o.Type != typ {
			continue
		}
		a := o.Attr(name)
		if a == nil {
			a = &pdpb.Attr{Name: name}
			o.Attrs = append(o.Attrs, a)
		}
		switch v := v.(type) {
		case string:
			a.Type, a.S = pdpb.AttrString, v
		case float32:
			a.Type, a.F = pdpb.AttrFloat, v
		case []int32:
			a.Type, a.Ints = pdpb.AttrInts, v
		}
		return
	}
	t.Fatalf("no %s op", typ)
}

// Unsupported fused attributes fail naming the op and the attribute; the
// file's name is added by ReadFile (see TestFusedErrorNamesFile).
func TestFusedUnsupported(t *testing.T) {
	for _, c := range []struct {
		typ, attr string
		v         any
		want      string
	}{
		{"conv2d_fusion", "activation", "softsign", `operator conv2d_fusion ("conv2d_fusion_1"): activation "softsign" is not supported`},
		{"fused_conv2d_add_act", "split_channels", []int32{4, 4}, "attribute split_channels [4 4] is not supported"},
		{"fused_conv2d", "fuse_activation", "elu", `operator fused_conv2d ("fused_conv2d_3"): fuse_activation "elu" is not supported`},
		{"fused_elementwise_add", "scale_x", float32(0.5), "fused_elementwise_add"},
		{"fused_matmul", "mkldnn_data_type", "int8", `attribute mkldnn_data_type "int8" is not supported`},
		{"fc", "activation_type", "tanh_shrink", `activation_type "tanh_shrink" is not supported`},
		{"fused_elemwise_activation", "functor_list", "x", "functor_list"},
	} {
		p, err := pdpb.ReadProgram("testdata/fused/inference.pdmodel")
		if err != nil {
			t.Fatal(err)
		}
		ts, err := pdpb.ReadParams("testdata/fused/inference.pdiparams", p.Persistables())
		if err != nil {
			t.Fatal(err)
		}
		setAttr(t, p, c.typ, c.attr, c.v)
		_, err = pdmodel.Import(p, ts)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.attr) {
			t.Errorf("%s %s: error %v, want %q", c.typ, c.attr, err, c.want)
		}
	}
}

// testdata/fused_pir is `pir_ref.py fused`: pd_op.fused_conv2d_add_act
// (bias, residual, relu) and pd_op.fc (relu) in a Paddle 3 program, run
// against the script's NumPy forward pass.
func TestFusedPIRMatchesNumPy(t *testing.T) {
	g, err := pdmodel.ReadPIRFile("testdata/fused_pir/inference.json", "")
	if err != nil {
		t.Fatal(err)
	}
	p, err := runtime.New(g, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	x, err := io.ReadNpy("testdata/fused_pir/x.npy")
	if err != nil {
		t.Fatal(err)
	}
	want, err := io.ReadNpy("testdata/fused_pir/out.npy")
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

// An unsupported fused attribute in a file fails naming the file, the op
// and the attribute.
func TestFusedErrorNamesFile(t *testing.T) {
	b, err := os.ReadFile("testdata/fused_pir/inference.json")
	if err != nil {
		t.Fatal(err)
	}
	old := `"D": "relu"}}, {"N": "split_channels"`
	if !strings.Contains(string(b), old) {
		t.Fatalf("fixture lacks %q", old)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "inference.json")
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), old, `"D": "softsign"}}, {"N": "split_channels"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := copyFile("testdata/fused_pir/inference.pdiparams", filepath.Join(dir, "inference.pdiparams")); err != nil {
		t.Fatal(err)
	}
	_, err = pdmodel.ReadPIRFile(path, "")
	if err == nil || !strings.Contains(err.Error(), "inference.json") || !strings.Contains(err.Error(), "fused_conv2d_add_act") ||
		!strings.Contains(err.Error(), `activation "softsign" is not supported`) {
		t.Fatalf("error %v", err)
	}
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o644)
}
