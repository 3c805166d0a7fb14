package pdmodel_test

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/io"
	"paddle/core/op"
	"paddle/core/pdmodel"
	"paddle/core/pdmodel/pdpb"
	"paddle/core/runtime"
	"paddle/core/tensor"
)

// maxAbsDiff is the largest |a-b| over two tensors of one shape.
func maxAbsDiff(t *testing.T, a, b *tensor.Tensor) float64 {
	t.Helper()
	if !a.Shape().Equal(b.Shape()) {
		t.Fatalf("shapes %v and %v", a.Shape(), b.Shape())
	}
	x, y := a.Float64s(), b.Float64s()
	m := 0.0
	for i := range x {
		m = max(m, math.Abs(x[i]-y[i]))
	}
	return m
}

// TestTinyMatchesNumPy runs the fixture of scripts/ref/pdmodel_ref.py (conv,
// batch_norm, relu, depthwise conv, hard_swish, adaptive pool, an SE block
// with axis-1 broadcasting, max pool, flatten, matmul_v2, scale, softmax)
// and compares with the script's own NumPy forward pass.
func TestTinyMatchesNumPy(t *testing.T) {
	dir := "testdata/tiny"
	g, err := pdmodel.ReadFile(filepath.Join(dir, "inference.pdmodel"), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Inputs) != 1 || g.Inputs[0].Name != "x" || g.OutputName(0) != "softmax_0.tmp_0" {
		t.Fatalf("inputs %v outputs %v", g.Inputs, g.OutputNames)
	}
	p, err := runtime.New(g, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	x, err := io.ReadNpy(filepath.Join(dir, "x.npy"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := io.ReadNpy(filepath.Join(dir, "out.npy"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Run(map[string]*tensor.Tensor{"x": x})
	if err != nil {
		t.Fatal(err)
	}
	if d := maxAbsDiff(t, out["softmax_0.tmp_0"], want); d > 1e-5 {
		t.Fatalf("max abs diff %g from NumPy", d)
	}
}

func TestMissingParams(t *testing.T) {
	_, err := pdmodel.ReadFile("testdata/tiny/inference.pdmodel", "testdata/none.pdiparams")
	if err == nil || !strings.Contains(err.Error(), "none.pdiparams") {
		t.Fatalf("error %v", err)
	}
}

func TestUnsupportedOp(t *testing.T) {
	p, err := pdpb.ReadProgram("testdata/tiny/inference.pdmodel")
	if err != nil {
		t.Fatal(err)
	}
	ts, err := pdpb.ReadParams("testdata/tiny/inference.pdiparams", p.Persistables())
	if err != nil {
		t.Fatal(err)
	}
	p.Blocks[0].Ops[3].Type = "roi_align"
	_, err = pdmodel.Import(p, ts)
	if err == nil || !strings.Contains(err.Error(), `pdmodel: operator roi_align ("roi_align_3"): operator "roi_align" is not supported`) {
		t.Fatalf("error %v", err)
	}
}

// Every registry op a builder emits exists (emit panics otherwise).
func TestRegistryNames(t *testing.T) {
	for _, n := range []string{"conv2d", "conv_transpose2d", "batch_norm", "layer_norm", "adaptive_avg_pool2d",
		"global_avg_pool", "global_max_pool", "max_pool2d", "avg_pool2d", "add", "sub", "mul", "div", "pow",
		"maximum", "minimum", "unsqueeze", "relu", "sigmoid", "tanh", "sqrt", "rsqrt", "abs", "exp", "log",
		"floor", "erf", "silu", "softplus", "clip", "leaky_relu", "hardsigmoid", "gelu", "hardswish", "matmul", "reshape",
		"transpose", "squeeze", "softmax", "concat", "split", "slice", "resize", "shape", "cast"} {
		if op.Lookup(n) == nil {
			t.Errorf("registry has no %s", n)
		}
	}
}

// FuzzImport: any decodable program imports or fails with an error, never a
// panic (weights of the tiny or the fused fixture when the names match, none
// otherwise).
func FuzzImport(f *testing.F) {
	var params [][]byte
	for _, dir := range []string{"testdata/tiny", "testdata/fused", "testdata/fused_mha"} {
		if b, err := os.ReadFile(dir + "/inference.pdmodel"); err == nil {
			f.Add(b)
		}
		b, _ := os.ReadFile(dir + "/inference.pdiparams")
		params = append(params, b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := pdpb.DecodeProgram(b)
		if err != nil {
			return
		}
		var ts []pdpb.Tensor
		for _, pb := range params {
			if ts, err = pdpb.DecodeParams(pb, p.Persistables()); err == nil {
				break
			}
			ts = nil
		}
		pdmodel.Import(p, ts)
	})
}
