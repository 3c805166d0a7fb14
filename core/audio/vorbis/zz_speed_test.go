package vorbis

import (
	"os"
	"path/filepath"
	"sort"
	"testing"
)

func BenchmarkTuxTmp(b *testing.B) {
	var files []string
	filepath.Walk(tuxpaintDir(), func(p string, info os.FileInfo, err error) error {
		if filepath.Ext(p) == ".ogg" {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	var data [][]byte
	for _, f := range files[:200] {
		x, _ := os.ReadFile(f)
		data = append(data, x)
	}
	b.ResetTimer()
	for range b.N {
		for _, x := range data {
			Decode(x)
		}
	}
}
