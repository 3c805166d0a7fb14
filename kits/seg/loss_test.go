package seg

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"paddle/core/ag"
	"paddle/core/tensor"
)

// The losses and their gradients match PaddleSeg's formulas run in PyTorch
// (scripts/ref/seg_losses_torch.py → testdata/losses_torch.json), in float64.
func TestLossesMatchTorch(t *testing.T) {
	b, err := os.ReadFile("testdata/losses_torch.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Shape  []int
		Logits []float64
		Labels []int64
		Weight []float64
		Cases  map[string]struct {
			Loss float64
			Grad []float64
		}
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	s := ref.Shape
	labels := tensor.FromSlice(ref.Labels, s[0], s[2], s[3])
	fns := map[string]func(x *ag.Var) (*ag.Var, error){
		"ce":            func(x *ag.Var) (*ag.Var, error) { return CrossEntropy(x, labels, nil, 255) },
		"ce_weighted":   func(x *ag.Var) (*ag.Var, error) { return CrossEntropy(x, labels, ref.Weight, 255) },
		"ohem_t07_k10":  func(x *ag.Var) (*ag.Var, error) { return OhemCrossEntropy(x, labels, 0.7, 10, 255) },
		"ohem_t02_k30":  func(x *ag.Var) (*ag.Var, error) { return OhemCrossEntropy(x, labels, 0.2, 30, 255) },
		"ohem_all_kept": func(x *ag.Var) (*ag.Var, error) { return OhemCrossEntropy(x, labels, 0.7, 1000, 255) },
		"dice":          func(x *ag.Var) (*ag.Var, error) { return DiceLoss(x, labels, nil, 1, 255) },
		"dice_weighted": func(x *ag.Var) (*ag.Var, error) { return DiceLoss(x, labels, ref.Weight, 1, 255) },
	}
	for name, want := range ref.Cases {
		t.Run(name, func(t *testing.T) {
			f := fns[name]
			if f == nil {
				t.Fatalf("no Go loss for case %s", name)
			}
			x := ag.Param(tensor.FromSlice(append([]float64(nil), ref.Logits...), s...))
			l, err := f(x)
			if err != nil {
				t.Fatal(err)
			}
			if got := l.Item(); math.Abs(got-want.Loss) > 1e-7 {
				t.Errorf("loss = %.9f, want %.9f", got, want.Loss)
			}
			l.Backward()
			g := x.Grad.Float64s()
			worst := 0.0
			for i := range g {
				worst = max(worst, math.Abs(g[i]-want.Grad[i]))
			}
			if worst > 1e-7 {
				t.Errorf("gradient differs by up to %g", worst)
			}
		})
	}
}

// A batch whose pixels are all ignored gives loss 0 (not NaN; Dice's 1e-8
// leaves 1e-8), and a label
// outside the classes is an error naming it.
func TestLossEdgeCases(t *testing.T) {
	x := ag.Param(tensor.FromSlice([]float64{1, 2, 3, 4, 5, 6, 7, 8}, 1, 2, 2, 2))
	allIgnored := tensor.FromSlice([]int64{255, 255, 255, 255}, 1, 2, 2)
	for name, f := range map[string]func() (*ag.Var, error){
		"ce":   func() (*ag.Var, error) { return CrossEntropy(x, allIgnored, nil, 255) },
		"ohem": func() (*ag.Var, error) { return OhemCrossEntropy(x, allIgnored, 0.7, 1, 255) },
		"dice": func() (*ag.Var, error) { return DiceLoss(x, allIgnored, nil, 1, 255) },
	} {
		l, err := f()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if v := l.Item(); math.IsNaN(v) || math.Abs(v) > 1e-7 { // dice: 1 - 1/(1+1e-8)
			t.Errorf("%s on an all-ignored batch = %v, want 0", name, v)
		}
	}
	bad := tensor.FromSlice([]int64{0, 1, 7, 255}, 1, 2, 2)
	if _, err := DiceLoss(x, bad, nil, 1, 255); err == nil {
		t.Error("dice accepted label 7 for 2 classes")
	}
	if _, err := OhemCrossEntropy(x, bad, 0.7, 1, 255); err == nil {
		t.Error("ohem accepted label 7 for 2 classes")
	}
}
