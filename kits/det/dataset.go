package det

import (
	"bufio"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"os"

	"paddle/core/data"
	"paddle/core/metric/coco"
)

// Object is one ground-truth box.
type Object struct {
	Box       [4]float64 // x1, y1, x2, y2 in pixels
	Class     int        // index into Dataset.Classes
	Difficult bool       // VOC <difficult>1</difficult>
	Crowd     bool       // COCO iscrowd
}

// Record is one image with its objects.
type Record struct {
	Image         string // image file path
	ID            int64  // COCO image id; VOC: <id> or the line's index
	Width, Height int
	Objects       []Object
}

// Dataset is a detection data set read from COCO json or Pascal VOC files.
type Dataset struct {
	Classes     []string
	CategoryIDs []int64 // COCO category id of each class (VOC: 1, 2, …)
	Records     []Record
	// Warnings lists what was skipped (zero-size boxes), one line each, for
	// the caller to log.
	Warnings []string
}

// edgeTolerance is how far (in pixels) a box may reach past the image
// border before it is an error; boxes within it are clipped. Annotation
// tools often put x2 on the last pixel's far edge or half a pixel beyond.
const edgeTolerance = 1.0

// checkBox validates an [x1, y1, x2, y2] box against an image of w×h:
// an error for a negative size or a box outside the image (beyond
// edgeTolerance), ok=false for a zero size (skipped, as PaddleDetection
// does), and the box clipped to [0, w]×[0, h] otherwise.
func checkBox(b [4]float64, w, h int) (out [4]float64, ok bool, err error) {
	if b[2] < b[0] || b[3] < b[1] {
		return b, false, fmt.Errorf("box %v has a negative size", b)
	}
	W, H := float64(w), float64(h)
	if b[0] < -edgeTolerance || b[1] < -edgeTolerance || b[2] > W+edgeTolerance || b[3] > H+edgeTolerance {
		return b, false, fmt.Errorf("box %v is outside the %dx%d image", b, w, h)
	}
	out = [4]float64{max(b[0], 0), max(b[1], 0), min(b[2], W), min(b[3], H)}
	if out[2]-out[0] < 1e-5 || out[3]-out[1] < 1e-5 {
		return out, false, nil
	}
	return out, true, nil
}

// imageSize reads a PNG or JPEG file's size from its header.
func imageSize(path string) (int, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	head, _ := r.Peek(16)
	var c image.Config
	switch data.Format(head) {
	case "png":
		c, err = png.DecodeConfig(r)
	case "jpeg":
		c, err = jpeg.DecodeConfig(r)
	default:
		return 0, 0, fmt.Errorf("%s: no size in the annotation and not a PNG or JPEG file to read it from", path)
	}
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %w", path, err)
	}
	return c.Width, c.Height, nil
}

// COCO returns the data set as COCO ground truth (image ids, category ids,
// boxes as [x, y, w, h] with area w*h, crowd flags), for scoring with
// coco.Evaluate. COCO has no "difficult": VOC difficult objects become
// ordinary annotations (use coco.VOC to leave them out).
func (d *Dataset) COCO() *coco.Dataset {
	g := &coco.Dataset{}
	for i, name := range d.Classes {
		g.Categories = append(g.Categories, coco.Category{ID: d.CategoryIDs[i], Name: name})
	}
	id := int64(1)
	for _, r := range d.Records {
		g.Images = append(g.Images, coco.Image{ID: r.ID, FileName: r.Image, Width: r.Width, Height: r.Height})
		for _, o := range r.Objects {
			w, h := o.Box[2]-o.Box[0], o.Box[3]-o.Box[1]
			g.Annotations = append(g.Annotations, coco.Annotation{ID: id, ImageID: r.ID,
				CategoryID: d.CategoryIDs[o.Class], BBox: [4]float64{o.Box[0], o.Box[1], w, h},
				Area: w * h, IsCrowd: o.Crowd})
			id++
		}
	}
	return g
}
