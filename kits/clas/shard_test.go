package clas

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"paddle/core/cli/clitest"
	"paddle/core/cli/cmdutil"
)

// TestPredictShard runs `clas predict` over a folder, a broken file and
// paths on stdin whole and as --shard I/N for N = 2 and 3: every record of
// the whole run is in exactly one shard, each shard's records are in input
// order, and the shards' outputs together are the whole run's records.
// A shard outside 0 ≤ I < N is a usage error (exit 2).
func TestPredictShard(t *testing.T) {
	dir, ck := goldenCheckpoint(t)
	bad := filepath.Join(dir, "broken.png")
	os.WriteFile(bad, []byte("not a png"), 0o644)
	images := filepath.Join("..", "ocr", "testdata", "images")
	stdin := filepath.Join(images, "tiny.png") + "\n" + filepath.Join(images, "wide.png") + "\n"
	args := []string{"clas", "predict", "--weights", ck, "--format", "jsonl", images, bad, "-"}
	run := func(extra ...string) (int, []string) {
		t.Helper()
		code, out, errOut := paddleIn(t, stdin, append(append([]string(nil), args...), extra...)...)
		if code != 0 && code != 1 {
			t.Fatalf("%v: exit %d\n%s", extra, code, errOut)
		}
		return code, strings.FieldsFunc(out, func(r rune) bool { return r == '\n' }) // one record a line
	}
	_, whole := run()
	if len(whole) != 10 { // 7 images + broken + 2 from stdin
		t.Fatalf("whole run: %d records, want 10:\n%s", len(whole), strings.Join(whole, "\n"))
	}
	for _, n := range []int{2, 3} {
		var cat []string
		for i := range n {
			code, part := run("--shard", fmt.Sprintf("%d/%d", i, n))
			// in input order: the positions i, i+n, ... of the whole run
			var want []string
			for k := i; k < len(whole); k += n {
				want = append(want, whole[k])
			}
			if !slices.Equal(part, want) {
				t.Errorf("--shard %d/%d:\n%s\nwant\n%s", i, n, strings.Join(part, "\n"), strings.Join(want, "\n"))
			}
			hasBad := slices.ContainsFunc(part, func(r string) bool { return strings.Contains(r, `"error"`) })
			if wantCode := map[bool]int{true: 1, false: 0}[hasBad]; code != wantCode {
				t.Errorf("--shard %d/%d: exit %d, want %d", i, n, code, wantCode)
			}
			cat = append(cat, part...)
		}
		a, b := slices.Clone(cat), slices.Clone(whole)
		slices.Sort(a)
		slices.Sort(b)
		if !slices.Equal(a, b) {
			t.Errorf("N=%d: the shards' records together differ from the whole run's", n)
		}
	}
	for _, s := range []string{"3/3", "-1/2", "1", "x/2"} {
		code, _, errOut := paddleIn(t, stdin, append(append([]string(nil), args...), "--shard", s)...)
		if code != 2 || !strings.Contains(errOut, "--shard") {
			t.Errorf("--shard %s: exit %d, want 2 with a --shard message:\n%s", s, code, errOut)
		}
	}
}

func paddleIn(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	return clitest.Run(t, []*cmdutil.Kit{Kit()}, stdin, args...)
}
