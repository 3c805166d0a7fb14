package det

import (
	"bufio"
	"encoding/xml"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"paddle/core/bounded"
	"path/filepath"
	"strconv"
	"strings"
)

// vocXML is the part of a Pascal VOC annotation file the reader uses.
type vocXML struct {
	ID   string `xml:"id"`
	Size struct {
		Width  string `xml:"width"`
		Height string `xml:"height"`
	} `xml:"size"`
	Objects []struct {
		Name      string `xml:"name"`
		Difficult string `xml:"difficult"`
		Box       struct {
			XMin string `xml:"xmin"`
			YMin string `xml:"ymin"`
			XMax string `xml:"xmax"`
			YMax string `xml:"ymax"`
		} `xml:"bndbox"`
	} `xml:"object"`
}

// ReadLabelList reads a label_list.txt: one class name per line, the line
// order being the class index (blank lines are skipped).
func ReadLabelList(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var names []string
	seen := map[string]int{}
	for i, line := range strings.Split(string(b), "\n") {
		name := strings.TrimSpace(line)
		if name == "" {
			continue
		}
		if j, dup := seen[name]; dup {
			return nil, fmt.Errorf("%s:%d: class %q already on line %d", path, i+1, name, j)
		}
		seen[name] = i + 1
		names = append(names, name)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s: no class names", path)
	}
	return names, nil
}

// ReadVOC reads a Pascal VOC data set (PaddleDetection's VOCDataSet):
// listPath holds lines "image xml" with both paths relative to datasetDir,
// labelPath the class names (label_list.txt). Errors name the list line or
// the xml file and object: missing files, unknown class names, negative
// sizes, boxes outside the image. Zero-size boxes are skipped with a warning.
func ReadVOC(datasetDir, listPath, labelPath string) (*Dataset, error) {
	classes, err := ReadLabelList(labelPath)
	if err != nil {
		return nil, err
	}
	cls := map[string]int{}
	d := &Dataset{Classes: classes}
	for i, c := range classes {
		cls[c] = i
		d.CategoryIDs = append(d.CategoryIDs, int64(i+1))
	}
	f, err := os.Open(listPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for ln := 1; sc.Scan(); ln++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if len(fields) < 2 {
			return nil, fmt.Errorf("%s:%d: want \"image_path xml_path\", got %q", listPath, ln, sc.Text())
		}
		img, xmlPath := filepath.Join(datasetDir, fields[0]), filepath.Join(datasetDir, fields[1])
		for _, p := range []string{img, xmlPath} {
			if _, err := os.Stat(p); err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil, fmt.Errorf("%s:%d: %s: no such file", listPath, ln, p)
				}
				return nil, fmt.Errorf("%s:%d: %w", listPath, ln, err)
			}
		}
		r, warn, err := readVOCXML(xmlPath, cls)
		if err != nil {
			return nil, err
		}
		r.Image = img
		if r.ID < 0 {
			r.ID = int64(len(d.Records))
		}
		d.Records = append(d.Records, r)
		d.Warnings = append(d.Warnings, warn...)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", listPath, err)
	}
	if len(d.Records) == 0 {
		return nil, fmt.Errorf("%s: no records", listPath)
	}
	return d, nil
}

// readVOCXML parses one annotation file; its ID is -1 when it has no <id>.
func readVOCXML(path string, cls map[string]int) (Record, []string, error) {
	r := Record{ID: -1}
	b, err := bounded.ReadFile(path, bounded.AnnotationBytes, "VOC annotation file")
	if err != nil {
		return r, nil, err
	}
	var x vocXML
	if err := xml.Unmarshal(b, &x); err != nil {
		return r, nil, fmt.Errorf("%s: %w", path, err)
	}
	if x.ID != "" {
		if r.ID, err = strconv.ParseInt(strings.TrimSpace(x.ID), 10, 64); err != nil {
			return r, nil, fmt.Errorf("%s: <id> %q is not an integer", path, x.ID)
		}
	}
	w, errW := parseNum(x.Size.Width)
	h, errH := parseNum(x.Size.Height)
	if errW != nil || errH != nil || w <= 0 || h <= 0 || w != float64(int(w)) || h != float64(int(h)) {
		return r, nil, fmt.Errorf("%s: <size> %q x %q: want positive integer width and height", path, x.Size.Width, x.Size.Height)
	}
	r.Width, r.Height = int(w), int(h)
	var warn []string
	for i, o := range x.Objects {
		name := strings.TrimSpace(o.Name)
		c, ok := cls[name]
		if !ok {
			return r, nil, fmt.Errorf("%s: object %d: unknown class %q (not in the label list)", path, i, name)
		}
		var box [4]float64
		for j, s := range []string{o.Box.XMin, o.Box.YMin, o.Box.XMax, o.Box.YMax} {
			if box[j], err = parseNum(s); err != nil {
				return r, nil, fmt.Errorf("%s: object %d (%s): bndbox: %w", path, i, name, err)
			}
		}
		box, keep, err := checkBox(box, r.Width, r.Height)
		if err != nil {
			return r, nil, fmt.Errorf("%s: object %d (%s): %w", path, i, name, err)
		}
		if !keep {
			warn = append(warn, fmt.Sprintf("%s: object %d (%s): zero-size box %v skipped", path, i, name, box))
			continue
		}
		diff := false
		if s := strings.TrimSpace(o.Difficult); s != "" {
			v, err := strconv.Atoi(s)
			if err != nil {
				return r, nil, fmt.Errorf("%s: object %d (%s): <difficult> %q is not an integer", path, i, name, s)
			}
			diff = v != 0
		}
		r.Objects = append(r.Objects, Object{Box: box, Class: c, Difficult: diff})
	}
	return r, warn, nil
}

func parseNum(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		// NaN would pass every range check of a box and reach training.
		return 0, fmt.Errorf("%q is not a finite number", s)
	}
	return v, nil
}
