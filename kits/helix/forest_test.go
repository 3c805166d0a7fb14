package helix

import (
	"math/rand/v2"
	"testing"
)

// A label that is "bit 3 set" (bit 5 is noise) is learnt exactly once a
// tree can draw bit 3; an all-equal label gives one-leaf trees.
func TestForestLearnsABit(t *testing.T) {
	var x [][]int
	var y []float64
	for i := range 40 {
		var on []int
		if i%2 == 0 {
			on = append(on, 3)
		}
		if i%3 == 0 {
			on = append(on, 5)
		}
		x, y = append(x, on), append(y, float64(1-i%2))
	}
	f := fitForest(x, y, 8, 50, rand.New(rand.NewPCG(1, 1)))
	for i := range x {
		if p := f.predict(x[i]); (y[i] == 1) != (p > 0.5) {
			t.Errorf("sample %d: %v, label %v", i, p, y[i])
		}
	}
	if p := f.predict([]int{3}); p < 0.9 {
		t.Errorf("bit 3 alone: %v", p)
	}
	c := fitForest(x, make([]float64, 40), 8, 3, rand.New(rand.NewPCG(1, 1)))
	if len(c.Trees[0]) != 1 || c.predict([]int{3}) != 0 {
		t.Errorf("constant label: %d nodes", len(c.Trees[0]))
	}
}
