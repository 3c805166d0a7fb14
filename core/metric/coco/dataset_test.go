package coco

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseDataset(t *testing.T) {
	const ok = `{"images":[{"id":1,"file_name":"a.jpg","width":10,"height":8}],
	 "categories":[{"id":3,"name":"cat"}],
	 "annotations":[{"id":5,"image_id":1,"category_id":3,"bbox":[1,2,3,4],"iscrowd":1},
	                {"id":6.0,"image_id":1,"category_id":3,"bbox":[1,2,3,4],"area":7.5}]}`
	d, err := ParseDataset([]byte(ok))
	if err != nil {
		t.Fatal(err)
	}
	a := d.Annotations
	if len(a) != 2 || !a[0].IsCrowd || a[0].Area != 12 || a[1].ID != 6 || a[1].Area != 7.5 || a[1].IsCrowd {
		t.Errorf("annotations = %+v", a)
	}
	if d.Images[0].Width != 10 || d.Categories[0].Name != "cat" {
		t.Errorf("images %+v categories %+v", d.Images, d.Categories)
	}
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	d2, err := ParseDataset(b)
	if err != nil || len(d2.Annotations) != 2 || !d2.Annotations[0].IsCrowd {
		t.Errorf("round trip: %v %+v", err, d2)
	}
}

func TestParseDatasetErrors(t *testing.T) {
	tests := []struct{ name, json, want string }{
		{"unknown category", `{"images":[{"id":1}],"categories":[{"id":1}],"annotations":[{"id":7,"image_id":1,"category_id":2,"bbox":[0,0,1,1]}]}`,
			"annotation id 7: unknown category_id 2"},
		{"unknown image", `{"images":[{"id":1}],"categories":[{"id":1}],"annotations":[{"id":7,"image_id":4,"category_id":1,"bbox":[0,0,1,1]}]}`,
			"annotation id 7: image_id 4 is not in"},
		{"negative size", `{"images":[{"id":1}],"categories":[{"id":1}],"annotations":[{"id":7,"image_id":1,"category_id":1,"bbox":[0,0,-1,1]}]}`,
			"annotation id 7: bbox [0 0 -1 1] has a negative size"},
		{"short bbox", `{"images":[{"id":1}],"categories":[{"id":1}],"annotations":[{"id":7,"image_id":1,"category_id":1,"bbox":[0,0,1]}]}`,
			"annotation id 7: bbox has 3 numbers"},
		{"missing id", `{"images":[{"id":1}],"categories":[{"id":1}],"annotations":[{"image_id":1,"category_id":1,"bbox":[0,0,1,1]}]}`,
			`annotations[0]: missing "id"`},
		{"duplicate annotation", `{"images":[{"id":1}],"categories":[{"id":1}],"annotations":[{"id":1,"image_id":1,"category_id":1,"bbox":[0,0,1,1]},{"id":1,"image_id":1,"category_id":1,"bbox":[0,0,1,1]}]}`,
			"annotation id 1: duplicate id"},
		{"duplicate image", `{"images":[{"id":1},{"id":1}]}`, "images[1]: duplicate image id 1"},
		{"fractional id", `{"images":[{"id":1.5}]}`, `"id" 1.5 is not an integer`},
		{"not an object", `[1,2]`, "parse COCO json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseDataset([]byte(tt.json))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestParseResults(t *testing.T) {
	d, err := ParseResults([]byte(`[{"image_id":1,"category_id":2,"bbox":[1,2,3,4],"score":0.5}]`))
	if err != nil || len(d) != 1 || d[0].BBox != [4]float64{1, 2, 3, 4} || d[0].Score != 0.5 {
		t.Fatalf("ParseResults = %+v, %v", d, err)
	}
	for _, tt := range []struct{ json, want string }{
		{`[{"image_id":1,"category_id":2,"bbox":[1,2,3,4]}]`, `result [0]: missing or non-finite "score"`},
		{`[{"image_id":1,"category_id":2,"bbox":[1,2,3,-4],"score":1}]`, "result [0]: bbox [1 2 3 -4] has a negative size"},
		{`[{"category_id":2,"bbox":[1,2,3,4],"score":1}]`, `result [0]: missing "image_id"`},
		{`{"image_id":1}`, "want a json list"},
	} {
		if _, err := ParseResults([]byte(tt.json)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseResults(%s): err = %v, want %q", tt.json, err, tt.want)
		}
	}
}
