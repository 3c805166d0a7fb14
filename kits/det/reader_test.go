package det

import (
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/metric/coco"
)

// writeFiles creates files under dir: name -> content ("PNG WxH" writes a black PNG).
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		var w, h int
		if n, _ := fmt.Sscanf(content, "PNG %dx%d", &w, &h); n == 2 {
			f, err := os.Create(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := png.Encode(f, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
				t.Fatal(err)
			}
			f.Close()
			continue
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

const cocoOK = `{"images":[{"id":4,"file_name":"a.png","width":40,"height":30},{"id":9,"file_name":"sub/b.png"}],
 "categories":[{"id":7,"name":"dog"},{"id":2,"name":"cat"}],
 "annotations":[
  {"id":1,"image_id":4,"category_id":2,"bbox":[1,2,10,5],"area":50,"iscrowd":0},
  {"id":2,"image_id":4,"category_id":7,"bbox":[30,20,10.5,10],"area":105,"iscrowd":1},
  {"id":3,"image_id":9,"category_id":7,"bbox":[5,5,0,3],"area":0,"iscrowd":0}]}`

func TestReadCOCO(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.png": "PNG 40x30", "sub/b.png": "PNG 20x16", "ann.json": cocoOK})
	d, err := ReadCOCO(filepath.Join(dir, "ann.json"), dir)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(d.Classes, ",") != "dog,cat" || d.CategoryIDs[0] != 7 || d.CategoryIDs[1] != 2 {
		t.Errorf("classes %v ids %v, want dog,cat (file order) and 7,2", d.Classes, d.CategoryIDs)
	}
	if len(d.Records) != 2 {
		t.Fatalf("%d records", len(d.Records))
	}
	a, b := d.Records[0], d.Records[1]
	if a.ID != 4 || a.Width != 40 || a.Height != 30 || len(a.Objects) != 2 {
		t.Fatalf("record 0 = %+v", a)
	}
	// x2 = 40.5 is within the 1-pixel tolerance and clipped to 40
	if o := a.Objects[0]; o.Box != [4]float64{1, 2, 11, 7} || o.Class != 1 || o.Crowd {
		t.Errorf("object 0 = %+v", o)
	}
	if o := a.Objects[1]; o.Box != [4]float64{30, 20, 40, 30} || o.Class != 0 || !o.Crowd {
		t.Errorf("object 1 = %+v", o)
	}
	// b.png has no size in the json: read from the file; its zero-width box is skipped
	if b.Width != 20 || b.Height != 16 || len(b.Objects) != 0 || len(d.Warnings) != 1 ||
		!strings.Contains(d.Warnings[0], "annotation id 3 (image id 9): zero-size box") {
		t.Errorf("record 1 = %+v, warnings %q", b, d.Warnings)
	}
	g := d.COCO()
	if len(g.Annotations) != 2 || g.Annotations[0].BBox != [4]float64{1, 2, 10, 5} || g.Annotations[1].CategoryID != 7 {
		t.Errorf("COCO() = %+v", g.Annotations)
	}
	// detections equal to the (clipped) boxes score AP 1 (less np.spacing(1) in the
	// precision, as pycocotools); the crowd one is ignored, so dog (id 7, k=1) has no GT
	var dts []coco.Detection
	for _, a := range g.Annotations {
		dts = append(dts, coco.Detection{ImageID: a.ImageID, CategoryID: a.CategoryID, BBox: a.BBox, Score: 0.9})
	}
	r, err := coco.Evaluate(g, dts, coco.DefaultParams())
	if err != nil || math.Abs(r.Stats[0]-1) > 1e-15 || math.Abs(r.CategoryAP(0)-1) > 1e-15 || r.CategoryAP(1) != -1 {
		t.Errorf("perfect detections: stats %v, per category %v %v (%v)", r.Stats, r.CategoryAP(0), r.CategoryAP(1), err)
	}
}

func TestReadCOCOErrors(t *testing.T) {
	tests := []struct{ name, json, want string }{
		{"outside", `{"images":[{"id":1,"file_name":"a.png","width":40,"height":30}],"categories":[{"id":1,"name":"x"}],
		  "annotations":[{"id":12,"image_id":1,"category_id":1,"bbox":[35,5,10,5]}]}`,
			"ann.json: annotation id 12 (image id 1): box [35 5 45 10] is outside the 40x30 image"},
		{"negative", `{"images":[{"id":1,"file_name":"a.png","width":40,"height":30}],"categories":[{"id":1,"name":"x"}],
		  "annotations":[{"id":13,"image_id":1,"category_id":1,"bbox":[5,5,-2,5]}]}`,
			"ann.json: annotation id 13: bbox [5 5 -2 5] has a negative size"},
		{"unknown category", `{"images":[{"id":1,"file_name":"a.png","width":40,"height":30}],"categories":[{"id":1,"name":"x"}],
		  "annotations":[{"id":14,"image_id":1,"category_id":3,"bbox":[5,5,2,5]}]}`,
			"ann.json: annotation id 14: unknown category_id 3"},
		{"missing image", `{"images":[{"id":5,"file_name":"nope.png","width":40,"height":30}],"categories":[]}`,
			"ann.json: image id 5: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"a.png": "PNG 40x30", "ann.json": tt.json})
			_, err := ReadCOCO(filepath.Join(dir, "ann.json"), dir)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to contain %q", err, tt.want)
			}
			if tt.name == "missing image" && !strings.Contains(err.Error(), "nope.png: no such file") {
				t.Errorf("err = %v, want the missing file named", err)
			}
		})
	}
}

func vocXMLFile(w, h string, objs ...string) string {
	return "<annotation><filename>x.png</filename><size><width>" + w + "</width><height>" + h +
		"</height><depth>3</depth></size>" + strings.Join(objs, "") + "</annotation>"
}

func vocObj(name, diff, x1, y1, x2, y2 string) string {
	return "<object><name>" + name + "</name><difficult>" + diff + "</difficult><bndbox><xmin>" + x1 +
		"</xmin><ymin>" + y1 + "</ymin><xmax>" + x2 + "</xmax><ymax>" + y2 + "</ymax></bndbox></object>"
}

func TestReadVOC(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"label_list.txt":     "bird\nfish\n\n",
		"JPEGImages/1.png":   "PNG 50x40",
		"JPEGImages/2.png":   "PNG 50x40",
		"Annotations/1.xml":  vocXMLFile("50", "40", vocObj("fish", "0", "1", "2", "30", "40"), vocObj("bird", "1", "10", "10", "20", "20")),
		"Annotations/2.xml":  vocXMLFile("50", "40", vocObj("bird", "0", "5", "5", "5", "9")),
		"train.txt":          "JPEGImages/1.png Annotations/1.xml\n\nJPEGImages/2.png Annotations/2.xml\n",
		"bad_class.txt":      "JPEGImages/1.png Annotations/3.xml\n",
		"Annotations/3.xml":  vocXMLFile("50", "40", vocObj("cow", "0", "1", "2", "3", "4")),
		"outside.txt":        "JPEGImages/1.png Annotations/4.xml\n",
		"Annotations/4.xml":  vocXMLFile("50", "40", vocObj("bird", "0", "1", "2", "60", "4")),
		"negative.txt":       "JPEGImages/1.png Annotations/5.xml\n",
		"Annotations/5.xml":  vocXMLFile("50", "40", vocObj("bird", "0", "10", "2", "3", "4")),
		"missing.txt":        "JPEGImages/9.png Annotations/1.xml\n",
		"one_column.txt":     "JPEGImages/1.png\n",
		"badsize.txt":        "JPEGImages/1.png Annotations/6.xml\n",
		"Annotations/6.xml":  vocXMLFile("-3", "40"),
		"dup_label_list.txt": "bird\nbird\n",
	})
	d, err := ReadVOC(dir, filepath.Join(dir, "train.txt"), filepath.Join(dir, "label_list.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(d.Classes, ",") != "bird,fish" || len(d.Records) != 2 {
		t.Fatalf("classes %v, %d records", d.Classes, len(d.Records))
	}
	r := d.Records[0]
	if r.ID != 0 || r.Width != 50 || r.Height != 40 || len(r.Objects) != 2 || r.Image != filepath.Join(dir, "JPEGImages/1.png") {
		t.Fatalf("record 0 = %+v", r)
	}
	if o := r.Objects[0]; o.Class != 1 || o.Box != [4]float64{1, 2, 30, 40} || o.Difficult {
		t.Errorf("object 0 = %+v", o)
	}
	if o := r.Objects[1]; o.Class != 0 || !o.Difficult {
		t.Errorf("object 1 = %+v", o)
	}
	if d.Records[1].ID != 1 || len(d.Records[1].Objects) != 0 || len(d.Warnings) != 1 {
		t.Errorf("record 1 = %+v, warnings %q", d.Records[1], d.Warnings)
	}

	for _, tt := range []struct{ list, labels, want string }{
		{"bad_class.txt", "label_list.txt", "Annotations/3.xml: object 0: unknown class \"cow\" (not in the label list)"},
		{"outside.txt", "label_list.txt", "Annotations/4.xml: object 0 (bird): box [1 2 60 4] is outside the 50x40 image"},
		{"negative.txt", "label_list.txt", "Annotations/5.xml: object 0 (bird): box [10 2 3 4] has a negative size"},
		{"missing.txt", "label_list.txt", "missing.txt:1: " + filepath.Join(dir, "JPEGImages/9.png") + ": no such file"},
		{"one_column.txt", "label_list.txt", "one_column.txt:1: want \"image_path xml_path\""},
		{"badsize.txt", "label_list.txt", "Annotations/6.xml: <size> \"-3\" x \"40\""},
		{"train.txt", "dup_label_list.txt", "dup_label_list.txt:2: class \"bird\" already on line 1"},
		{"train.txt", "none.txt", "none.txt: no such file"},
	} {
		_, err := ReadVOC(dir, filepath.Join(dir, tt.list), filepath.Join(dir, tt.labels))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want it to contain %q", tt.list, err, tt.want)
		}
	}
}
