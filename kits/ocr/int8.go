package ocr

import (
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"paddle/core/cli/iostreams"
	"paddle/core/hub"
	"paddle/core/imgproc"
	"paddle/core/op"
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
	// CJK lines added to the Count English ones when a CJK font is
	// installed (cjkCalibFont): random strings over the recogniser's
	// dictionary. 0: English only.
	CJK int
	// Weights7 quantizes the weights to 7 bits where the kernels run them
	// faster (int8Weights7: AVX2 without VNNI). Off for every model: at
	// avx2 it made det 960 7 % and rec b6 10 % faster but cost the
	// recogniser up to 1.3 pt more char accuracy on zh-dev (docs/int8.md).
	Weights7 bool
	// Depthwise also quantizes the depthwise convolutions
	// (quant.Options.Depthwise), but for those in Exclude.
	Depthwise bool
}

// int8Plans are the plans for the detector, the recogniser and the angle
// classifier.
var int8Plans = map[string]int8Plan{
	"det": {Quantize: true, Method: "percentile", Count: 8, Depthwise: true},
	// The recogniser's first depthwise conv (its input spans ±25) and
	// p2o.Conv.29 are the two most sensitive depthwise convs (model
	// quantize --sensitivity); quantizing them too cost about 1 pt of char
	// accuracy on the dev sets, without them it is within 0.5 pt.
	"rec": {Quantize: true, Method: "mse", Count: 48, CJK: 24, Depthwise: true, Exclude: []string{"p2o.Conv.1", "p2o.Conv.29"}},
	// The English recogniser (--lang en). Its head (p2o.MatMul.24, 120 × 192:
	// two CTC steps per column) stays float: quantized, the second step's near
	// ties flip into spurious letters on detector crops (dev pages −0.29 pt
	// against fp32, −0.23 with the head float; docs/int8.md), and it is
	// 0.9 M multiply-adds a 320-pixel line (40 columns, 120 × 192 each).
	"rec-en": {Quantize: true, Method: "percentile", Count: 48, Exclude: []string{"p2o.MatMul.24"}},
	"cls":    {Why: "int8 moves its 0/180 probabilities by up to 0.08 (docs/int8.md); it is 0.6 MB and a small share of the time"},
}

// int8Recipe is part of every cached file's key: a change to the
// calibration data or the quantizer's use here remakes the cached files.
const int8Recipe = "ocr-int8-v3"

// calibSeed seeds the calibration renderings; the held-out evaluation sets
// of scripts/ocr_heldout.sh use other seeds, fonts and texts.
const calibSeed = 0x1a7e8

// CalibrationInputs returns count deterministic calibration inputs for the
// kind of model ("det", "rec", "rec-en" or "cls"), preprocessed as predict
// feeds them under profile p: text rendered by the synth kit (random strings
// over the English charset, in the Go fonts built into the binary, with
// synth's default augmentation) — pages for the detector, single lines for
// the recognisers and the classifier (every third line upside down for the
// classifier). They need no file and no installed font. With cjk (rec only)
// cjk.Count lines of Chinese text follow the count English ones.
func CalibrationInputs(kind string, count int, p Profile, cjk *CJKCalib) ([]*tensor.Tensor, error) {
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
		case "rec", "rec-en", "cls":
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
			return nil, fmt.Errorf("calibration inputs: unknown model kind %q (want det, rec, rec-en or cls)", kind)
		}
	}
	if cjk == nil || cjk.Count == 0 {
		return out, nil
	}
	if kind != "rec" {
		return nil, fmt.Errorf("calibration inputs: Chinese lines are for the rec model, not %s", kind)
	}
	zh, err := synth.NewTexts(nil, cjk.Chars, 2, 18)
	if err != nil {
		return nil, err
	}
	for i := range cjk.Count {
		r := rand.New(rand.NewPCG(calibSeed+1, uint64(i)))
		img, err := synth.RenderLine(zh.Pick(r), cjk.Font, lo, r)
		if err != nil {
			return nil, err
		}
		out = append(out, RecBatchInput([]imgproc.Mat8{bgr(img.H, img.W, img.C, img.Pix)}))
	}
	return out, nil
}

// CJKCalib is what the Chinese calibration lines of the recogniser are
// rendered from: Count random strings over Chars (the recogniser's
// dictionary, less ASCII and what Font lacks) in Font.
type CJKCalib struct {
	Font  *synth.Font
	Chars string
	Count int
}

// cjkCalibFonts are the CJK fonts the recogniser's Chinese calibration
// lines may be rendered in, the first installed one wins: Debian's
// fonts-wqy-microhei, fonts-wqy-zenhei, fonts-noto-cjk. None of them renders
// a held-out set (scripts/ocr_heldout.sh: Droid Sans Fallback for zh-dev, AR
// PL SungtiL GB for zh-test and zh-pages).
var cjkCalibFonts = []string{
	"/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
	"/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
	"/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
}

// cjkCalibFont returns the first installed font of cjkCalibFonts and a key
// naming it (base name and size, for the cache's recipe key), or "", "cjk=none".
func cjkCalibFont() (path, key string) {
	for _, f := range cjkCalibFonts {
		if fi, err := os.Stat(f); err == nil && fi.Mode().IsRegular() {
			return f, fmt.Sprintf("cjk=%s:%d", filepath.Base(f), fi.Size())
		}
	}
	return "", "cjk=none"
}

// loadCJKCalib loads font (a cjkCalibFonts file; its first face) and keeps
// the characters of the dictionary file dict it can draw, ASCII left out.
func loadCJKCalib(font, dict string, count int) (*CJKCalib, error) {
	fs, err := synth.LoadFonts(font)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(dict)
	if err != nil {
		return nil, fmt.Errorf("calibration text: %w", err)
	}
	var sb strings.Builder
	for _, line := range strings.Split(string(b), "\n") {
		c := strings.TrimRight(line, "\r")
		if utf8.RuneCountInString(c) == 1 && c[0] >= utf8.RuneSelf && fs[0].HasAll(c) {
			sb.WriteString(c)
		}
	}
	if sb.Len() == 0 {
		return nil, fmt.Errorf("calibration text: %s has no character %s can draw", dict, font)
	}
	return &CJKCalib{Font: fs[0], Chars: sb.String(), Count: count}, nil
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

// int8Weights7 reports whether the active kernels run int8 products
// faster with 7-bit weights (op.Kernels.QWeights7: AVX2 without VNNI);
// a variable for tests.
var int8Weights7 = func() bool {
	k := op.Active()
	return k != nil && k.QWeights7
}

// int8Model returns the file to load for a store model under --precision
// int8: the cached quantization of it (name the model's store file, srcKey
// what identifies its float weights), made on first use, or "" when the
// plan keeps the model in float. load reads the float model. When the
// plan asks for 7-bit weights and the kernels are faster with them
// (int8Weights7) the weights are quantized to [-63, 63]
// (quant.Options.ReduceRange) and cached apart, as NAME.int8-w7.onnx, so
// that both variants stay cached side by side.
func int8Model(store, kind, name, srcKey string, load quant.Load, p Profile, progress func(int, string) iostreams.Progress) (string, error) {
	plan := int8Plans[kind]
	if !plan.Quantize {
		slog.Info("int8: this model stays float32", "model", name, "why", plan.Why)
		return "", nil
	}
	w7 := plan.Weights7 && int8Weights7()
	suffix := ".int8.onnx"
	if w7 {
		suffix = ".int8-w7.onnx"
	}
	out := strings.TrimSuffix(name, filepath.Ext(name)) + suffix
	parts := []string{int8Recipe, srcKey, plan.Method, fmt.Sprint(plan.Count), "exclude=" + strings.Join(plan.Exclude, ",")}
	if w7 {
		parts = append(parts, "weights=7bit")
	}
	if plan.Depthwise {
		parts = append(parts, "depthwise")
	}
	font := ""
	if plan.CJK > 0 {
		var fkey string
		font, fkey = cjkCalibFont()
		parts = append(parts, fmt.Sprintf("%s*%d", fkey, plan.CJK))
	}
	res, err := hub.Derive(store, out, strings.Join(parts, " "), func(path string) error {
		var cjk *CJKCalib
		if plan.CJK > 0 {
			if font == "" {
				slog.Warn("int8: no CJK font installed (fonts-wqy-microhei): the recogniser calibrates on English lines only, which costs Chinese text some accuracy (docs/int8.md)")
			} else {
				var err error
				if cjk, err = loadCJKCalib(font, filepath.Join(store, storeDict), plan.CJK); err != nil {
					return err
				}
			}
		}
		n := plan.Count
		if cjk != nil {
			n += cjk.Count
		}
		slog.Info("int8: calibrating and quantizing (first use; the result is cached in the model store)", "model", name, "inputs", n, "method", plan.Method, "weights7", w7)
		ins, err := CalibrationInputs(kind, plan.Count, p, cjk)
		if err != nil {
			return err
		}
		var bar iostreams.Progress
		if progress != nil {
			bar = progress(n*quant.Passes(plan.Method), "calibrating "+name)
			defer bar.Finish()
		}
		job := quant.Job{
			Load:    load,
			Options: quant.Options{Method: plan.Method, PerChannel: true, Exclude: plan.Exclude, ReduceRange: w7, Depthwise: plan.Depthwise},
			Count:   n, Output: path,
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
