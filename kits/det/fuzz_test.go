package det

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzVOCXML: reading any Pascal VOC annotation file never panics; errors
// name the file, and every box kept lies inside its image with a known class.
func FuzzVOCXML(f *testing.F) {
	f.Add(vocXMLFile("50", "40", vocObj("fish", "0", "1", "2", "30", "40"), vocObj("bird", "1", "10", "10", "20", "20")))
	f.Add(vocXMLFile("50", "40", vocObj("bird", "0", "5", "5", "5", "9"))) // zero width: skipped
	f.Add(vocXMLFile("1e300", "NaN", vocObj("cow", "x", "-1", "2", "3", "4")))
	f.Add("<annotation><id>7</id><size><width>3</width><height>3</height></size><object><name> fish </name><bndbox><xmin>0</xmin><ymin>0</ymin><xmax>3</xmax><ymax>3</ymax></bndbox></object></annotation>")
	f.Add("<annotation><size><width>3</width>")
	f.Add(vocXMLFile("50", "40", vocObj("fish", "0", "NaN", "1", "2", "3"))) // passed as a box before parseNum refused them
	path := filepath.Join(f.TempDir(), "a.xml")
	cls := map[string]int{"fish": 0, "bird": 1}
	f.Fuzz(func(t *testing.T, doc string) {
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		r, _, err := readVOCXML(path, cls)
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		for i, o := range r.Objects {
			b := o.Box
			if o.Class < 0 || o.Class > 1 || !(b[0] >= 0 && b[1] >= 0 && b[0] <= b[2] && b[1] <= b[3] && b[2] <= float64(r.Width) && b[3] <= float64(r.Height)) {
				t.Fatalf("object %d: class %d box %v in a %d×%d image", i, o.Class, b, r.Width, r.Height)
			}
		}
	})
}
