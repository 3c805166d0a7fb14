package runtime

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"paddle/core/io"
	"paddle/core/onnx"
	"paddle/core/onnx/onnxpb"
	"paddle/core/runtime/ortcheck"
	"paddle/core/tensor"
)

// A bidirectional LSTM (bias, sequence_lens, initial_h) and a bidirectional
// GRU (linear_before_reset) in one ONNX model with a dynamic sequence
// length, imported and exported again, against ONNX Runtime at two lengths
// (scripts/ref/rnn_golden.sh; testdata/rnn_T*_*.npy).

func rnnModel() *onnxpb.Model {
	r := rand.New(rand.NewPCG(21, 22))
	w := func(name string, shape ...int) *onnxpb.Tensor {
		return onnx.TensorProto(name, tensor.Rand(r, tensor.Float32, -0.5, 0.5, shape...))
	}
	const I, H = 5, 8
	f := func(dims ...onnxpb.Dim) *onnxpb.TypeProto {
		return &onnxpb.TypeProto{TensorType: &onnxpb.TensorType{ElemType: onnxpb.Float, Shape: &onnxpb.Shape{Dim: dims}}}
	}
	dir := &onnxpb.Attribute{Name: "direction", Type: onnxpb.AttrString, S: []byte("bidirectional")}
	hs := &onnxpb.Attribute{Name: "hidden_size", Type: onnxpb.AttrInt, I: H}
	return &onnxpb.Model{IRVersion: 8, OpsetImport: []onnxpb.OpsetID{{Version: 14}}, Graph: &onnxpb.Graph{
		Name: "birnn",
		Node: []*onnxpb.Node{
			{Name: "lstm", OpType: "LSTM", Input: []string{"x", "lw", "lr", "lb", "lens", "h0"},
				Output: []string{"lstm_y", "lstm_h", "lstm_c"}, Attribute: []*onnxpb.Attribute{dir, hs}},
			{Name: "gru", OpType: "GRU", Input: []string{"x", "gw", "gr", "gb"}, Output: []string{"gru_y", "gru_h"},
				Attribute: []*onnxpb.Attribute{dir, hs, {Name: "linear_before_reset", Type: onnxpb.AttrInt, I: 1}}},
		},
		Initializer: []*onnxpb.Tensor{w("lw", 2, 4*H, I), w("lr", 2, 4*H, H), w("lb", 2, 8*H), w("h0", 2, 2, H),
			w("gw", 2, 3*H, I), w("gr", 2, 3*H, H), w("gb", 2, 6*H)},
		Input: []*onnxpb.ValueInfo{{Name: "x", Type: f(onnxpb.Dim{Param: "T"}, onnxpb.Dim{Value: 2, HasValue: true}, onnxpb.Dim{Value: I, HasValue: true})},
			{Name: "lens", Type: &onnxpb.TypeProto{TensorType: &onnxpb.TensorType{ElemType: onnxpb.Int32, Shape: &onnxpb.Shape{Dim: []onnxpb.Dim{{Value: 2, HasValue: true}}}}}}},
		Output: []*onnxpb.ValueInfo{{Name: "lstm_y"}, {Name: "lstm_h"}, {Name: "lstm_c"}, {Name: "gru_y"}, {Name: "gru_h"}},
	}}
}

func rnnInputs(T int) map[string]*tensor.Tensor {
	x := make([]float32, T*2*5)
	for i := range x {
		x[i] = float32(float64((i*7919)%1000)/500.0 - 1.0)
	}
	return map[string]*tensor.Tensor{"x": tensor.FromSlice(x, T, 2, 5), "lens": tensor.FromSlice([]int32{int32(T), int32(T - 1)}, 2)}
}

// writeRNN exports the imported model (our export, not the original) and the inputs to dir.
func writeRNN(t *testing.T, dir string) string {
	g, err := onnx.Import(rnnModel())
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "birnn.onnx")
	if err := onnx.WriteFile(file, g); err != nil {
		t.Fatal(err)
	}
	for _, T := range []int{3, 7} {
		for name, v := range rnnInputs(T) {
			if err := io.WriteNpy(filepath.Join(dir, fmt.Sprintf("T%d_%s.npy", T, name)), v); err != nil {
				t.Fatal(err)
			}
		}
	}
	return file
}

func TestBiRNNExportMatchesORT(t *testing.T) {
	if d := os.Getenv("PADDLE_RNN_DUMP"); d != "" { // scripts/ref/rnn_golden.sh
		writeRNN(t, d)
		return
	}
	tmp := t.TempDir()
	file := writeRNN(t, tmp)
	orig, err := onnx.Import(rnnModel())
	if err != nil {
		t.Fatal(err)
	}
	p0, err := New(orig, Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := Load(file, Options{})
	if err != nil {
		t.Fatal(err)
	}
	node, script := ortcheck.Runner()
	for _, T := range []int{3, 7} {
		in := rnnInputs(T)
		want, err := p0.Run(in)
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.Run(in)
		if err != nil {
			t.Fatal(err)
		}
		var ort string
		if node != "" {
			ort = filepath.Join(tmp, fmt.Sprintf("ort%d", T))
			cmd := exec.Command(node, script, "--threads", "1", file, ort,
				"x="+filepath.Join(tmp, fmt.Sprintf("T%d_x.npy", T)), "lens="+filepath.Join(tmp, fmt.Sprintf("T%d_lens.npy", T)))
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("ONNX Runtime rejects the export: %v\n%s", err, b)
			}
		}
		for _, name := range []string{"lstm_y", "lstm_h", "lstm_c", "gru_y", "gru_h"} {
			if d, _ := tensor.MaxDiff(got[name], want[name], 0, 0); d != 0 {
				t.Errorf("T=%d %s: export re-imported differs by %g", T, name, d)
			}
			ref, err := io.ReadNpy(filepath.Join("testdata", fmt.Sprintf("rnn_T%d_%s.npy", T, name)))
			if err != nil {
				t.Fatal(err)
			}
			d, _ := tensor.MaxDiff(got[name], ref, 0, 0)
			if !got[name].Shape().Equal(ref.Shape()) || d > 1e-5 {
				t.Errorf("T=%d %s: shape %v (ORT %v), max abs error vs ORT %g", T, name, got[name].Shape(), ref.Shape(), d)
			}
			if ort != "" {
				live, err := io.ReadNpy(filepath.Join(ort, name+".npy"))
				if err != nil {
					t.Fatal(err)
				}
				if d2, _ := tensor.MaxDiff(got[name], live, 0, 0); d2 > 1e-5 {
					t.Errorf("T=%d %s: ONNX Runtime (live) differs by %g", T, name, d2)
				}
			}
			t.Logf("T=%d %s: max abs error vs ORT %.3g", T, name, d)
		}
	}
}
