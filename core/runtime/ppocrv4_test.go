package runtime

import (
	"path/filepath"
	"sync"
	"testing"

	"paddle/core/runtime/ppocrtest"
	"paddle/core/tensor"
)

// The PP-OCRv4 models against ONNX Runtime 1.30 (scripts/ref/ppocrv4_golden.sh).

func TestPPOCRv4MatchesORT(t *testing.T) {
	dir := ppocrtest.Dir(t)
	cases := ppocrtest.Cases
	for _, passes := range [][]string{nil, {}} {
		name := "all passes"
		if passes != nil {
			name = "no passes"
		}
		t.Run(name, func(t *testing.T) { comparePPOCR(t, dir, passes, cases) })
	}
}

func comparePPOCR(t *testing.T, dir string, passes []string, cases []ppocrtest.Case) {
	preds := map[string]*Predictor{}
	for _, c := range cases {
		p := preds[c.Model]
		if p == nil {
			var err error
			if p, err = Load(filepath.Join(dir, c.Model), Options{Passes: passes}); err != nil {
				t.Fatal(err)
			}
			preds[c.Model] = p
		}
		want, err := c.Want()
		if err != nil {
			t.Fatal(err)
		}
		out, err := p.Run(map[string]*tensor.Tensor{"x": c.Input()})
		if err != nil {
			t.Fatalf("%s: %v", c.Golden, err)
		}
		got := out[p.OutputNames()[0]]
		if !got.Shape().Equal(want.Shape()) {
			t.Fatalf("%s: shape %v, ORT %v", c.Golden, got.Shape(), want.Shape())
		}
		d, _ := tensor.MaxDiff(got, want, 0, 0)
		t.Logf("%s: max abs error vs ORT %.3g", c.Golden, d)
		if d > 1e-4 {
			t.Errorf("%s: max abs error %.3g > 1e-4", c.Golden, d)
		}
	}
}

// Concurrent calls on one predictor with two input sizes give the same
// results as sequential ones.
func TestPPOCRv4Concurrent(t *testing.T) {
	dir := ppocrtest.Dir(t)
	p, err := Load(filepath.Join(dir, "ch_ppocr_mobile_v2.0_cls_infer.onnx"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	inputs := []*tensor.Tensor{ppocrtest.NoiseInput(2, 3, 48, 192), ppocrtest.NoiseInput(1, 3, 48, 160)}
	want := make([]*tensor.Tensor, len(inputs))
	for i, x := range inputs {
		out, err := p.Run(map[string]*tensor.Tensor{"x": x})
		if err != nil {
			t.Fatal(err)
		}
		want[i] = out[p.OutputNames()[0]]
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			i := g % 2
			out, err := p.Run(map[string]*tensor.Tensor{"x": inputs[i]})
			if err != nil {
				errs <- err
				return
			}
			if d, _ := tensor.MaxDiff(out[p.OutputNames()[0]], want[i], 0, 0); d != 0 {
				t.Errorf("goroutine %d: differs by %g", g, d)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := p.PlanCount(); n != 2 {
		t.Errorf("%d plans cached, want 2", n)
	}
}
