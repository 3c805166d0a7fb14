package nn

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"paddle/core/ag"
	"paddle/core/tensor"
)

// jt is a tensor as scripts/ref/nn_torch.py writes it.
type jt struct {
	Shape []int
	Data  []float64
}

func (j jt) t() *tensor.Tensor {
	return tensor.FromSlice(append([]float64(nil), j.Data...), j.Shape...)
}
func (j jt) v() *ag.Var { return ag.Const(j.t()) }

func (j jt) i64() *tensor.Tensor {
	v := make([]int64, len(j.Data))
	for i, x := range j.Data {
		v[i] = int64(x)
	}
	return tensor.FromSlice(v, j.Shape...)
}

func loadJSON(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

func stateOf(m map[string]jt) map[string]*tensor.Tensor {
	out := map[string]*tensor.Tensor{}
	for k, v := range m {
		out[k] = v.t()
	}
	return out
}

// closeTo fails when got and want (a reference) differ by more than tol·(1+|want|).
func closeTo(t *testing.T, what string, got *tensor.Tensor, want jt, tol float64) {
	t.Helper()
	if !got.Shape().Equal(want.Shape) {
		t.Fatalf("%s: shape %v, want %v", what, got.Shape(), want.Shape)
	}
	g := got.Float64s()
	worst := 0.0
	for i, w := range want.Data {
		d := math.Abs(g[i] - w)
		worst = max(worst, d)
		if d > tol*(1+math.Abs(w)) || math.IsNaN(g[i]) != math.IsNaN(w) {
			t.Fatalf("%s: element %d = %.9g, torch %.9g (max diff so far %.3g)", what, i, g[i], w, worst)
		}
	}
}

func rng() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }
