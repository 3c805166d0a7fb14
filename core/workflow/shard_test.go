package workflow

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseShard(t *testing.T) {
	tests := []struct {
		in   string
		want Shard
		err  string
	}{
		{"0/1", Shard{0, 1}, ""},
		{"2/4", Shard{2, 4}, ""},
		{" 3 / 4 ", Shard{3, 4}, ""},
		{"4/4", Shard{}, "0 ≤ I < N"},
		{"-1/4", Shard{}, "0 ≤ I < N"},
		{"0/0", Shard{}, "0 ≤ I < N"},
		{"1", Shard{}, "want I/N"},
		{"a/b", Shard{}, "want I/N"},
		{"", Shard{}, "want I/N"},
	}
	for _, tt := range tests {
		got, err := ParseShard(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseShard(%q) error = %v, want one with %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseShard(%q) = %v, %v, want %v", tt.in, got, err, tt.want)
		}
	}
}

// TestShardedCoversOnce: for every N, the shards 0..N-1 of 0..L-1 hold each
// element exactly once, each shard in input order, and together (sorted)
// give the whole list.
func TestShardedCoversOnce(t *testing.T) {
	for _, l := range []int{0, 1, 5, 17} {
		all := make([]int, l)
		for i := range all {
			all[i] = i
		}
		for n := 1; n <= 6; n++ {
			seen := make([]int, l)
			var cat []int
			for i := range n {
				part := Sharded(Shard{i, n}, all)
				if !slices.IsSorted(part) {
					t.Errorf("L=%d shard %d/%d = %v: not in input order", l, i, n, part)
				}
				for _, x := range part {
					seen[x]++
				}
				cat = append(cat, part...)
			}
			for x, c := range seen {
				if c != 1 {
					t.Errorf("L=%d N=%d: input %d in %d shards, want 1", l, n, x, c)
				}
			}
			slices.Sort(cat)
			if !slices.Equal(cat, all) {
				t.Errorf("L=%d N=%d: shards together = %v", l, n, cat)
			}
		}
	}
	if got := Sharded(Shard{}, []int{1, 2}); !slices.Equal(got, []int{1, 2}) {
		t.Errorf("zero Shard kept %v", got)
	}
}

// TestEnvInputsShard: stdin lines are split by line index, folders by
// their sorted walk, and a missing path counts as an input of its own.
func TestEnvInputsShard(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"c.png", "a.png", "b.png", "d.txt"} {
		os.WriteFile(filepath.Join(dir, n), nil, 0o644)
	}
	stdin := "s0\ns1\n\ns2\n"
	args := []string{dir, "-", "missing.png"}
	paths := func(in []Input) (out []string) {
		for _, x := range in {
			out = append(out, filepath.Base(x.Path))
		}
		return out
	}
	whole, err := Env{IO: IO{In: strings.NewReader(stdin)}}.Inputs(args, ImageExts)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := paths(whole), []string{"a.png", "b.png", "c.png", "s0", "s1", "s2", "missing.png"}; !slices.Equal(got, want) {
		t.Fatalf("whole = %v, want %v", got, want)
	}
	want := [][]string{{"a.png", "s0", "missing.png"}, {"b.png", "s1"}, {"c.png", "s2"}}
	for i := range 3 {
		part, err := Env{IO: IO{In: strings.NewReader(stdin)}, Shard: Shard{i, 3}}.Inputs(args, ImageExts)
		if err != nil {
			t.Fatal(err)
		}
		if got := paths(part); !slices.Equal(got, want[i]) {
			t.Errorf("shard %d/3 = %v, want %v", i, got, want[i])
		}
		if i == 0 && part[2].Err == nil {
			t.Errorf("shard 0/3: the missing path lost its error")
		}
	}
}
