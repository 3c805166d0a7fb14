package data

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestDistributedBatch: PaddlePaddle's split on hand-checked cases, and for
// many sizes every rank gets ceil(N/R) indices, the ranks' k-th batches
// make the one-process k-th batch of R×B, and every index is read.
func TestDistributedBatch(t *testing.T) {
	// N=10, B=2, R=2: per 5, total 10, stretches of 4: [0 1|2 3] [4 5|6 7], tail [8 9] → 1 each
	want := [][]int{{0, 1, 4, 5, 8}, {2, 3, 6, 7, 9}}
	for r := range 2 {
		if got := (DistributedBatch{Inner: Sequential{N: 10}, BatchSize: 2, Rank: r, Ranks: 2}).Indices(0); !slices.Equal(got, want[r]) {
			t.Errorf("N=10 B=2 rank %d/2 = %v, want %v", r, got, want[r])
		}
	}
	// N=5, R=2: padded with index 0 to 6
	want = [][]int{{0, 1, 4}, {2, 3, 0}}
	for r := range 2 {
		if got := (DistributedBatch{Inner: Sequential{N: 5}, BatchSize: 2, Rank: r, Ranks: 2}).Indices(0); !slices.Equal(got, want[r]) {
			t.Errorf("N=5 B=2 rank %d/2 = %v, want %v", r, got, want[r])
		}
	}
	for _, n := range []int{1, 7, 32, 33, 100} {
		for _, b := range []int{1, 3, 8} {
			for _, nr := range []int{1, 2, 3, 4} {
				inner := Random{N: n, Seed: 9}
				order := inner.Indices(2)
				parts := make([][]int, nr)
				seen := map[int]bool{}
				for r := range nr {
					parts[r] = DistributedBatch{Inner: inner, BatchSize: b, Rank: r, Ranks: nr}.Indices(2)
					if len(parts[r]) != (n+nr-1)/nr {
						t.Fatalf("N=%d B=%d R=%d rank %d: %d indices, want %d", n, b, nr, r, len(parts[r]), (n+nr-1)/nr)
					}
					for _, i := range parts[r] {
						seen[i] = true
					}
				}
				if len(seen) != n {
					t.Errorf("N=%d B=%d R=%d: %d of the indices read", n, b, nr, len(seen))
				}
				for k := 0; (k+1)*b*nr <= n; k++ { // full global batches
					var glob []int
					for r := range nr {
						glob = append(glob, parts[r][k*b:(k+1)*b]...)
					}
					if !slices.Equal(glob, order[k*b*nr:(k+1)*b*nr]) {
						t.Errorf("N=%d B=%d R=%d batch %d: ranks give %v, one process %v", n, b, nr, k, glob, order[k*b*nr:(k+1)*b*nr])
					}
				}
			}
		}
	}
}

// drawDS gives each sample its index and the first draw of its RNG.
type drawDS struct{ n int }

func (d drawDS) Len() int                      { return d.n }
func (d drawDS) Get(i int) ([2]float64, error) { return [2]float64{float64(i), 0}, nil }
func (d drawDS) GetRand(i int, r *rand.Rand) ([2]float64, bool, error) {
	return [2]float64{float64(i), r.Float64()}, true, nil
}

// TestShardSameDraws: a sharded Loader's samples get the random draws they
// get in one process, in the padded tail too.
func TestShardSameDraws(t *testing.T) {
	for _, n := range []int{24, 29} {
		one := map[float64]float64{}
		l := NewLoader[[2]float64, [][2]float64](drawDS{n}, LoaderOptions{BatchSize: 3, Shuffle: true, Seed: 4}, func(s [][2]float64) ([][2]float64, error) { return s, nil })
		for b, err := range l.Epoch(context.Background(), 1) {
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range b {
				one[s[0]] = s[1]
			}
		}
		padded := map[float64]bool{} // drawn again at its padded position
		for _, i := range (Random{N: n, Seed: 4}).Indices(1)[:(n+2)/3*3-n] {
			padded[float64(i)] = true
		}
		for r := range 3 {
			for b, err := range l.Shard(r, 3).Epoch(context.Background(), 1) {
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range b {
					if one[s[0]] != s[1] && !padded[s[0]] {
						t.Errorf("N=%d rank %d: sample %v drew %v, one process %v", n, r, s[0], s[1], one[s[0]])
					}
				}
			}
		}
	}
}

// TestSplitGroup: the ranks' parts of a group are consecutive, equal in
// size, together the group when the ranks divide it, padded with its own
// first indices when not (cyclically for a group shorter than the ranks).
func TestSplitGroup(t *testing.T) {
	for _, tc := range []struct {
		g     []int
		ranks int
		want  [][]int
	}{
		{[]int{5, 6, 7, 8, 9, 10}, 2, [][]int{{5, 6, 7}, {8, 9, 10}}},
		{[]int{5, 6, 7, 8, 9, 10}, 3, [][]int{{5, 6}, {7, 8}, {9, 10}}},
		{[]int{5, 6, 7, 8, 9}, 2, [][]int{{5, 6, 7}, {8, 9, 5}}},
		{[]int{5, 6}, 3, [][]int{{5}, {6}, {5}}},
		{[]int{5, 6, 7}, 1, [][]int{{5, 6, 7}}},
	} {
		for r, want := range tc.want {
			if got := SplitGroup(tc.g, r, tc.ranks); !slices.Equal(got, want) {
				t.Errorf("SplitGroup(%v, %d, %d) = %v, want %v", tc.g, r, tc.ranks, got, want)
			}
		}
	}
}
