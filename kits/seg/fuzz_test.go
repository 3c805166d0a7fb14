package seg

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzReadFileList: reading any PaddleSeg file list never panics; errors
// name the file, and every pair has an image (and a label when required).
func FuzzReadFileList(f *testing.F) {
	f.Add("images/a.jpg labels/a.png\n\nimages/b.jpg labels/b.png\r\n", " ", true)
	f.Add("images/a.jpg\nimages/b.jpg labels/b.png\n", " ", false)
	f.Add("a.jpg|a.png\n/abs/b.jpg|b.png\n", "|", true)
	f.Add("a.jpg  a.png\n", " ", true)
	f.Add(strings.Repeat("x", 70000)+" y\n", "", true)
	path := filepath.Join(f.TempDir(), "train.txt")
	f.Fuzz(func(t *testing.T, list, sep string, needLabels bool) {
		if err := os.WriteFile(path, []byte(list), 0o644); err != nil {
			t.Fatal(err)
		}
		pairs, err := ReadFileList(path, ListOptions{DatasetRoot: "root", Separator: sep, NeedLabels: needLabels})
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		for _, p := range pairs {
			if p.Image == "" || (needLabels && p.Label == "") || p.Line < 1 {
				t.Fatalf("pair %+v", p)
			}
		}
	})
}
