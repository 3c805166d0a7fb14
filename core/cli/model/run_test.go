package model

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pio "paddle/core/io"
	"paddle/core/onnx/onnxpb"
	"paddle/core/tensor"
)

// tinyONNX writes y:0 = x·w + k (x: (n, 4), w: (4, 2)) to a temp .onnx file.
func tinyONNX(t *testing.T) string {
	t.Helper()
	typ := func(dims ...onnxpb.Dim) *onnxpb.TypeProto {
		return &onnxpb.TypeProto{TensorType: &onnxpb.TensorType{ElemType: onnxpb.Float, Shape: &onnxpb.Shape{Dim: dims}}}
	}
	m := &onnxpb.Model{IRVersion: 8, OpsetImport: []onnxpb.OpsetID{{Version: 13}}, Graph: &onnxpb.Graph{
		Name: "tiny",
		Node: []*onnxpb.Node{
			{Name: "mm", OpType: "MatMul", Input: []string{"x", "w"}, Output: []string{"h"}},
			{Name: "add", OpType: "Add", Input: []string{"h", "k"}, Output: []string{"y:0"}},
		},
		Input: []*onnxpb.ValueInfo{{Name: "x", Type: typ(onnxpb.Dim{Param: "batch"}, onnxpb.Dim{Value: 4, HasValue: true})}},
		Initializer: []*onnxpb.Tensor{onnxpb.FromFloat32s("w", []int64{4, 2}, []float32{1, 2, 3, 4, 5, 6, 7, 8}),
			onnxpb.FromFloat32s("k", []int64{2}, []float32{10, 20})},
		Output: []*onnxpb.ValueInfo{{Name: "y:0", Type: typ(onnxpb.Dim{Param: "batch"}, onnxpb.Dim{Value: 2, HasValue: true})}},
	}}
	b, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tiny.onnx")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestRunWritesOutputs(t *testing.T) {
	model := tinyONNX(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "x.npy")
	if err := pio.WriteNpy(in, tensor.FromSlice([]float32{1, 0, 0, 0, 0, 1, 1, 0}, 2, 4)); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	outDir := filepath.Join(dir, "out")
	if err := runRun(runOptions{Out: &out, Model: model, Inputs: []string{"x=" + in}, Output: outDir, Format: "text"}); err != nil {
		t.Fatal(err)
	}
	y, err := pio.ReadNpy(filepath.Join(outDir, "y_0.npy")) // ":" sanitised
	if err != nil {
		t.Fatal(err)
	}
	// row 0 = w[0] + k = (11, 22); row 1 = w[1] + w[2] + k = (18, 30)
	if got := y.F32(); len(got) != 4 || got[0] != 11 || got[1] != 22 || got[2] != 18 || got[3] != 30 {
		t.Fatalf("y = %v", got)
	}
	if !strings.Contains(out.String(), "y:0\tfloat32[2 2]") {
		t.Errorf("summary %q", out.String())
	}
	// a single-input model takes a bare file; --bench prints the JSON line
	out.Reset()
	if err := runRun(runOptions{Out: &out, Model: model, Inputs: []string{in}, Bench: 3, Format: "json"}); err != nil {
		t.Fatal(err)
	}
	var r map[string]any
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	for _, k := range []string{"model", "threads", "median_ms", "min_ms"} {
		if _, ok := r[k]; !ok {
			t.Errorf("bench JSON lacks %q: %s", k, out.String())
		}
	}
	// an unknown input name is a usage error naming the inputs
	err = runRun(runOptions{Out: &out, Model: model, Inputs: []string{"z=" + in}})
	if err == nil || !strings.Contains(err.Error(), `no input "z" (inputs: x)`) {
		t.Fatalf("got %v", err)
	}
}

func TestInspect(t *testing.T) {
	model := tinyONNX(t)
	var out bytes.Buffer
	if err := inspectRun(inspectOptions{Out: &out, Model: model, Shapes: []string{"x=3x4"}, Format: "text"}); err != nil {
		t.Fatal(err)
	}
	s := strings.Join(strings.Fields(out.String()), " ")
	// matmul 2·3·2·4 = 48, add 6: 54 FLOPs; w is the only parameter (8 elements)
	for _, want := range []string{"input x float32[batch,4]", "output y:0 float32[3,2]", "flops 54", "parameters 8 in 1 tensors (10 constant elements in all)", "op MatMul 1"} {
		if !strings.Contains(s, want) {
			t.Errorf("inspect output lacks %q:\n%s", want, s)
		}
	}
	out.Reset()
	if err := inspectRun(inspectOptions{Out: &out, Model: model, Format: "text"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "give --shape x=...") {
		t.Errorf("without --shape: %s", out.String())
	}
}

func TestInspectIR(t *testing.T) {
	var out bytes.Buffer
	if err := inspectRun(inspectOptions{Out: &out, Model: tinyONNX(t), IR: true, Passes: "none"}); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.Contains(s, "= matmul(%x, $w)  # mm") || !strings.Contains(s, "param $w float32[4,2]") {
		t.Fatalf("IR dump:\n%s", s)
	}
	out.Reset()
	if err := inspectRun(inspectOptions{Out: &out, Model: tinyONNX(t), IR: true, Passes: ""}); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.Contains(s, "= gemm(%x, $w, $k)") {
		t.Fatalf("IR dump after the default passes (matmul+add fused):\n%s", s)
	}
}

func TestSanitizeName(t *testing.T) {
	if got := SanitizeName("softmax_11.tmp_0/a:b c"); got != "softmax_11.tmp_0_a_b_c" {
		t.Fatal(got)
	}
}

func TestPassList(t *testing.T) {
	if passList("") != nil || len(passList("none")) != 0 || passList("none") == nil {
		t.Fatal("defaults and none")
	}
	got := strings.Join(passList("-fuse,-conv_bn"), ",")
	if strings.Contains(got, "fuse") || strings.Contains(got, "conv_bn") || !strings.Contains(got, "fold") {
		t.Fatalf("-fuse,-conv_bn gave %s", got)
	}
	if got := strings.Join(passList("fold,dce"), ","); got != "fold,dce" {
		t.Fatal(got)
	}
}
