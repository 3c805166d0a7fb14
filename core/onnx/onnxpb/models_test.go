package onnxpb

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"paddle/core/hub"
)

// ppocrDir returns the directory holding the PP-OCRv4 models fetched by
// scripts/fetch_ppocrv4.sh: $PADDLE_MODELS_DIR (the assets folder itself, or
// the fetch script's DIR), else the fetch script's default cache folder.
func ppocrDir(t *testing.T) string {
	t.Helper()
	var dirs []string
	if d := os.Getenv("PADDLE_MODELS_DIR"); d != "" {
		dirs = append(dirs, d, filepath.Join(d, "package", "assets"))
	}
	dirs = append(dirs, filepath.Join(hub.CacheDir(), "npm", "ocr-models-1.4.2", "package", "assets"))
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "ch_PP-OCRv4_rec_infer.onnx")); err == nil {
			return d
		}
	}
	t.Skipf("PP-OCRv4 models not found in %v: run scripts/fetch_ppocrv4.sh or set PADDLE_MODELS_DIR", dirs)
	return ""
}

// ppocrGolden is one entry of testdata/ppocrv4.json (scripts/ref/onnxpb_golden.py).
type ppocrGolden struct {
	Nodes            int            `json:"nodes"`
	Ops              map[string]int `json:"ops"`
	ConstantElements int64          `json:"constant_elements"`
	ConstantSHA256   string         `json:"constant_sha256"`
}

// The op-type histograms, node counts and opsets are those of ../shared/bench/CORE.md §5.
func TestPPOCRv4Models(t *testing.T) {
	dir := ppocrDir(t)
	golden := map[string]ppocrGolden{}
	readJSON(t, "testdata/ppocrv4.json", &golden)
	tests := []struct {
		file       string
		opset      int64
		nodes      int
		ops        map[string]int
		input      string
		inputDims  string
		output     string
		outputDims string
		constElems int64
	}{
		{
			file: "ch_PP-OCRv4_det_infer.onnx", opset: 11, nodes: 672,
			ops: map[string]int{"Constant": 342, "Add": 89, "Mul": 86, "Conv": 62, "Clip": 24, "Div": 24, "Relu": 12,
				"GlobalAveragePool": 10, "HardSigmoid": 10, "Resize": 6, "BatchNormalization": 3, "ConvTranspose": 2,
				"Concat": 1, "Sigmoid": 1},
			input: "x", inputDims: "[p2o.DynamicDimension.0 3 p2o.DynamicDimension.1 p2o.DynamicDimension.2]",
			output: "sigmoid_0.tmp_0", outputDims: "[p2o.DynamicDimension.3 1 p2o.DynamicDimension.4 p2o.DynamicDimension.5]",
			constElems: 1171841,
		},
		{
			file: "ch_PP-OCRv4_rec_infer.onnx", opset: 9, nodes: 765,
			ops: map[string]int{"Constant": 325, "Mul": 107, "Add": 107, "Conv": 38, "Div": 33, "Clip": 28, "Cast": 23,
				"MatMul": 13, "Slice": 10, "ReduceMean": 10, "Transpose": 9, "Sigmoid": 7, "Concat": 7, "Squeeze": 7,
				"BatchNormalization": 6, "Reshape": 6, "Sub": 5, "Pow": 5, "Sqrt": 5, "Shape": 4, "Softmax": 3,
				"GlobalAveragePool": 2, "Relu": 2, "HardSigmoid": 2, "AveragePool": 1},
			input: "x", inputDims: "[p2o.DynamicDimension.0 3 48 p2o.DynamicDimension.1]",
			output: "softmax_11.tmp_0", outputDims: "[p2o.DynamicDimension.2 p2o.DynamicDimension.3 6625]",
			constElems: 2690312,
		},
		{
			file: "ch_ppocr_mobile_v2.0_cls_infer.onnx", opset: 9, nodes: 471,
			ops: map[string]int{"Constant": 250, "Conv": 53, "BatchNormalization": 35, "Mul": 27, "Add": 26, "Clip": 18,
				"Div": 18, "Relu": 15, "GlobalAveragePool": 10, "HardSigmoid": 9, "Cast": 3, "MaxPool": 1, "Shape": 1,
				"Slice": 1, "Concat": 1, "Reshape": 1, "MatMul": 1, "Softmax": 1},
			input: "x", inputDims: "[p2o.DynamicDimension.0 3 p2o.DynamicDimension.1 p2o.DynamicDimension.2]",
			output: "softmax_0.tmp_0", outputDims: "[p2o.DynamicDimension.3 2]",
			constElems: 133665,
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join(dir, tt.file)
			m, err := ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			g := m.Graph
			if m.IRVersion != 8 || !reflect.DeepEqual(m.OpsetImport, []OpsetID{{"", tt.opset}}) {
				t.Errorf("ir_version %d, opset_import %v; want 8, [{\"\" %d}]", m.IRVersion, m.OpsetImport, tt.opset)
			}
			hist := map[string]int{}
			for _, n := range g.Node {
				hist[n.OpType]++
			}
			if len(g.Node) != tt.nodes || !reflect.DeepEqual(hist, tt.ops) {
				t.Errorf("%d nodes %v, want %d %v", len(g.Node), hist, tt.nodes, tt.ops)
			}
			if len(g.Initializer) != 0 {
				t.Errorf("%d initializers, want 0 (weights are Constant nodes)", len(g.Initializer))
			}
			checkIO(t, "input", g.Input, tt.input, tt.inputDims)
			checkIO(t, "output", g.Output, tt.output, tt.outputDims)

			elems, sum := constantDigest(t, g)
			if elems != tt.constElems {
				t.Errorf("Constant elements = %d, want %d", elems, tt.constElems)
			}
			want, ok := golden[tt.file]
			if !ok {
				t.Fatalf("testdata/ppocrv4.json has no %s: rerun scripts/ref/onnxpb_golden.py", tt.file)
			}
			if want.Nodes != tt.nodes || !reflect.DeepEqual(want.Ops, tt.ops) {
				t.Errorf("onnx reference: %d nodes %v; CORE.md: %d %v", want.Nodes, want.Ops, tt.nodes, tt.ops)
			}
			if sum != want.ConstantSHA256 || elems != want.ConstantElements {
				t.Errorf("Constant values sha256 %s (%d elements), onnx reference %s (%d)", sum, elems,
					want.ConstantSHA256, want.ConstantElements)
			}

			// Round trip: the bytes come back exactly, and so does the model.
			orig, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			enc, err := m.Marshal()
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			if !bytes.Equal(enc, orig) {
				t.Errorf("Marshal gives %d bytes differing from the file's %d", len(enc), len(orig))
			}
			again, err := Decode(enc)
			if err != nil {
				t.Fatalf("Decode(Marshal(m)): %v", err)
			}
			if !reflect.DeepEqual(again, m) {
				t.Error("Decode(Marshal(m)) is not deep-equal to m")
			}
		})
	}
}

func checkIO(t *testing.T, what string, vis []*ValueInfo, name, dims string) {
	t.Helper()
	if len(vis) != 1 || vis[0].Type == nil || vis[0].Type.TensorType == nil || vis[0].Type.TensorType.Shape == nil {
		t.Fatalf("graph %ss = %s, want one tensor %q", what, dump(vis), name)
	}
	tt := vis[0].Type.TensorType
	if got := fmt.Sprint(tt.Shape.Dim); vis[0].Name != name || tt.ElemType != Float || got != dims {
		t.Errorf("%s %q %v %s, want %q FLOAT %s", what, vis[0].Name, tt.ElemType, got, name, dims)
	}
}

// constantDigest returns the element count and the sha256 of the canonical
// values (see canonical) of all Constant node tensors, in node order.
func constantDigest(t *testing.T, g *Graph) (int64, string) {
	t.Helper()
	h := sha256.New()
	var elems int64
	for i, n := range g.Node {
		if n.OpType != "Constant" {
			continue
		}
		a := n.Attr("value")
		if a == nil || a.T == nil {
			t.Fatalf("node[%d] Constant has no value tensor", i)
		}
		c, ok, err := canonical(a.T)
		if err != nil || !ok {
			t.Fatalf("node[%d] Constant %v: %v", i, a.T.DataType, err)
		}
		h.Write(c)
		elems += a.T.NumElements()
	}
	return elems, hex.EncodeToString(h.Sum(nil))
}

// canonical returns a tensor's values in the form scripts/ref/onnxpb_golden.py
// hashes: float16/bfloat16/float32 as float32, uint32 widened to uint64, bool
// as bytes, strings length-prefixed, all little-endian. ok is false for types
// the script skips.
func canonical(t *Tensor) (b []byte, ok bool, err error) {
	le := binary.LittleEndian
	switch t.DataType {
	case Float, Float16, BFloat16:
		v, err := t.Float32s()
		for _, x := range v {
			b = le.AppendUint32(b, math.Float32bits(x))
		}
		return b, true, err
	case Double:
		v, err := t.Float64s()
		for _, x := range v {
			b = le.AppendUint64(b, math.Float64bits(x))
		}
		return b, true, err
	case Int8:
		v, err := t.Int8s()
		for _, x := range v {
			b = append(b, byte(x))
		}
		return b, true, err
	case Uint8:
		v, err := t.Uint8s()
		return append(b, v...), true, err
	case Bool:
		v, err := t.Bools()
		for _, x := range v {
			b = append(b, map[bool]byte{false: 0, true: 1}[x])
		}
		return b, true, err
	case Int16:
		v, err := t.Int16s()
		for _, x := range v {
			b = le.AppendUint16(b, uint16(x))
		}
		return b, true, err
	case Uint16:
		v, err := t.Uint16s()
		for _, x := range v {
			b = le.AppendUint16(b, x)
		}
		return b, true, err
	case Int32:
		v, err := t.Int32s()
		for _, x := range v {
			b = le.AppendUint32(b, uint32(x))
		}
		return b, true, err
	case Int64:
		v, err := t.Int64s()
		for _, x := range v {
			b = le.AppendUint64(b, uint64(x))
		}
		return b, true, err
	case Uint32, Uint64:
		v, err := t.Uint64s()
		for _, x := range v {
			b = le.AppendUint64(b, x)
		}
		return b, true, err
	case String:
		v, err := t.Strings()
		for _, s := range v {
			b = le.AppendUint64(b, uint64(len(s)))
			b = append(b, s...)
		}
		return b, true, err
	}
	return nil, false, nil
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
