package pdparams

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecode: no input may panic or hang the reader; the committed
// fixtures (all protocols, split arrays, nested forms, a refused class)
// are the seeds.
func FuzzDecode(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.pd*")
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := Decode(b)
		if err == nil && file == nil {
			t.Fatal("nil file without error")
		}
	})
}
