package seg

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"log/slog"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"paddle/core/config"
	"paddle/core/data"
	pio "paddle/core/io"
	"paddle/core/op"
	"paddle/core/tensor"
	"paddle/core/vis"
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

// Segmenter is a loaded model that segments one image at a time: predict's
// per-image step and `paddle serve seg`'s predictor. It is safe for
// concurrent use.
type Segmenter struct {
	tr     transform
	labels []string
	input  string // the model input's name (an export's; "x" for a checkpoint)
	// segment maps one image (1, 3, h, w) to logits (1, C, h, w).
	segment func(x *tensor.Tensor) (*tensor.Tensor, error)
}

// Predict segments image files with the checkpoint env.Weights, or with
// the export directory env.Model (export.go).
func (r *runner) Predict(ctx context.Context, env workflow.Env, args []string) error {
	sg, err := r.loadSegmenter(env)
	if err != nil {
		return err
	}
	return r.predictFiles(ctx, env, args, sg)
}

// loadSegmenter loads the export env.Model, else the checkpoint env.Weights.
func (r *runner) loadSegmenter(env workflow.Env) (*Segmenter, error) {
	if env.Model != "" {
		return r.loadExport(env)
	}
	model, err := r.newModel()
	if err != nil {
		return nil, err
	}
	if _, err := workflow.LoadCheckpoint(env.Weights, model, nil); err != nil {
		return nil, err
	}
	tr, err := buildTransforms(r.valOptions.Transforms)
	if err != nil {
		return nil, err
	}
	fw := forward(model)
	// The autograd model was not written for concurrent forwards: one at a time.
	var mu sync.Mutex
	return &Segmenter{tr: tr, labels: r.labelNames(), input: "x", segment: func(x *tensor.Tensor) (*tensor.Tensor, error) {
		mu.Lock()
		defer mu.Unlock()
		return infer(fw, x, r.test), nil
	}}, nil
}

// Segment returns img's class per pixel (row-major, img's size) and the
// number of classes the model knows.
func (sg *Segmenter) Segment(img *data.Image) (pred []uint8, classes int, err error) {
	x, err := sg.prepare(img)
	if err != nil {
		return nil, 0, err
	}
	logits, err := sg.segment(x)
	if err != nil {
		return nil, 0, err
	}
	if logits.Dim(2) != img.H || logits.Dim(3) != img.W {
		logits = op.Resize(logits, op.ResizeParams{Mode: "linear", CoordMode: "half_pixel", Sizes: []int{img.H, img.W}})
	}
	return argmax(logits)[0], logits.Dim(1), nil
}

// prepare transforms img into the model's input (1, 3, h, w).
func (sg *Segmenter) prepare(img *data.Image) (*tensor.Tensor, error) {
	s := item{Img: img}
	if _, err := sg.tr.Apply(&s, rand.New(rand.NewPCG(0, 0))); err != nil {
		return nil, err
	}
	return s.X.Reshape(append([]int{1}, s.X.Shape()...)...), nil
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
func (r *runner) predictFiles(ctx context.Context, env workflow.Env, args []string, sg *Segmenter) error {
	inputs, err := env.Inputs(args, workflow.ImageExts)
	if err != nil {
		return config.Usage(err)
	}
	outDir := env.Output
	if outDir == "" {
		outDir = filepath.Join(r.outputDir, "predict")
	}
	stems := workflow.OutputStems(inputs)
	var font *vis.Font
	if r.draw {
		var warn string
		if font, warn = vis.LoadFont(""); warn != "" {
			slog.Warn("draw: " + warn)
		}
	}
	out := workflow.NewPrinter(env.IO.Out, env.Format, workflow.KeyImage, predictionLine)
	failed, err := workflow.RunOrdered(ctx, inputs, 1, func(_ context.Context, in workflow.Input) (Prediction, error) {
		img, err := data.DecodeFile(in.Path, data.RGB)
		if err != nil {
			return Prediction{}, err
		}
		pred, classes, err := sg.Segment(img)
		if err != nil {
			return Prediction{}, fmt.Errorf("%s: %w", in.Path, err)
		}
		return r.writePrediction(outDir, stems[in.Path], img, pred, classes, sg.labels, font)
	}, workflow.PrintResults(out, func(res workflow.Result[Prediction]) Prediction {
		p := res.Value
		p.Image = res.Input.Path
		return p
	}))
	return out.Finish(failed, len(inputs), err)
}

// writePrediction writes the label map (and with --draw the overlay) of one
// input under dir as <stem>.png (workflow.OutputStems: unique per input);
// the overlay's legend is drawn in font.
func (r *runner) writePrediction(dir, stem string, img *data.Image, pred []uint8, classes int, labels []string, font *vis.Font) (Prediction, error) {
	p, lm := summarize(img, pred, classes, labels)
	p.LabelMap = filepath.Join(dir, "pseudo_color_prediction", stem+".png")
	if err := writeImagePNG(p.LabelMap, lm); err != nil {
		return p, err
	}
	if r.draw {
		p.Overlay = filepath.Join(dir, "added_prediction", stem+".png")
		ov := overlay(img, pred, lm.Palette)
		legend(ov, font, pred, lm.Palette, labels)
		if err := writeImagePNG(p.Overlay, ov); err != nil {
			return p, err
		}
	}
	return p, nil
}

// summarize returns the record of one segmented image without its files:
// its size and pixels per class, and its label map (palette PNG image).
func summarize(img *data.Image, pred []uint8, classes int, labels []string) (Prediction, *image.Paletted) {
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
	return p, &image.Paletted{Pix: pred, Stride: img.W, Rect: image.Rect(0, 0, img.W, img.H), Palette: pal}
}

// legend tags the overlay's top-left corner with each predicted class's
// name on its colour, largest class first (core/vis: the TrueType rendering
// of every kit's --draw).
func legend(ov *image.RGBA, font *vis.Font, pred []uint8, pal color.Palette, labels []string) {
	counts := make([]int, len(pal))
	for _, v := range pred {
		counts[v]++
	}
	var present []int
	for k, n := range counts {
		if n > 0 {
			present = append(present, k)
		}
	}
	slices.SortStableFunc(present, func(a, b int) int { return counts[b] - counts[a] })
	face := font.Face(vis.LabelSize(ov.Rect.Dy()))
	step := vis.TagHeight(face) + 2
	y := 0
	for _, k := range present {
		name := fmt.Sprint(k)
		if k < len(labels) && labels[k] != "" {
			name = labels[k]
		}
		y += step
		if y > ov.Rect.Dy() {
			break
		}
		vis.Tag(ov, face, name, 2, y, pal[k])
	}
}

// overlay is PaddleSeg's visualisation of pred on img.
func overlay(img *data.Image, pred []uint8, pal color.Palette) *image.RGBA {
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
	return ov
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
