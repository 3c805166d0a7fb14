package rectrain

import (
	"math"
	"strings"
	"testing"
)

// FuzzLabelLine: any PaddleOCR label line, read as a detection line
// (`path<TAB>[{"transcription", "points"}]`) and as a recognition line
// (`path<TAB>text`), parses or fails with an error, never a panic; a
// detection box has at least 3 points.
func FuzzLabelLine(f *testing.F) {
	f.Add(`imgs/a.jpg	[{"transcription": "Hello", "points": [[1, 2], [30, 2], [30, 9], [1, 9]]}, {"transcription": "###", "points": [[0,0],[1,0],[1,1]]}]`, "")
	f.Add("word_1.png\tGenaxis Theatre", "")
	f.Add(`a.jpg	[{"transcription": "x", "points": [[1], [2, 3, 4]]}]`, "\t")
	f.Add(`a.jpg	[{"points": null}]`, "")
	f.Add(`a.jpg || [{"transcription": "*", "points": [[1e999, -0], [2, 2], [3, 3]]}]`, " || ")
	f.Add("no delimiter", " ")
	f.Fuzz(func(t *testing.T, line, delim string) {
		if it, err := ParseDetLine(line, "data", delim); err == nil {
			for i, b := range it.Boxes {
				if len(b.Points) < 3 {
					t.Fatalf("box %d has %d points", i, len(b.Points))
				}
				for _, p := range b.Points {
					if math.IsNaN(p[0]) || math.IsNaN(p[1]) {
						t.Fatalf("box %d has a NaN point", i)
					}
				}
			}
		}
		if it, err := ParseRecLine(line, "data", delim); err == nil && !strings.HasPrefix(it.Path, "data") && it.Path != "." {
			t.Logf("path %q left the data folder", it.Path)
		}
	})
}
