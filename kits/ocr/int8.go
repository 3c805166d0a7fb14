package ocr

import (
	"fmt"
	"log/slog"
	"math/rand/v2"
	"path/filepath"
	"strings"

	"paddle/core/cli/iostreams"
	"paddle/core/hub"
	"paddle/core/imgproc"
	"paddle/core/quant"
	"paddle/core/tensor"
	"paddle/kits/ocr/synth"
)

// Precisions are --precision's values: the store models as pulled (fp32),
// or quantized to int8 on first use (int8).
const (
	PrecisionFP32 = "fp32"
	PrecisionInt8 = "int8"
)

// ParsePrecision checks a --precision value ("" is fp32).
func ParsePrecision(s string) (string, error) {
	switch s {
	case "", PrecisionFP32:
		return PrecisionFP32, nil
	case PrecisionInt8:
		return PrecisionInt8, nil
	}
	return "", fmt.Errorf("%q: want %s or %s", s, PrecisionFP32, PrecisionInt8)
}

// int8Plan says whether --precision int8 quantizes one of the store's
// models, and how; docs/int8.md gives the measurements behind each choice.
type int8Plan struct {
	Quantize bool
	Why      string // logged when the model stays float
	Method   string
	Exclude  []string // nodes kept in float (names as `paddle model quantize` reports them)
	Count    int      // calibration inputs
}

// int8Plans are the plans for the detector, the recogniser and the angle
// classifier.
var int8Plans = map[string]int8Plan{
	"det": {Quantize: true, Method: "percentile", Count: 8},
	"rec": {Quantize: true, Method: "percentile", Count: 48},
	"cls": {Why: "int8 moves its 0/180 probabilities by up to 0.08 (docs/int8.md); it is 0.6 MB and a small share of the time"},
}

// int8Recipe is part of every cached file's key: a change to the
// calibration data or the quantizer's use here remakes the cached files.
const int8Recipe = "ocr-int8-v1"

// calibSeed seeds the calibration renderings; the held-out evaluation sets
// of scripts/ocr_heldout.sh use other seeds, fonts and texts.
const calibSeed = 0x1a7e8

// CalibrationInputs returns count deterministic calibration inputs for the
// kind of model ("det", "rec" or "cls"), preprocessed as predict feeds them
// under profile p: text rendered by the synth kit (random strings over the
// English charset, in the Go fonts built into the binary, with synth's
// default augmentation) — pages for the detector, single lines for the
// recogniser and the classifier (every third line upside down for the
// classifier). They need no file and no installed font.
func CalibrationInputs(kind string, count int, p Profile) ([]*tensor.Tensor, error) {
	fonts, err := synth.LoadFonts("go")
	if err != nil {
		return nil, err
	}
	texts, err := synth.NewTexts(nil, "en", 3, 30)
	if err != nil {
		return nil, err
	}
	lo := synth.LineOptions{MinSize: 18, MaxSize: 44, Augment: synth.DefaultAugment()}
	out := make([]*tensor.Tensor, count)
	for i := range count {
		r := rand.New(rand.NewPCG(calibSeed, uint64(i)))
		switch kind {
		case "det":
			side := 640 + 160*(i%3)
			img, _, err := synth.RenderPage(texts, fonts, synth.PageOptions{Width: side, Height: side, MaxLines: 12}, lo, r)
			if err != nil {
				return nil, err
			}
			out[i] = DetPreprocess(bgr(img.H, img.W, img.C, img.Pix), p)
		case "rec", "cls":
			text := texts.Pick(r)
			img, err := synth.RenderLine(text, fonts[r.IntN(len(fonts))], lo, r)
			if err != nil {
				return nil, err
			}
			crop := bgr(img.H, img.W, img.C, img.Pix)
			if kind == "cls" {
				if i%3 == 2 {
					crop = imgproc.Rotate180(crop)
				}
				out[i] = ClsBatchInput([]imgproc.Mat8{crop})
			} else {
				out[i] = RecBatchInput([]imgproc.Mat8{crop})
			}
		default:
			return nil, fmt.Errorf("calibration inputs: unknown model kind %q (want det, rec or cls)", kind)
		}
	}
	return out, nil
}

// bgr turns synth's RGB pixels into the BGR image predict reads files as.
func bgr(h, w, c int, rgb []uint8) imgproc.Mat8 {
	m := imgproc.Mat8{H: h, W: w, C: c, Pix: append([]uint8(nil), rgb...)}
	if c == 3 {
		for i := 0; i+2 < len(m.Pix); i += 3 {
			m.Pix[i], m.Pix[i+2] = m.Pix[i+2], m.Pix[i]
		}
	}
	return m
}

// int8Model returns the file to load for a store model under --precision
// int8: the cached quantization of it (name the model's store file, srcKey
// what identifies its float weights), made on first use, or "" when the
// plan keeps the model in float. load reads the float model.
func int8Model(store, kind, name, srcKey string, load quant.Load, p Profile, progress func(int, string) iostreams.Progress) (string, error) {
	plan := int8Plans[kind]
	if !plan.Quantize {
		slog.Info("int8: this model stays float32", "model", name, "why", plan.Why)
		return "", nil
	}
	out := strings.TrimSuffix(name, filepath.Ext(name)) + ".int8.onnx"
	key := strings.Join([]string{int8Recipe, srcKey, plan.Method, fmt.Sprint(plan.Count), "exclude=" + strings.Join(plan.Exclude, ",")}, " ")
	res, err := hub.Derive(store, out, key, func(path string) error {
		slog.Info("int8: calibrating and quantizing (first use; the result is cached in the model store)", "model", name, "inputs", plan.Count, "method", plan.Method)
		ins, err := CalibrationInputs(kind, plan.Count, p)
		if err != nil {
			return err
		}
		var bar iostreams.Progress
		if progress != nil {
			bar = progress(plan.Count*quant.Passes(plan.Method), "calibrating "+name)
			defer bar.Finish()
		}
		job := quant.Job{
			Load:    load,
			Options: quant.Options{Method: plan.Method, PerChannel: true, Exclude: plan.Exclude},
			Count:   plan.Count, Output: path,
		}
		var inName string
		job.Feed = func(i int) (map[string]*tensor.Tensor, error) {
			return map[string]*tensor.Tensor{inName: ins[i]}, nil
		}
		if bar != nil {
			job.Step = func() { bar.Add(1) }
		}
		g, err := load()
		if err != nil {
			return err
		}
		if len(g.Inputs) != 1 {
			return fmt.Errorf("%s: %d inputs, want 1", name, len(g.Inputs))
		}
		inName = g.Inputs[0].Name
		if _, _, err := job.Run(); err != nil {
			return fmt.Errorf("quantizing %s: %w", name, err)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if res.Stale != "" {
		slog.Warn("int8: the cached model did not match its record and was made again", "why", res.Stale)
	}
	return res.Path, nil
}
