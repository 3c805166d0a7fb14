package coco

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzCOCO: parsing any COCO annotation json and any results json never
// panics, and what parses evaluates (bbox mAP) without a panic.
func FuzzCOCO(f *testing.F) {
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		return b
	}
	f.Add(read("edge_gt.json"), read("edge_dt.json"))
	f.Add([]byte(`{"images":[{"id":1,"width":10,"height":10}],"categories":[{"id":1,"name":"a"}],"annotations":[{"id":1,"image_id":1,"category_id":1,"bbox":[0,0,5,5],"area":25,"iscrowd":0}]}`),
		[]byte(`[{"image_id":1,"category_id":1,"bbox":[1,1,4,4],"score":0.9}]`))
	f.Add([]byte(`{"images":[{"id":1e30}],"annotations":[{"id":-1,"image_id":7,"category_id":2,"bbox":[0,0,-1,1e400]}]}`), []byte(`[{}]`))
	f.Fuzz(func(t *testing.T, gt, dt []byte) {
		g, err := ParseDataset(gt)
		if err != nil {
			return
		}
		if _, err := g.MarshalJSON(); err != nil {
			t.Logf("marshal: %v", err)
		}
		d, err := ParseResults(dt)
		if err != nil {
			return
		}
		if len(g.Images)+len(g.Annotations)+len(d) > 500 {
			return // keeps each input fast
		}
		_, _ = Evaluate(g, d, DefaultParams())
	})
}
