package clas

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzReadList: reading any PaddleClas list file never panics; errors name
// the file, and every item has a path and a non-negative class id.
func FuzzReadList(f *testing.F) {
	f.Add("train/0/a.png 0\n\ntrain/1/b c.png 1\r\n", " ")
	f.Add("a.png\t3\nb.png\t-1\n", "\t")
	f.Add("a.png 99999999999999999999\n", "")
	f.Add("a.png,,2\n", ",,")
	f.Add(strings.Repeat("x", 70000)+" 1\n", " ")
	path := filepath.Join(f.TempDir(), "train_list.txt")
	f.Fuzz(func(t *testing.T, list, delim string) {
		if err := os.WriteFile(path, []byte(list), 0o644); err != nil {
			t.Fatal(err)
		}
		items, err := ReadList(path, "root", delim)
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		for _, it := range items {
			if it.Path == "" || it.Label < 0 {
				t.Fatalf("item %+v", it)
			}
		}
	})
}
