package det

import (
	"path/filepath"
	"testing"

	"paddle/core/io/pdparams"
)

// `det export --format pdparams` of PaddleDetection-named weights writes
// every tensor the model reads back under its PaddleDetection name, with the
// same values (the file PaddleDetection saved also holds copies its forward
// never reads: head_cls_list, scale_reg, the projection; those are left out).
func TestPaddleDetExportPdparams(t *testing.T) {
	out := filepath.Join(t.TempDir(), "det.pdparams")
	if code, _, errOut := runPaddle(t, "det", "export", "-c", pdDetConfig, "--weights", pdDetFixture, "--format", "pdparams", "--output", out); code != 0 {
		t.Fatalf("export: exit %d\n%s", code, errOut)
	}
	got, err := pdparams.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := pdparams.Read(pdDetFixture)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Names) < 100 {
		t.Fatalf("only %d tensors written", len(got.Names))
	}
	for _, n := range got.Names {
		w, ok := want.Tensors[n]
		if !ok {
			t.Errorf("%s: not in the PaddleDetection file", n)
			continue
		}
		g := got.Tensors[n]
		gv, wv := g.F32(), w.F32()
		if len(gv) != len(wv) {
			t.Errorf("%s: %d values, want %d", n, len(gv), len(wv))
			continue
		}
		for i := range gv {
			if gv[i] != wv[i] {
				t.Errorf("%s[%d] = %v, want %v", n, i, gv[i], wv[i])
				break
			}
		}
	}
	// The written file loads back (strictly) through --weights.
	if code, _, errOut := runPaddle(t, "det", "export", "-c", pdDetConfig, "--weights", out, "--format", "pdparams", "--output", filepath.Join(filepath.Dir(out), "again.pdparams")); code != 0 {
		t.Fatalf("re-export: exit %d\n%s", code, errOut)
	}
}
