package seg

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"paddle/core/config"
	"paddle/core/data"
	pio "paddle/core/io"
	"paddle/core/op"
	"paddle/core/tensor"
	"paddle/core/workflow"
)

// Prediction is one image's result (the jsonl line of `seg predict`):
// where its label map (and overlay) went and how many pixels each class got.
// Overlay is set with --draw only. A failed image's record is
// workflow.Failed: {"image", "error"}.
type Prediction struct {
	Image       string         `json:"image"`
	Width       int            `json:"width"`
	Height      int            `json:"height"`
	LabelMap    string         `json:"label_map"`
	Overlay     string         `json:"overlay,omitempty"`
	ClassPixels map[string]int `json:"class_pixels"`
}

// Predict segments image files with the checkpoint env.Weights, or with
// the export directory env.Model (export.go).
func (r *runner) Predict(ctx context.Context, env workflow.Env, args []string) error {
	if env.Model != "" {
		return r.predictExport(ctx, env, args)
	}
	model, err := r.newModel()
	if err != nil {
		return err
	}
	if _, err := workflow.LoadCheckpoint(env.Weights, model, nil); err != nil {
		return err
	}
	tr, err := buildTransforms(r.valOptions.Transforms)
	if err != nil {
		return err
	}
	fw := forward(model)
	return r.predictFiles(ctx, env, args, tr, r.labelNames(), func(x *tensor.Tensor) (*tensor.Tensor, error) {
		return infer(fw, x, r.test), nil
	})
}

// labelNames reads labels.txt next to the val (or train) list, if present.
func (r *runner) labelNames() []string {
	for _, o := range []DatasetOpts{r.valOptions, r.trainOpts} {
		if o.DatasetRoot == "" {
			continue
		}
		if names, err := ReadLabelNames(filepath.Join(o.DatasetRoot, "labels.txt")); err == nil && len(names) == r.numClasses {
			return names
		}
	}
	return nil
}

// predictFiles runs tr and segment (one image (1, 3, h, w) → logits
// (1, C, h, w)) on each input, brings the logits back to the image's size,
// and writes pseudo_color_prediction/<name>.png (palette PNG of class
// indices), with draw added_prediction/<name>.png (colour overlay), and one
// Prediction per image in env.Format.
func (r *runner) predictFiles(ctx context.Context, env workflow.Env, args []string, tr transform, labels []string,
	segment func(x *tensor.Tensor) (*tensor.Tensor, error)) error {
	inputs, err := env.Inputs(args, workflow.ImageExts)
	if err != nil {
		return config.Usage(err)
	}
	outDir := env.Output
	if outDir == "" {
		outDir = filepath.Join(r.outputDir, "predict")
	}
	stems := workflow.OutputStems(inputs)
	out := workflow.NewPrinter(env.IO.Out, env.Format, workflow.KeyImage, predictionLine)
	failed, err := workflow.RunOrdered(ctx, inputs, 1, func(_ context.Context, in workflow.Input) (Prediction, error) {
		img, err := data.DecodeFile(in.Path, data.RGB)
		if err != nil {
			return Prediction{}, err
		}
		s := item{Path: in.Path, Img: img}
		if _, err := tr.Apply(&s, rand.New(rand.NewPCG(0, 0))); err != nil {
			return Prediction{}, err
		}
		logits, err := segment(s.X.Reshape(append([]int{1}, s.X.Shape()...)...))
		if err != nil {
			return Prediction{}, err
		}
		if logits.Dim(2) != img.H || logits.Dim(3) != img.W {
			logits = op.Resize(logits, op.ResizeParams{Mode: "linear", CoordMode: "half_pixel", Sizes: []int{img.H, img.W}})
		}
		pred := argmax(logits)[0]
		return r.writePrediction(outDir, stems[in.Path], img, pred, logits.Dim(1), labels)
	}, workflow.PrintResults(out, func(res workflow.Result[Prediction]) Prediction {
		p := res.Value
		p.Image = res.Input.Path
		return p
	}))
	return out.Finish(failed, len(inputs), err)
}

// writePrediction writes the label map (and with --draw the overlay) of one
// input under dir as <stem>.png (workflow.OutputStems: unique per input).
func (r *runner) writePrediction(dir, stem string, img *data.Image, pred []uint8, classes int, labels []string) (Prediction, error) {
	p := Prediction{Width: img.W, Height: img.H, ClassPixels: map[string]int{}}
	counts := make([]int, classes)
	for _, v := range pred {
		counts[v]++
	}
	for k, n := range counts {
		if n == 0 {
			continue
		}
		name := fmt.Sprint(k)
		if k < len(labels) {
			name = labels[k]
		}
		p.ClassPixels[name] = n
	}
	pal := colorMap(max(classes, 1))
	lm := &image.Paletted{Pix: pred, Stride: img.W, Rect: image.Rect(0, 0, img.W, img.H), Palette: pal}
	p.LabelMap = filepath.Join(dir, "pseudo_color_prediction", stem+".png")
	if err := writeImagePNG(p.LabelMap, lm); err != nil {
		return p, err
	}
	if r.draw {
		ov := image.NewRGBA(image.Rect(0, 0, img.W, img.H))
		for i, v := range pred {
			c := pal[v].(color.RGBA)
			src := img.Pix[3*i : 3*i+3]
			// PaddleSeg's visualize: 0.6·image + 0.4·colour (background keeps the photo)
			if v == 0 {
				ov.Pix[4*i], ov.Pix[4*i+1], ov.Pix[4*i+2] = src[0], src[1], src[2]
			} else {
				ov.Pix[4*i] = uint8(0.6*float64(src[0]) + 0.4*float64(c.R) + 0.5)
				ov.Pix[4*i+1] = uint8(0.6*float64(src[1]) + 0.4*float64(c.G) + 0.5)
				ov.Pix[4*i+2] = uint8(0.6*float64(src[2]) + 0.4*float64(c.B) + 0.5)
			}
			ov.Pix[4*i+3] = 255
		}
		p.Overlay = filepath.Join(dir, "added_prediction", stem+".png")
		if err := writeImagePNG(p.Overlay, ov); err != nil {
			return p, err
		}
	}
	return p, nil
}

func writeImagePNG(path string, m image.Image) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	var b bytes.Buffer
	if err := png.Encode(&b, m); err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	return pio.WriteFileAtomic(path, b.Bytes(), 0o644)
}

// colorMap is PaddleSeg's (and PASCAL VOC's) pseudo-colour palette: class
// k's bits spread over the high bits of R, G and B.
func colorMap(n int) color.Palette {
	pal := make(color.Palette, n)
	for k := range n {
		var rgb [3]uint8
		lab := k
		for j := 0; lab > 0; j++ {
			for c := range 3 {
				rgb[c] |= uint8((lab>>c)&1) << (7 - j)
			}
			lab >>= 3
		}
		pal[k] = color.RGBA{rgb[0], rgb[1], rgb[2], 255}
	}
	return pal
}

// predictionLine is the text form: path, then class:pixels pairs.
func predictionLine(p Prediction) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\t%s", p.Image, p.LabelMap)
	for _, k := range slices.Sorted(maps.Keys(p.ClassPixels)) {
		fmt.Fprintf(&b, "\t%s:%d", k, p.ClassPixels[k])
	}
	return b.String() + "\n"
}

// PredictRecord is `seg predict`'s record, for --help (docs/formats.md).
const PredictRecord = `  {"image": string, "width": int, "height": int, "label_map": string, "overlay": string, "class_pixels": {"<class>": int, ...}}
  label_map: the palette PNG of class indices written; overlay: only with --draw;
  class_pixels: pixels per predicted class (classes with none left out).
  failed: {"image": string, "error": string}`
