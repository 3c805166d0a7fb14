package clas

import (
	"fmt"

	"paddle/core/config"
	"paddle/core/data"
	"paddle/core/tensor"
)

// dataSource is what a dataset component gives: its samples, and the
// transform_ops written in it (none for the in-memory sets).
type dataSource struct {
	base data.Dataset[Sample]
	ops  []config.Component
}

// datasetComponents are the data sets a `dataset:` component can name.
var datasetComponents = newDatasets()

func newDatasets() *config.Registry[struct{}, dataSource] {
	r := config.NewRegistry[struct{}, dataSource]("dataset")
	config.Add(r, "MNIST", MNISTOpts{}, func(c config.Component, o MNISTOpts, _ struct{}) (dataSource, error) {
		imgs, err := LoadMNIST(o.DataDir, orDefault(o.Split, "train"))
		if err != nil {
			return dataSource{}, c.Errorf("%v", err)
		}
		return dataSource{base: memDataset(limit(imgs, o.Limit))}, nil
	})
	config.Add(r, "Digits", DigitsOpts{}, func(c config.Component, o DigitsOpts, _ struct{}) (dataSource, error) {
		all, err := LoadDigits(o.File)
		if err != nil {
			return dataSource{}, c.Errorf("%v", err)
		}
		return dataSource{base: memDataset(limit(splitDigits(all, orDefault(o.Split, "train")), o.Limit))}, nil
	})
	config.Add(r, "ImageNetDataset", ImageNetDatasetOpts{}, func(c config.Component, o ImageNetDatasetOpts, _ struct{}) (dataSource, error) {
		items, err := ReadList(o.ClsLabelPath, o.ImageRoot, o.Delimiter)
		if err != nil {
			return dataSource{}, c.Errorf("%v", err)
		}
		return dataSource{base: fileDataset(items), ops: o.TransformOps}, nil
	})
	config.Add(r, "ClassFolder", ClassFolderOpts{}, func(c config.Component, o ClassFolderOpts, _ struct{}) (dataSource, error) {
		items, _, err := ReadClassFolders(o.Root)
		if err != nil {
			return dataSource{}, c.Errorf("%v", err)
		}
		return dataSource{base: fileDataset(items), ops: o.TransformOps}, nil
	})
	return r
}

// buildDataset makes the dataset a `dataset:` component names, with its transforms.
func buildDataset(c config.Component, g GlobalOpts) (data.RandDataset[Sample], error) {
	src, err := datasetComponents.Build(c, struct{}{})
	if err != nil {
		return nil, err
	}
	t, err := buildTransforms(src.ops, g)
	if err != nil {
		return nil, err
	}
	return data.WithTransform(src.base, t), nil
}

func memDataset(imgs *Images) data.Dataset[Sample] {
	return data.FuncDataset[Sample]{N: imgs.N, F: func(i int) (Sample, error) {
		m := &data.Image{H: imgs.H, W: imgs.W, C: 1, Pix: imgs.Image(i)}
		return Sample{Image: m, Label: imgs.Labels[i]}, nil
	}}
}

func fileDataset(items []Item) data.Dataset[Sample] {
	return data.FuncDataset[Sample]{N: len(items), F: func(i int) (Sample, error) {
		return Sample{Path: items[i].Path, Label: items[i].Label}, nil
	}}
}

func limit(imgs *Images, n int) *Images {
	if n <= 0 || n >= imgs.N {
		return imgs
	}
	return &Images{N: n, H: imgs.H, W: imgs.W, Classes: imgs.Classes, Pix: imgs.Pix[:n*imgs.H*imgs.W], Labels: imgs.Labels[:n]}
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Batch is a collated batch: images (N, C, H, W) float32 and int64 labels (N).
type Batch struct {
	X      *tensor.Tensor
	Labels *tensor.Tensor
	Paths  []string
}

// collate stacks samples whose tensors share a shape.
func collate(ss []Sample) (Batch, error) {
	s0 := ss[0].X.Shape()
	per := s0.NumElements()
	x := tensor.New(tensor.Float32, append([]int{len(ss)}, s0...)...)
	y := tensor.New(tensor.Int64, len(ss))
	xv, yv := x.F32(), y.I64()
	paths := make([]string, len(ss))
	for i, s := range ss {
		if !s.X.Shape().Equal(s0) {
			return Batch{}, fmt.Errorf("%s: image tensor %v differs from %v in the same batch; add a ResizeImage/CropImage transform", name(s), s.X.Shape(), s0)
		}
		copy(xv[i*per:], s.X.F32())
		yv[i] = int64(s.Label)
		paths[i] = s.Path
	}
	return Batch{X: x, Labels: y, Paths: paths}, nil
}

func name(s Sample) string {
	if s.Path != "" {
		return s.Path
	}
	return "sample"
}
