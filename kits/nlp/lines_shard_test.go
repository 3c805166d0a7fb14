package nlp

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"paddle/core/workflow"
)

// TestPredictLinesShard: --shard splits the lines of all files (and an
// unreadable file's record) by their position across the files, each
// shard in input order, together covering every line once.
func TestPredictLinesShard(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	os.WriteFile(a, []byte("l0\nl1\nl2\n"), 0o644)
	os.WriteFile(b, []byte("l4\nl5\n"), 0o644)
	args := []string{a, filepath.Join(dir, "missing.txt"), b, "-"}
	run := func(s workflow.Shard) []string {
		var out strings.Builder
		env := workflow.Env{IO: workflow.IO{In: strings.NewReader("l6\nl7\n"), Out: &out}, Format: "text", Shard: s}
		predictLines(context.Background(), env, args, func(s string) string { return s + "\n" },
			func(line string) (string, error) { return line, nil })
		return strings.FieldsFunc(out.String(), func(r rune) bool { return r == '\n' })
	}
	whole := run(workflow.Shard{})
	if len(whole) != 8 || whole[3] == "l4" {
		t.Fatalf("whole = %q, want 8 records with the missing file's 4th", whole)
	}
	for _, n := range []int{2, 3} {
		var cat []string
		for i := range n {
			part := run(workflow.Shard{Index: i, Count: n})
			var want []string
			for k := i; k < len(whole); k += n {
				want = append(want, whole[k])
			}
			if !slices.Equal(part, want) {
				t.Errorf("shard %d/%d = %q, want %q", i, n, part, want)
			}
			cat = append(cat, part...)
		}
		slices.Sort(cat)
		w := slices.Clone(whole)
		slices.Sort(w)
		if !slices.Equal(cat, w) {
			t.Errorf("N=%d: shards together = %q, want %q", n, cat, w)
		}
	}
}
