package det

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"paddle/core/metric/coco"
)

// ReadCOCO reads a COCO detection data set (PaddleDetection's COCODataSet):
// annPath is the json file, imageDir the folder its file_name entries are
// relative to. Classes are the categories in file order. Every image file
// must exist; a box with a negative size or outside its image is an error
// naming the file and annotation id; zero-size boxes are skipped with a
// warning. Crowd annotations are kept (Object.Crowd) for evaluation.
func ReadCOCO(annPath, imageDir string) (*Dataset, error) {
	g, err := coco.ReadDataset(annPath)
	if err != nil {
		return nil, err
	}
	d := &Dataset{}
	cls := map[int64]int{}
	for i, c := range g.Categories {
		cls[c.ID] = i
		d.Classes = append(d.Classes, c.Name)
		d.CategoryIDs = append(d.CategoryIDs, c.ID)
	}
	index := map[int64]int{}
	for _, im := range g.Images {
		path := filepath.Join(imageDir, im.FileName)
		if im.FileName == "" {
			return nil, fmt.Errorf("%s: image id %d has no file_name", annPath, im.ID)
		}
		if _, err := os.Stat(path); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("%s: image id %d: %s: no such file", annPath, im.ID, path)
			}
			return nil, fmt.Errorf("%s: image id %d: %w", annPath, im.ID, err)
		}
		w, h := im.Width, im.Height
		if w <= 0 || h <= 0 {
			if w, h, err = imageSize(path); err != nil {
				return nil, fmt.Errorf("%s: image id %d: %w", annPath, im.ID, err)
			}
		}
		index[im.ID] = len(d.Records)
		d.Records = append(d.Records, Record{Image: path, ID: im.ID, Width: w, Height: h})
	}
	for _, a := range g.Annotations {
		r := &d.Records[index[a.ImageID]] // coco.ReadDataset checked the image id
		x, y, w, h := a.BBox[0], a.BBox[1], a.BBox[2], a.BBox[3]
		box, ok, err := checkBox([4]float64{x, y, x + w, y + h}, r.Width, r.Height)
		if err != nil {
			return nil, fmt.Errorf("%s: annotation id %d (image id %d): %w", annPath, a.ID, a.ImageID, err)
		}
		if !ok {
			d.Warnings = append(d.Warnings, fmt.Sprintf("%s: annotation id %d (image id %d): zero-size box %v skipped",
				annPath, a.ID, a.ImageID, a.BBox))
			continue
		}
		r.Objects = append(r.Objects, Object{Box: box, Class: cls[a.CategoryID], Crowd: a.IsCrowd})
	}
	return d, nil
}
