package seg

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"paddle/core/config"
	"paddle/core/data"
	"paddle/core/tensor"
)

// Batch is a training or evaluation batch: images X (N, 3, H, W) float32
// and labels Y (N, H, W) int64 (classes, or the ignore index).
type Batch struct {
	X     *tensor.Tensor
	Y     *tensor.Tensor
	Paths []string
}

// splitData is a decoded split: every pair read once (images and labels are
// kept in memory; a few thousand small images fit easily), then transformed
// per epoch.
type splitData struct {
	opts    DatasetOpts
	samples []*Sample
}

// loadSplit reads a `Dataset` component's list and decodes every pair,
// checking sizes and label values (errors name the files).
func loadSplit(c config.Component, val bool, numClasses, ignore int) (*splitData, error) {
	if c.Name == "" {
		return nil, fmt.Errorf("the dataset is missing")
	}
	var o DatasetOpts
	if err := c.Decode(&o); err != nil {
		return nil, err
	}
	list := o.TrainPath
	key := "train_path"
	if val {
		list, key = o.ValPath, "val_path"
	}
	if list == "" {
		return nil, c.Errorf("%s is required", key)
	}
	if _, err := os.Stat(list); err != nil && !filepath.IsAbs(list) && o.DatasetRoot != "" {
		if _, err2 := os.Stat(filepath.Join(o.DatasetRoot, list)); err2 == nil {
			list = filepath.Join(o.DatasetRoot, list)
		}
	}
	pairs, err := ReadFileList(list, ListOptions{DatasetRoot: o.DatasetRoot, Separator: o.Separator, NeedLabels: true})
	if err != nil {
		return nil, c.Errorf("%v\nhint: run `paddle seg synth --output DIR` and set -o %s.dataset_root=DIR", err, map[bool]string{false: "train_dataset", true: "val_dataset"}[val])
	}
	if o.Limit > 0 && len(pairs) > o.Limit {
		pairs = pairs[:o.Limit]
	}
	if len(pairs) == 0 {
		return nil, c.Errorf("%s lists no image", list)
	}
	d := &splitData{opts: o, samples: make([]*Sample, len(pairs))}
	errs := make([]error, len(pairs))
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(runtime.GOMAXPROCS(0), len(pairs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				d.samples[i], errs[i] = LoadSample(pairs[i], numClasses, ignore)
			}
		}()
	}
	for i := range pairs {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, e := range errs {
		if e != nil {
			return nil, e
		}
	}
	return d, nil
}

// dataset returns the split with its transforms as a data.Dataset of items.
func (d *splitData) dataset(tr transform) data.RandDataset[item] {
	base := data.FuncDataset[item]{N: len(d.samples), F: func(i int) (item, error) {
		s := d.samples[i]
		return item{Path: s.Pair.Image, Img: s.Image, Lab: s.Label}, nil
	}}
	return data.WithTransform[item](base, tr)
}

// collate stacks items of one size into a Batch.
func collate(items []item) (Batch, error) {
	if len(items) == 0 {
		return Batch{}, fmt.Errorf("empty batch")
	}
	s := items[0].X.Shape()
	c, h, w := s[0], s[1], s[2]
	x := tensor.New(tensor.Float32, len(items), c, h, w)
	y := tensor.New(tensor.Int64, len(items), h, w)
	xv, yv := x.F32(), y.I64()
	b := Batch{X: x, Y: y}
	for i, it := range items {
		if !it.X.Shape().Equal(s) {
			return Batch{}, fmt.Errorf("batch: %s is %v but %s is %v; give a crop or resize so that training images share one size",
				it.Path, it.X.Shape(), items[0].Path, s)
		}
		if err := checkSameSize(&it); err != nil {
			return Batch{}, err
		}
		copy(xv[i*c*h*w:], it.X.Contiguous().F32())
		for j, v := range it.Lab.Pix {
			yv[i*h*w+j] = int64(v)
		}
		b.Paths = append(b.Paths, it.Path)
	}
	return b, nil
}
