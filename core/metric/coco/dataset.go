// Package coco evaluates object detections the way pycocotools' COCOeval
// does for iouType "bbox" (the 12 summary stats, per-category AP), and
// Pascal VOC mAP the way PaddleDetection's DetectionMAP does (11-point,
// integral) plus the VOC2010+ area under the interpolated curve.
//
// Where things are:
//
//	dataset.go   ground-truth and result types, COCO json reading and checks
//	eval.go      Evaluate: per-image matching (evaluateImg) and accumulate
//	summary.go   the 12 stats, per-category AP, numpy's pairwise mean, the summary lines
//	voc.go       VOC mAP
package coco

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"paddle/core/bounded"
	"strconv"
)

// Image is one entry of a COCO file's "images".
type Image struct {
	ID       int64  `json:"id"`
	FileName string `json:"file_name"`
	Width    int    `json:"width"`
	Height   int    `json:"height"`
}

// Category is one entry of a COCO file's "categories".
type Category struct {
	ID            int64  `json:"id"`
	Name          string `json:"name"`
	Supercategory string `json:"supercategory,omitempty"`
}

// Annotation is one ground-truth object. BBox is [x, y, w, h] in pixels.
// Area is the file's "area" field (for real COCO the segmentation area, not
// w*h); it is what the small/medium/large ranges test.
type Annotation struct {
	ID         int64      `json:"id"`
	ImageID    int64      `json:"image_id"`
	CategoryID int64      `json:"category_id"`
	BBox       [4]float64 `json:"bbox"`
	Area       float64    `json:"area"`
	IsCrowd    bool       `json:"-"`
}

// Dataset is a COCO ground-truth file: images, annotations, categories, in file order.
type Dataset struct {
	Images      []Image
	Annotations []Annotation
	Categories  []Category
}

// Detection is one entry of a COCO results file:
// {"image_id", "category_id", "bbox": [x, y, w, h], "score"}.
type Detection struct {
	ImageID    int64      `json:"image_id"`
	CategoryID int64      `json:"category_id"`
	BBox       [4]float64 `json:"bbox"`
	Score      float64    `json:"score"`
}

// rawAnn keeps optional fields as pointers so missing ones can be told apart.
type rawAnn struct {
	ID         *json.Number `json:"id"`
	ImageID    *json.Number `json:"image_id"`
	CategoryID *json.Number `json:"category_id"`
	BBox       []float64    `json:"bbox"`
	Area       *float64     `json:"area"`
	IsCrowd    *json.Number `json:"iscrowd"`
}

type rawImage struct {
	ID       *json.Number `json:"id"`
	FileName string       `json:"file_name"`
	Width    json.Number  `json:"width"`
	Height   json.Number  `json:"height"`
}

type rawCategory struct {
	ID            *json.Number `json:"id"`
	Name          string       `json:"name"`
	Supercategory string       `json:"supercategory"`
}

type rawDataset struct {
	Images      []rawImage    `json:"images"`
	Annotations []rawAnn      `json:"annotations"`
	Categories  []rawCategory `json:"categories"`
}

// ReadDataset reads and checks a COCO ground-truth json file. Errors name
// the file and the offending entry (annotation id, image id, category id).
func ReadDataset(path string) (*Dataset, error) {
	b, err := bounded.ReadFile(path, bounded.AnnotationBytes, "COCO annotation file")
	if err != nil {
		return nil, err
	}
	d, err := ParseDataset(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

// ParseDataset parses and checks COCO ground truth: every id is an integer;
// image, category and annotation ids are unique; every annotation names a
// listed image and category and has a finite bbox of 4 numbers with w, h ≥ 0.
// A missing "area" defaults to w*h and a missing "iscrowd" to 0
// (pycocotools would fail on either).
func ParseDataset(b []byte) (*Dataset, error) {
	var raw rawDataset
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("parse COCO json: %w", err)
	}
	d := &Dataset{}
	imgs := map[int64]bool{}
	for i, im := range raw.Images {
		id, err := intField(im.ID, "id")
		if err != nil {
			return nil, fmt.Errorf("images[%d]: %w", i, err)
		}
		if imgs[id] {
			return nil, fmt.Errorf("images[%d]: duplicate image id %d", i, id)
		}
		imgs[id] = true
		w, h, err := imageSize(im)
		if err != nil {
			return nil, fmt.Errorf("image id %d: %w", id, err)
		}
		d.Images = append(d.Images, Image{ID: id, FileName: im.FileName, Width: w, Height: h})
	}
	cats := map[int64]bool{}
	for i, c := range raw.Categories {
		id, err := intField(c.ID, "id")
		if err != nil {
			return nil, fmt.Errorf("categories[%d]: %w", i, err)
		}
		if cats[id] {
			return nil, fmt.Errorf("categories[%d]: duplicate category id %d", i, id)
		}
		cats[id] = true
		d.Categories = append(d.Categories, Category{ID: id, Name: c.Name, Supercategory: c.Supercategory})
	}
	anns := map[int64]bool{}
	for i, ra := range raw.Annotations {
		if _, err := intField(ra.ID, "id"); err != nil {
			return nil, fmt.Errorf("annotations[%d]: %w", i, err)
		}
		a, err := annotation(ra)
		if err != nil {
			return nil, err
		}
		switch {
		case anns[a.ID]:
			return nil, fmt.Errorf("annotation id %d: duplicate id", a.ID)
		case !imgs[a.ImageID]:
			return nil, fmt.Errorf("annotation id %d: image_id %d is not in \"images\"", a.ID, a.ImageID)
		case !cats[a.CategoryID]:
			return nil, fmt.Errorf("annotation id %d: unknown category_id %d (not in \"categories\")", a.ID, a.CategoryID)
		}
		anns[a.ID] = true
		d.Annotations = append(d.Annotations, a)
	}
	return d, nil
}

func annotation(ra rawAnn) (Annotation, error) {
	var a Annotation
	var err error
	if a.ID, err = intField(ra.ID, "id"); err != nil {
		return a, err
	}
	if a.ImageID, err = intField(ra.ImageID, "image_id"); err != nil {
		return a, fmt.Errorf("annotation id %d: %w", a.ID, err)
	}
	if a.CategoryID, err = intField(ra.CategoryID, "category_id"); err != nil {
		return a, fmt.Errorf("annotation id %d: %w", a.ID, err)
	}
	if a.BBox, err = checkBox(ra.BBox); err != nil {
		return a, fmt.Errorf("annotation id %d: %w", a.ID, err)
	}
	if ra.Area != nil {
		if math.IsNaN(*ra.Area) || math.IsInf(*ra.Area, 0) || *ra.Area < 0 {
			return a, fmt.Errorf("annotation id %d: bad area %v", a.ID, *ra.Area)
		}
		a.Area = *ra.Area
	} else {
		a.Area = float64(a.BBox[2] * a.BBox[3])
	}
	if ra.IsCrowd != nil {
		c, err := strconv.ParseFloat(ra.IsCrowd.String(), 64)
		if err != nil {
			return a, fmt.Errorf("annotation id %d: iscrowd %q is not a number", a.ID, ra.IsCrowd.String())
		}
		a.IsCrowd = c != 0
	}
	return a, nil
}

// checkBox checks a [x, y, w, h] box: 4 finite numbers, w and h not negative.
func checkBox(b []float64) ([4]float64, error) {
	var out [4]float64
	if len(b) != 4 {
		return out, fmt.Errorf("bbox has %d numbers, want 4 (x, y, w, h)", len(b))
	}
	for i, v := range b {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return out, fmt.Errorf("bbox %v is not finite", b)
		}
		out[i] = v
	}
	if out[2] < 0 || out[3] < 0 {
		return out, fmt.Errorf("bbox %v has a negative size (w=%v, h=%v)", b, out[2], out[3])
	}
	return out, nil
}

func imageSize(im rawImage) (w, h int, err error) {
	parse := func(n json.Number, key string) (int, error) {
		if n == "" {
			return 0, nil
		}
		v, err := intField(&n, key)
		if err != nil || v < 0 {
			return 0, fmt.Errorf("%s %q: want a non-negative integer", key, n.String())
		}
		return int(v), nil
	}
	if w, err = parse(im.Width, "width"); err != nil {
		return 0, 0, err
	}
	h, err = parse(im.Height, "height")
	return w, h, err
}

// intField parses an id: an integer, or a float with an integral value (1.0).
func intField(n *json.Number, key string) (int64, error) {
	if n == nil {
		return 0, fmt.Errorf("missing %q", key)
	}
	if v, err := strconv.ParseInt(n.String(), 10, 64); err == nil {
		return v, nil
	}
	f, err := strconv.ParseFloat(n.String(), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, fmt.Errorf("%q %s is not an integer", key, n.String())
	}
	return int64(f), nil
}

type rawDetection struct {
	ImageID    *json.Number `json:"image_id"`
	CategoryID *json.Number `json:"category_id"`
	BBox       []float64    `json:"bbox"`
	Score      *float64     `json:"score"`
}

// ReadResults reads a COCO results file: a json list of
// {"image_id", "category_id", "bbox", "score"}. Errors name the file and the
// entry's index.
func ReadResults(path string) ([]Detection, error) {
	b, err := bounded.ReadFile(path, bounded.AnnotationBytes, "COCO results file")
	if err != nil {
		return nil, err
	}
	d, err := ParseResults(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

// ParseResults parses a COCO results list. Each entry needs integer ids, a
// finite bbox of 4 numbers with w, h ≥ 0, and a finite score. An empty list
// is allowed (pycocotools fails on it; here it scores 0).
func ParseResults(b []byte) ([]Detection, error) {
	var raw []rawDetection
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("parse COCO results (want a json list of {image_id, category_id, bbox, score}): %w", err)
	}
	out := make([]Detection, len(raw))
	for i, r := range raw {
		d := &out[i]
		var err error
		if d.ImageID, err = intField(r.ImageID, "image_id"); err != nil {
			return nil, fmt.Errorf("result [%d]: %w", i, err)
		}
		if d.CategoryID, err = intField(r.CategoryID, "category_id"); err != nil {
			return nil, fmt.Errorf("result [%d]: %w", i, err)
		}
		if d.BBox, err = checkBox(r.BBox); err != nil {
			return nil, fmt.Errorf("result [%d]: %w", i, err)
		}
		if r.Score == nil || math.IsNaN(*r.Score) || math.IsInf(*r.Score, 0) {
			return nil, fmt.Errorf("result [%d]: missing or non-finite \"score\"", i)
		}
		d.Score = *r.Score
	}
	return out, nil
}

// MarshalJSON writes d as a COCO json file (images, annotations with an
// integer iscrowd, categories).
func (d *Dataset) MarshalJSON() ([]byte, error) {
	type ann struct {
		Annotation
		IsCrowd int `json:"iscrowd"`
	}
	out := struct {
		Images      []Image    `json:"images"`
		Annotations []ann      `json:"annotations"`
		Categories  []Category `json:"categories"`
	}{Images: d.Images, Categories: d.Categories, Annotations: make([]ann, len(d.Annotations))}
	if out.Images == nil {
		out.Images = []Image{}
	}
	if out.Categories == nil {
		out.Categories = []Category{}
	}
	for i, a := range d.Annotations {
		out.Annotations[i] = ann{Annotation: a}
		if a.IsCrowd {
			out.Annotations[i].IsCrowd = 1
		}
	}
	return json.Marshal(out)
}
