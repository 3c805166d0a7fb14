package det

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"

	"paddle/core/config"
	"paddle/core/data"
	"paddle/core/tensor"
)

// Batch is a collated batch: images (N, 3, H, W) normalised, and each
// image's boxes in input pixels.
type Batch struct {
	X       *tensor.Tensor
	Boxes   [][][4]float64
	Classes [][]int
	Recs    []*Record // source records (nil entries for predict inputs)
	Paths   []string  // image files
	SX, SY  []float64 // input pixels per original pixel
	Sizes   [][2]int  // original (w, h)
}

// datasets are the data sets TrainDataset / EvalDataset / TestDataset can
// name and this kit reads.
var datasets = newDatasets()

func newDatasets() *config.Registry[struct{}, *Dataset] {
	r := config.NewRegistry[struct{}, *Dataset]("dataset")
	join := func(o DatasetOpts, p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(o.DatasetDir, p)
	}
	config.Add(r, "COCODataSet", DatasetOpts{}, func(c config.Component, o DatasetOpts, _ struct{}) (*Dataset, error) {
		if o.AnnoPath == "" {
			return nil, c.Errorf("anno_path is required")
		}
		img := join(o, o.ImageDir)
		if img == "" {
			img = o.DatasetDir
		}
		return ReadCOCO(join(o, o.AnnoPath), img)
	})
	config.Add(r, "VOCDataSet", DatasetOpts{}, func(c config.Component, o DatasetOpts, _ struct{}) (*Dataset, error) {
		if o.AnnoPath == "" || o.LabelList == "" {
			return nil, c.Errorf("anno_path (list file) and label_list are required")
		}
		return ReadVOC(o.DatasetDir, join(o, o.AnnoPath), join(o, o.LabelList))
	})
	// Composited on the fly (see synthSource); only its classes here.
	config.Add(r, "SynthDataSet", SynthDataSetOpts{}, func(c config.Component, _ SynthDataSetOpts, _ struct{}) (*Dataset, error) {
		names, err := synthClassNames(c)
		if err != nil {
			return nil, err
		}
		ds := &Dataset{Classes: names}
		for i := range names {
			ds.CategoryIDs = append(ds.CategoryIDs, int64(i+1))
		}
		return ds, nil
	})
	return r
}

// openDataset reads a TrainDataset/EvalDataset component.
func openDataset(c config.Component) (*Dataset, error) {
	if c.Name == "" {
		return nil, fmt.Errorf("%s: the dataset is missing", c.Path)
	}
	if !datasets.Has(c.Name) {
		return nil, c.Errorf("dataset %s cannot be read (known: %s)", c.Name, strings.Join(datasets.Names(), ", "))
	}
	return datasets.Build(c, struct{}{})
}

// detDataset serves a Dataset's records through a pipeline.
type detDataset struct {
	ds *Dataset
	p  *pipeline
}

func (d *detDataset) Len() int { return len(d.ds.Records) }

func (d *detDataset) Get(i int) (Sample, error) {
	s, _, err := d.GetRand(i, data.SampleRand(0, 0, i))
	return s, err
}

func (d *detDataset) GetRand(i int, r *rand.Rand) (Sample, bool, error) {
	rec := &d.ds.Records[i]
	s := Sample{Rec: rec, Path: rec.Image, SX: 1, SY: 1}
	for _, o := range rec.Objects {
		if !o.Crowd {
			s.Boxes, s.Classes = append(s.Boxes, o.Box), append(s.Classes, o.Class)
		}
	}
	if d.p.mosaic != nil && r.Float64() < d.p.mosaic.Prob {
		if err := d.loadMosaic(&s, r); err != nil {
			return s, false, err
		}
		return s, true, nil
	}
	if err := loadSample(&s, d.p, r); err != nil {
		return s, false, err
	}
	return s, true, nil
}

// loadMosaic decodes s and three random other records, combines them
// (mosaic) and runs the sample transforms on the result.
func (d *detDataset) loadMosaic(s *Sample, r *rand.Rand) error {
	load := func(x *Sample) error {
		img, err := data.DecodeFile(x.Path, data.RGB)
		if err != nil {
			return err
		}
		if img.C != 3 {
			return fmt.Errorf("%s: want a colour image, got %d channel(s)", x.Path, img.C)
		}
		x.Img = img
		return nil
	}
	if err := load(s); err != nil {
		return err
	}
	var more [3]Sample
	for k := range more {
		rec := &d.ds.Records[r.IntN(len(d.ds.Records))]
		more[k] = Sample{Rec: rec, Path: rec.Image}
		for _, o := range rec.Objects {
			if !o.Crowd {
				more[k].Boxes, more[k].Classes = append(more[k].Boxes, o.Box), append(more[k].Classes, o.Class)
			}
		}
		if err := load(&more[k]); err != nil {
			return err
		}
	}
	if err := mosaic(s, more, *d.p.mosaic, r); err != nil {
		return err
	}
	return d.p.apply(s, r)
}

// loadSample decodes s.Path and runs the pipeline's sample transforms.
func loadSample(s *Sample, p *pipeline, r *rand.Rand) error {
	img, err := data.DecodeFile(s.Path, data.RGB)
	if err != nil {
		return err
	}
	if img.C != 3 {
		return fmt.Errorf("%s: want a colour image, got %d channel(s)", s.Path, img.C)
	}
	s.Img = img
	if s.SX == 0 {
		s.SX, s.SY = 1, 1
	}
	return p.apply(s, r)
}

// collate stacks samples into a Batch, first resizing them all to one
// BatchRandomResize size (picked by the first sample's draw) when the
// pipeline has one. Without it, all images must already share a size.
func (p *pipeline) collate(ss []Sample) (Batch, error) {
	if len(ss) == 0 {
		return Batch{}, fmt.Errorf("empty batch")
	}
	if len(p.sizes) > 0 {
		sz := p.sizes[ss[0].Pick%uint64(len(p.sizes))]
		for i := range ss {
			if err := resizeSample(&ss[i], sz[0], sz[1]); err != nil {
				return Batch{}, err
			}
		}
	}
	h, w := ss[0].Img.H, ss[0].Img.W
	if h%32 != 0 || w%32 != 0 {
		return Batch{}, fmt.Errorf("%s: input %dx%d: the model needs sides that are multiples of 32 (set Resize or BatchRandomResize target_size)", ss[0].Path, w, h)
	}
	x := tensor.New(tensor.Float32, len(ss), 3, h, w)
	dst := x.F32()
	var b Batch
	for i, s := range ss {
		if s.Img.H != h || s.Img.W != w {
			return Batch{}, fmt.Errorf("%s: image %dx%d differs from the batch's %dx%d (add Resize or BatchRandomResize)", s.Path, s.Img.W, s.Img.H, w, h)
		}
		t, err := data.ToTensor(s.Img, p.scale, p.mean, p.std)
		if err != nil {
			return Batch{}, err
		}
		copy(dst[i*3*h*w:], t.F32())
		b.Boxes = append(b.Boxes, s.Boxes)
		b.Classes = append(b.Classes, s.Classes)
		b.Recs = append(b.Recs, s.Rec)
		b.Paths = append(b.Paths, s.Path)
		b.SX, b.SY = append(b.SX, s.SX), append(b.SY, s.SY)
		if s.Rec != nil {
			b.Sizes = append(b.Sizes, [2]int{s.Rec.Width, s.Rec.Height})
		} else {
			b.Sizes = append(b.Sizes, [2]int{int(float64(w)/s.SX + 0.5), int(float64(h)/s.SY + 0.5)})
		}
	}
	b.X = x
	return b, nil
}
