package pdparams

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"paddle/core/tensor"
)

// The fixtures are written by scripts/ref/pdparams_ref.py with Python's
// pickle and NumPy in paddle.save's layout; their values are arange-based.

func wantLayer() map[string]*tensor.Tensor {
	conv := make([]float32, 18)
	for i := range conv {
		conv[i] = float32(i) / 10
	}
	fc := make([]float32, 12)
	for i := range fc {
		fc[i] = float32(i)
	}
	return map[string]*tensor.Tensor{
		"conv.weight":  tensor.FromSlice(conv, 2, 1, 3, 3),
		"bn._mean":     tensor.FromSlice([]float32{0.5, -0.5}, 2),
		"bn._variance": tensor.FromSlice([]float32{1, 2}, 2),
		"fc.weight":    tensor.FromSlice(fc, 3, 4), // written in Fortran order
		"fc.bias":      tensor.FromSlice([]float64{0, 1, 2, 3}, 4),
		"steps":        tensor.FromSlice([]int64{7}),
		"mask":         tensor.FromSlice([]bool{true, false, true}, 3),
		"half":         tensor.FromSlice([]float32{1.5, -2}, 2),
	}
}

func TestReadLayerAllProtocols(t *testing.T) {
	for _, p := range []string{"p2", "p3", "p4"} {
		t.Run(p, func(t *testing.T) {
			f, err := Read(filepath.Join("testdata", "layer_"+p+".pdparams"))
			if err != nil {
				t.Fatal(err)
			}
			want := wantLayer()
			if len(f.Tensors) != len(want) || len(f.Names) != len(want) {
				t.Fatalf("tensors %v, names %v; want %d", keys(f.Tensors), f.Names, len(want))
			}
			for name, w := range want {
				g := f.Tensors[name]
				if g == nil {
					t.Fatalf("%s missing (have %v)", name, f.Names)
				}
				if g.DType() != w.DType() || !g.Shape().Equal(w.Shape()) {
					t.Fatalf("%s: %v %v, want %v %v", name, g.DType(), g.Shape(), w.DType(), w.Shape())
				}
				for i := range w.Len() {
					if gv, wv := g.Contiguous().Reshape(-1).At(i), w.Reshape(-1).At(i); gv != wv {
						t.Fatalf("%s[%d] = %v, want %v", name, i, gv, wv)
					}
				}
			}
			if got := f.ParamNames["fc.weight"]; got != "linear_0.w_0" {
				t.Errorf("ParamNames[fc.weight] = %q, want linear_0.w_0", got)
			}
			if len(f.ParamNames) != len(want) {
				t.Errorf("ParamNames has %d entries, want %d", len(f.ParamNames), len(want))
			}
		})
	}
}

// Protocols 2 and 3 cut big arrays into pieces; the joined array must not
// leave its pieces behind.
func TestSplitArraysAreJoined(t *testing.T) {
	f, err := Read("testdata/layer_p2.pdparams")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range f.Names {
		if strings.Contains(n, "@@") {
			t.Fatalf("piece %q left in Names %v", n, f.Names)
		}
	}
	raw, _ := os.ReadFile("testdata/layer_p2.pdparams")
	if !strings.Contains(string(raw), "conv.weight@@.2") || !strings.Contains(string(raw), SplitInfoKey) {
		t.Fatal("fixture does not hold split arrays; regenerate it with scripts/ref/pdparams_ref.py")
	}
}

func TestReadOptimizerState(t *testing.T) {
	f, err := Read("testdata/adam.pdopt")
	if err != nil {
		t.Fatal(err)
	}
	m := f.Tensors["linear_0.w_0_moment1_0"]
	if m == nil || !m.Shape().Equal(tensor.Shape{3, 4}) || m.At(2, 3) != 0.25 {
		t.Fatalf("moment1 = %v", m)
	}
	if got := f.Values["LR_Scheduler.last_epoch"]; got != int64(3) {
		t.Errorf("LR_Scheduler.last_epoch = %#v, want 3", got)
	}
	if got := f.Values["LR_Scheduler.last_lr"]; got != 0.001 {
		t.Errorf("LR_Scheduler.last_lr = %#v, want 0.001", got)
	}
}

func TestReadNestedTensorForms(t *testing.T) {
	f, err := Read("testdata/nested.pdparams")
	if err != nil {
		t.Fatal(err)
	}
	if w := f.Tensors["model.w"]; w == nil || !w.Shape().Equal(tensor.Shape{2, 2}) || w.At(1, 1) != 1 {
		t.Fatalf("model.w = %v", w)
	}
	if f.ParamNames["model.w"] != "linear_1.w_0" {
		t.Errorf("ParamNames[model.w] = %q", f.ParamNames["model.w"])
	}
	if l := f.Tensors["lod"]; l == nil || l.DType() != tensor.Int32 || l.At(2) != 2 {
		t.Fatalf("lod = %v", l)
	}
	if f.Values["epoch"] != int64(5) {
		t.Errorf("epoch = %#v", f.Values["epoch"])
	}
}

// A pickle that names os.system must be refused, naming the class.
func TestRefusesOtherClasses(t *testing.T) {
	_, err := Read("testdata/evil.pdparams")
	if err == nil || !strings.Contains(err.Error(), "posix.system") && !strings.Contains(err.Error(), "os.system") {
		t.Fatalf("err = %v, want a refusal naming os.system", err)
	}
	if !strings.Contains(err.Error(), "evil.pdparams") {
		t.Errorf("err %q does not name the file", err)
	}
}

func TestBadInput(t *testing.T) {
	good, err := os.ReadFile("testdata/layer_p4.pdparams")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "not a pickle"},
		{"protocol 5", []byte{0x80, 5, '.'}, "protocol 5"},
		{"truncated", good[:len(good)/2], "pickle"},
		{"huge length", []byte{0x80, 4, 0x8e, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, '.'}, "runs past the end"},
		{"not a dict", []byte{0x80, 2, 'K', 1, '.'}, "want a dict"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode(tt.data)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
