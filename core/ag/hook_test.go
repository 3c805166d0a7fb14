package ag

import (
	"slices"
	"testing"

	"paddle/core/tensor"
)

// TestGradHook: a leaf's hook runs once per Backward, after the last of its
// contributions (w is used three times, at both ends of the graph) and
// while the backward pass still runs (b, used only at the input end, has no
// gradient yet when a's hook runs); a leaf the graph does not use, and a
// frozen one, get no call.
func TestGradHook(t *testing.T) {
	w := Param(tensor.FromSlice([]float64{1, 2}, 2))
	a := Param(tensor.FromSlice([]float64{3, -1}, 2))
	b := Param(tensor.FromSlice([]float64{0.5, 0.25}, 2))
	unused := Param(tensor.FromSlice([]float64{7}, 1))
	frozen := Param(tensor.FromSlice([]float64{2, 2}, 2))
	frozen.SetRequiresGrad(false)
	var calls []string
	seen := map[string][]float64{}
	hook := func(name string) func(*Var) {
		return func(v *Var) {
			calls = append(calls, name)
			if v.Grad != nil {
				seen[name] = slices.Clone(v.Grad.F64())
			}
			if name == "a" && b.Grad != nil {
				t.Error("a's hook ran after b got its gradient: not during the backward pass")
			}
		}
	}
	for name, v := range map[string]*Var{"w": w, "a": a, "b": b, "unused": unused, "frozen": frozen} {
		v.SetGradHook(hook(name))
	}
	// y = sum(a * (w*frozen + w*b) + w)
	h := Add(Mul(w, frozen), Mul(w, b))
	y := Sum(Add(Mul(a, h), w), nil, false)
	y.Backward()
	slices.Sort(calls)
	if !slices.Equal(calls, []string{"a", "b", "w"}) {
		t.Fatalf("hooks called for %v, want a, b, w once each", calls)
	}
	// dy/dw = a*(frozen + b) + 1, dy/da = h, dy/db = a*w
	want := map[string][]float64{"w": {3*2.5 + 1, -1*2.25 + 1}, "a": {1 * 2.5, 2 * 2.25}, "b": {3, -2}}
	for name, g := range want {
		if !slices.Equal(seen[name], g) {
			t.Errorf("%s's gradient at its hook = %v, want the final %v", name, seen[name], g)
		}
	}
	if !slices.Equal(w.Grad.F64(), want["w"]) {
		t.Errorf("w.Grad after Backward = %v, want %v", w.Grad.F64(), want["w"])
	}

	// a second pass calls each hook again, once, with the accumulated gradient
	calls = nil
	Sum(Mul(w, w), nil, false).Backward() // w twice in one node
	if !slices.Equal(calls, []string{"w"}) || !slices.Equal(seen["w"], []float64{8.5 + 2, -1.25 + 4}) {
		t.Errorf("second pass: hooks %v, w's gradient at its hook %v, want [w] and [10.5 2.75]", calls, seen["w"])
	}

	// a removed hook is not called
	calls = nil
	w.SetGradHook(nil)
	Sum(w, nil, false).Backward()
	if len(calls) != 0 {
		t.Errorf("removed hook called: %v", calls)
	}
}
