package synth

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"sync"

	pio "paddle/core/io"
	"paddle/core/metric/coco"
)

// Layout of a written data set, relative to its folder:
//
//	images/{train,eval}/000000.jpg        the composites (JPEG, quality 95)
//	masks/{train,eval}/000000.png         label maps: class id (1..C), 0 background, 255 ignore
//	annotations/instances_{train,eval}.json   COCO (category id = class id, image and annotation ids from 1)
//	xml/{train,eval}/000000.xml           Pascal VOC annotations
//	train.txt, eval.txt                   VOC lists: "images/train/000000.jpg xml/train/000000.xml"
//	label_list.txt                        VOC class names, one a line
//	seg_train.txt, seg_eval.txt           PaddleSeg lists: "images/train/000000.jpg masks/train/000000.png"
//	labels.txt                            PaddleSeg class names: background, then the classes
//	synth.json                            options, classes, and the objects and backgrounds of each split
//
// Boxes are pixel edges [x1, y1, x2, y2) in both COCO ([x1, y1, x2-x1,
// y2-y1]) and VOC (xmin=x1 … xmax=x2), so the two readers agree.

// WriteOptions say what to write.
type WriteOptions struct {
	Options
	Train, Eval int              // images per split
	Workers     int              // parallel generators; ≤ 0 means 1
	Progress    func(done int)   // called after each image (from several goroutines), may be nil
	Log         func(msg string) // may be nil
}

// Write generates and writes a data set into dir (see the layout above).
func Write(dir string, l *Library, wo WriteOptions) error {
	wo.Options = wo.Options.withDefaults()
	for _, s := range []Split{Train, Eval} {
		n := wo.Train
		if s == Eval {
			n = wo.Eval
		}
		if n <= 0 {
			continue
		}
		if err := writeSplit(dir, l, s, n, wo); err != nil {
			return err
		}
	}
	var labels, segLabels strings.Builder
	segLabels.WriteString("background\n")
	for _, c := range l.Classes {
		labels.WriteString(c + "\n")
		segLabels.WriteString(c + "\n")
	}
	if err := pio.WriteFileAtomic(filepath.Join(dir, "label_list.txt"), []byte(labels.String()), 0o644); err != nil {
		return err
	}
	if err := pio.WriteFileAtomic(filepath.Join(dir, "labels.txt"), []byte(segLabels.String()), 0o644); err != nil {
		return err
	}
	return writeManifest(dir, l, wo)
}

func writeSplit(dir string, l *Library, s Split, n int, wo WriteOptions) error {
	for _, sub := range []string{"images", "masks", "xml"} {
		if err := os.MkdirAll(filepath.Join(dir, sub, s.String()), 0o755); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "annotations"), 0o755); err != nil {
		return err
	}
	objs := make([][]Object, n)
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(wo.Workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				smp := l.Generate(s, i, wo.Options)
				objs[i] = smp.Objects
				errs[i] = writeSample(dir, s, i, smp, l.Classes)
				if wo.Progress != nil {
					wo.Progress(1)
				}
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	g := &coco.Dataset{}
	for c, name := range l.Classes {
		g.Categories = append(g.Categories, coco.Category{ID: int64(c + 1), Name: name})
	}
	var vocList, segList strings.Builder
	for i := range n {
		img, mask, xmlPath := samplePaths(s, i)
		g.Images = append(g.Images, coco.Image{ID: int64(i + 1), FileName: img, Width: wo.Size, Height: wo.Size})
		for _, o := range objs[i] {
			b := o.Box
			g.Annotations = append(g.Annotations, coco.Annotation{ID: int64(len(g.Annotations) + 1), ImageID: int64(i + 1),
				CategoryID: int64(o.Class + 1), BBox: [4]float64{b[0], b[1], b[2] - b[0], b[3] - b[1]}, Area: float64(o.Area)})
		}
		fmt.Fprintf(&vocList, "%s %s\n", img, xmlPath)
		fmt.Fprintf(&segList, "%s %s\n", img, mask)
	}
	js, err := json.Marshal(g)
	if err != nil {
		return err
	}
	files := map[string][]byte{
		filepath.Join("annotations", "instances_"+s.String()+".json"): js,
		s.String() + ".txt":          []byte(vocList.String()),
		"seg_" + s.String() + ".txt": []byte(segList.String()),
	}
	for name, b := range files {
		if err := pio.WriteFileAtomic(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	if wo.Log != nil {
		wo.Log(fmt.Sprintf("%s: %d images, %d objects", s, n, len(g.Annotations)))
	}
	return nil
}

// samplePaths returns the image, mask and xml paths of a sample, relative to the data set folder.
func samplePaths(s Split, i int) (img, mask, xmlPath string) {
	name := fmt.Sprintf("%06d", i)
	return "images/" + s.String() + "/" + name + ".jpg", "masks/" + s.String() + "/" + name + ".png",
		"xml/" + s.String() + "/" + name + ".xml"
}

func writeSample(dir string, s Split, i int, smp Sample, classes []string) error {
	img, mask, xmlPath := samplePaths(s, i)
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, smp.Image.ToStd(), &jpeg.Options{Quality: 95}); err != nil {
		return err
	}
	if err := pio.WriteFileAtomic(filepath.Join(dir, img), buf.Bytes(), 0o644); err != nil {
		return err
	}
	buf.Reset()
	m := &image.Gray{Pix: smp.Mask, Stride: smp.Image.W, Rect: image.Rect(0, 0, smp.Image.W, smp.Image.H)}
	if err := png.Encode(&buf, m); err != nil {
		return err
	}
	if err := pio.WriteFileAtomic(filepath.Join(dir, mask), buf.Bytes(), 0o644); err != nil {
		return err
	}
	x, err := vocXML(filepath.Base(img), smp, classes)
	if err != nil {
		return err
	}
	return pio.WriteFileAtomic(filepath.Join(dir, xmlPath), x, 0o644)
}

type vocObject struct {
	Name      string `xml:"name"`
	Pose      string `xml:"pose"`
	Truncated int    `xml:"truncated"`
	Difficult int    `xml:"difficult"`
	Box       struct {
		XMin float64 `xml:"xmin"`
		YMin float64 `xml:"ymin"`
		XMax float64 `xml:"xmax"`
		YMax float64 `xml:"ymax"`
	} `xml:"bndbox"`
}

type vocAnnotation struct {
	XMLName  xml.Name `xml:"annotation"`
	Folder   string   `xml:"folder"`
	Filename string   `xml:"filename"`
	Size     struct {
		Width  int `xml:"width"`
		Height int `xml:"height"`
		Depth  int `xml:"depth"`
	} `xml:"size"`
	Segmented int         `xml:"segmented"`
	Objects   []vocObject `xml:"object"`
}

func vocXML(file string, smp Sample, classes []string) ([]byte, error) {
	a := vocAnnotation{Folder: "images", Filename: file, Segmented: 1}
	a.Size.Width, a.Size.Height, a.Size.Depth = smp.Image.W, smp.Image.H, 3
	for _, o := range smp.Objects {
		v := vocObject{Name: classes[o.Class], Pose: "Unspecified"}
		v.Box.XMin, v.Box.YMin, v.Box.XMax, v.Box.YMax = o.Box[0], o.Box[1], o.Box[2], o.Box[3]
		a.Objects = append(a.Objects, v)
	}
	b, err := xml.MarshalIndent(a, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// manifest is synth.json.
type manifest struct {
	Seed        uint64              `json:"seed"`
	Size        int                 `json:"size"`
	Counts      map[string]int      `json:"images"`
	Classes     []string            `json:"classes"`
	Objects     map[string][]string `json:"objects"`     // split -> "class/name"
	Backgrounds map[string][]string `json:"backgrounds"` // split -> file base names
}

func writeManifest(dir string, l *Library, wo WriteOptions) error {
	m := manifest{Seed: wo.Seed, Size: wo.Size, Classes: l.Classes,
		Counts:  map[string]int{"train": wo.Train, "eval": wo.Eval},
		Objects: map[string][]string{}, Backgrounds: map[string][]string{}}
	for _, s := range []Split{Train, Eval} {
		seen := map[string]bool{}
		for c, sts := range l.Stamps[s] {
			for _, st := range sts {
				k := l.Classes[c] + "/" + st.Name
				if !seen[k] {
					seen[k] = true
					m.Objects[s.String()] = append(m.Objects[s.String()], k)
				}
			}
		}
		for _, b := range l.BgNames[s] {
			m.Backgrounds[s.String()] = append(m.Backgrounds[s.String()], filepath.Base(b))
		}
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return pio.WriteFileAtomic(filepath.Join(dir, "synth.json"), append(b, '\n'), 0o644)
}
