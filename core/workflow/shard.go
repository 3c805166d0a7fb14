package workflow

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard selects one of Count deterministic parts of a predict run's
// inputs (--shard Index/Count): the inputs whose position in the expanded
// list (files as given, folders and globs sorted, stdin lines by index)
// is Index modulo Count. Count workers given the same arguments and
// Index 0..Count-1 cover every input exactly once, each in input order.
// The zero Shard keeps everything.
type Shard struct {
	Index, Count int
}

// ParseShard reads "I/N" with 0 ≤ I < N.
func ParseShard(s string) (Shard, error) {
	is, ns, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(is))
	n, err2 := strconv.Atoi(strings.TrimSpace(ns))
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("shard %q: want I/N, e.g. 0/4", s)
	}
	if n < 1 || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("shard %q: want 0 ≤ I < N", s)
	}
	return Shard{Index: i, Count: n}, nil
}

// String is "I/N" ("" for the zero Shard).
func (s Shard) String() string {
	if s.Count == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Keeps reports whether the input at position i belongs to the shard.
func (s Shard) Keeps(i int) bool { return s.Count <= 1 || i%s.Count == s.Index }

// Sharded returns the elements of xs the shard keeps, in order.
func Sharded[T any](s Shard, xs []T) []T {
	if s.Count <= 1 {
		return xs
	}
	out := make([]T, 0, (len(xs)+s.Count-1)/s.Count)
	for i, x := range xs {
		if s.Keeps(i) {
			out = append(out, x)
		}
	}
	return out
}

// Inputs expands predict arguments (ExpandInputs, "-" read from e.IO.In)
// and keeps e.Shard's part of them.
func (e Env) Inputs(args []string, exts []string) ([]Input, error) {
	all, err := ExpandInputs(args, e.IO.In, exts)
	if err != nil {
		return nil, err
	}
	return Sharded(e.Shard, all), nil
}
