package speech

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func logTable(p [][]float64) [][]float32 {
	out := make([][]float32, len(p))
	for t, row := range p {
		out[t] = make([]float32, len(row))
		for c, v := range row {
			out[t][c] = float32(math.Log(v))
		}
	}
	return out
}

// Greedy decoding merges repeats and drops blanks: a blank between two equal
// labels keeps both.
func TestCTCGreedy(t *testing.T) {
	// classes: 0 blank, 1 a, 2 b; best path a a _ a b b _ → "a a b"
	p := [][]float64{
		{0.1, 0.8, 0.1}, {0.2, 0.7, 0.1}, {0.9, 0.05, 0.05}, {0.1, 0.6, 0.3},
		{0.1, 0.2, 0.7}, {0.3, 0.1, 0.6}, {0.8, 0.1, 0.1},
	}
	if got := ctcGreedy(logTable(p), 0); !slices.Equal(got, []int{1, 1, 2}) {
		t.Errorf("greedy = %v, want [1 1 2]", got)
	}
	if got := ctcGreedy(logTable([][]float64{{0.9, 0.1}, {0.8, 0.2}}), 0); len(got) != 0 {
		t.Errorf("all blank = %v, want []", got)
	}
	// blank at another index
	if got := ctcGreedy(logTable([][]float64{{0.1, 0.9}, {0.9, 0.1}, {0.9, 0.1}}), 1); !slices.Equal(got, []int{0}) {
		t.Errorf("blank=1: %v, want [0]", got)
	}
}

// The classic case where the best path is not the best labelling: two frames
// of p(blank)=0.6, p(a)=0.4. Greedy says "" (0.36); the prefix search sums
// aa, a_, _a into P("a") = 0.16+0.24+0.24 = 0.64.
func TestCTCPrefixBeamBeatsGreedy(t *testing.T) {
	lp := logTable([][]float64{{0.6, 0.4}, {0.6, 0.4}})
	if g := ctcGreedy(lp, 0); len(g) != 0 {
		t.Fatalf("greedy = %v, want []", g)
	}
	got, score := ctcPrefixBeam(lp, 0, 4, math.Inf(-1))
	if !slices.Equal(got, []int{1}) || math.Abs(math.Exp(score)-0.64) > 1e-6 {
		t.Errorf("beam = %v %.6f, want [1] 0.64", got, math.Exp(score))
	}
}

// With a beam wide enough to keep every prefix, the search is exact: its
// best prefix and probability equal those found by enumerating all C^T
// paths and collapsing each (repeats merged, blanks dropped).
func TestCTCPrefixBeamExact(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 20 {
		T, C := 2+trial%4, 3
		p := make([][]float64, T)
		for i := range p {
			p[i] = make([]float64, C)
			s := 0.0
			for c := range p[i] {
				p[i][c] = r.Float64() + 0.05
				s += p[i][c]
			}
			for c := range p[i] {
				p[i][c] /= s
			}
		}
		blank := trial % C
		exact := map[string]float64{}
		path := make([]int, T)
		var walk func(t int, prob float64)
		walk = func(t int, prob float64) {
			if t == T {
				var lab []byte
				prev := -1
				for _, k := range path {
					if k != prev && k != blank {
						lab = append(lab, byte('0'+k))
					}
					prev = k
				}
				exact[string(lab)] += prob
				return
			}
			for c := range C {
				path[t] = c
				walk(t+1, prob*p[t][c])
			}
		}
		walk(0, 1)
		bestLab, bestP := "", -1.0
		for lab, pr := range exact {
			if pr > bestP {
				bestLab, bestP = lab, pr
			}
		}
		got, score := ctcPrefixBeam(logTable(p), blank, 1000, math.Inf(-1))
		var gl []byte
		for _, k := range got {
			gl = append(gl, byte('0'+k))
		}
		if string(gl) != bestLab || math.Abs(math.Exp(score)-bestP) > 1e-5 {
			t.Errorf("trial %d (T=%d, blank %d): beam %q %.6f, exact %q %.6f", trial, T, blank, gl, math.Exp(score), bestLab, bestP)
		}
	}
}

// A beam of 1 with a confident table gives the greedy answer, repeats
// separated by a blank included.
func TestCTCPrefixBeamNarrow(t *testing.T) {
	p := [][]float64{{0.05, 0.9, 0.05}, {0.9, 0.05, 0.05}, {0.05, 0.9, 0.05}, {0.05, 0.05, 0.9}}
	got, _ := ctcPrefixBeam(logTable(p), 0, 1, math.Inf(-1))
	if want := ctcGreedy(logTable(p), 0); !slices.Equal(got, want) || !slices.Equal(want, []int{1, 1, 2}) {
		t.Errorf("beam 1 = %v, greedy %v, want [1 1 2]", got, want)
	}
}
