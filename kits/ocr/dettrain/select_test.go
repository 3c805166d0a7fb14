package dettrain

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// kthSmallest agrees with a full sort at every k, on data with many ties
// (a few distinct values), distinct values, and sorted/reversed input.
func TestKthSmallestMatchesSort(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 60 {
		n := 1 + r.IntN(300)
		v := make([]float32, n)
		for i := range v {
			switch trial % 4 {
			case 0:
				v[i] = float32(r.IntN(4)) // ties
			case 1:
				v[i] = r.Float32()
			case 2:
				v[i] = float32(i)
			default:
				v[i] = float32(n - i)
			}
		}
		want := slices.Clone(v)
		slices.Sort(want)
		for k := range n {
			if got := kthSmallest(slices.Clone(v), k); got != want[k] {
				t.Fatalf("trial %d, n %d, k %d: got %v, want %v", trial, n, k, got, want[k])
			}
		}
	}
}
