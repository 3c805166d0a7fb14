package seg

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/config"
	"paddle/core/metric/seg"
	"paddle/core/parallel"
	"paddle/core/workflow"
)

// EvalOptions are the inputs of `paddle seg eval`.
type EvalOptions struct {
	Factory     *cmdutil.Factory
	Pred        string // --pred: folder of prediction PNGs
	Label       string // --label: folder of label PNGs
	NumClasses  int    // --num-classes
	IgnoreIndex int    // --ignore-index (255)
	Labels      string // --labels: labels.txt with class names (optional)
	Weights     string // --weights: a checkpoint to evaluate on the config's val_dataset
}

// NewCmdEval returns `paddle seg eval`. It replaces the shared eval verb:
// with --pred and --label it scores folders of PNGs, no model needed.
func NewCmdEval(f *cmdutil.Factory, runF func(*EvalOptions) error) *cobra.Command {
	opts := &EvalOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "eval --pred DIR --label DIR --num-classes N",
		Short: "Score segmentation predictions against labels (mIoU, Acc, Kappa, Dice as PaddleSeg)",
		Long: "Scores a folder of prediction PNGs against a folder of label PNGs, matched by their path\n" +
			"relative to each folder (sub-folders included). Both are class-index maps: single-channel\n" +
			"(gray) or palette PNGs, whose palette indices are the classes (PaddleSeg's pseudo-colour\n" +
			"output). Label pixels equal to --ignore-index are not scored; any other label value\n" +
			"outside [0, num_classes), or a prediction outside it on a scored pixel, is an error.\n" +
			"Areas are summed over all images before any ratio, and the metrics are exactly those of\n" +
			"PaddleSeg's paddleseg/utils/metrics.py (a class absent from both labels and predictions\n" +
			"has IoU 1 and Dice 0). With --format json it prints {\"miou\", \"acc\", \"kappa\", \"mdice\",\n" +
			"\"class_iou\", \"class_precision\", \"class_recall\", \"class_dice\", \"images\"} (null for\n" +
			"a value that is 0/0).\n" +
			"With --weights DIR (and -c CONFIG, else the checkpoint's config.yaml) it evaluates a trained\n" +
			"model on the config's val_dataset instead and prints the same report.",
		Example: "  paddle seg eval --pred output/pseudo_color_prediction --label data/annotations --num-classes 2\n" +
			"  paddle seg eval --pred out --label gt --num-classes 19 --labels labels.txt --format json\n" +
			"  paddle seg eval -c seg/pp_liteseg_synth.yaml --weights output/pp_liteseg_synth/best",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Pred == "" && opts.Label == "" && (f.Settings.Config != "" || opts.Weights != "") {
				if opts.Weights == "" {
					return cmdutil.FlagErrorf("seg eval -c needs --weights (a checkpoint directory)")
				}
				if runF != nil {
					return runF(opts)
				}
				return evalModelRun(workflow.WithProgress(cmd.Context(), f.RunnerIO()), opts)
			}
			if opts.Pred == "" || opts.Label == "" {
				return cmdutil.FlagErrorf("--pred and --label are both required")
			}
			if opts.NumClasses < 1 || opts.NumClasses > 256 {
				return cmdutil.FlagErrorf("--num-classes must be between 1 and 256 (labels are 8-bit), got %d", opts.NumClasses)
			}
			if runF != nil {
				return runF(opts)
			}
			return evalRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Pred, "pred", "", "folder of prediction PNGs (class indices)")
	cmd.Flags().StringVar(&opts.Label, "label", "", "folder of label PNGs (class indices, ignore index = not scored)")
	cmd.Flags().IntVar(&opts.NumClasses, "num-classes", 0, "number of classes (required)")
	cmd.Flags().IntVar(&opts.IgnoreIndex, "ignore-index", 255, "label value that is not scored")
	cmd.Flags().StringVar(&opts.Labels, "labels", "", "labels.txt: class names, one per line, for the text table")
	cmd.Flags().StringVar(&opts.Weights, "weights", "", "checkpoint directory to evaluate on val_dataset (with -c, or its own config.yaml)")
	cmdutil.SupportsFormats(cmd, "text", "json")
	return cmd
}

// EvalReport is `paddle seg eval --format json`'s output. A value that is
// 0/0 (Kappa when every pixel is one class predicted right) is null.
type EvalReport struct {
	MIoU           Number   `json:"miou"`
	Acc            Number   `json:"acc"`
	Kappa          Number   `json:"kappa"`
	MDice          Number   `json:"mdice"`
	ClassIoU       []Number `json:"class_iou"`
	ClassPrecision []Number `json:"class_precision"`
	ClassRecall    []Number `json:"class_recall"`
	ClassDice      []Number `json:"class_dice"`
	Images         int      `json:"images"`
}

// Number is a float64 that marshals NaN and ±Inf as null.
type Number float64

// MarshalJSON implements json.Marshaler.
func (n Number) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(n)) || math.IsInf(float64(n), 0) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(n))
}

func numbers(v []float64) []Number {
	out := make([]Number, len(v))
	for i, x := range v {
		out[i] = Number(x)
	}
	return out
}

// NewEvalReport converts a result to the JSON shape.
func NewEvalReport(r seg.Result, images int) EvalReport {
	return EvalReport{
		MIoU: Number(r.MIoU), Acc: Number(r.Acc), Kappa: Number(r.Kappa), MDice: Number(r.MDice),
		ClassIoU: numbers(r.ClassIoU), ClassPrecision: numbers(r.ClassPrecision),
		ClassRecall: numbers(r.ClassRecall), ClassDice: numbers(r.ClassDice), Images: images,
	}
}

// pngFiles lists the .png files under dir (any depth) by slash-separated
// path relative to dir.
func pngFiles(dir string) (map[string]bool, error) {
	files := map[string]bool{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && strings.EqualFold(filepath.Ext(p), ".png") {
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			files[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	return files, err
}

// matchFiles pairs the prediction and label files by relative path and
// warns about the files on one side only.
func matchFiles(predDir, labelDir string) ([]string, error) {
	preds, err := pngFiles(predDir)
	if err != nil {
		return nil, fmt.Errorf("--pred: %w", err)
	}
	labels, err := pngFiles(labelDir)
	if err != nil {
		return nil, fmt.Errorf("--label: %w", err)
	}
	var both, onlyPred, onlyLabel []string
	for p := range preds {
		if labels[p] {
			both = append(both, p)
		} else {
			onlyPred = append(onlyPred, p)
		}
	}
	for l := range labels {
		if !preds[l] {
			onlyLabel = append(onlyLabel, l)
		}
	}
	slices.Sort(both)
	if len(onlyLabel) > 0 {
		slog.Warn("label files without a prediction are not scored", "count", len(onlyLabel), "files", listSome(onlyLabel), "dir", labelDir)
	}
	if len(onlyPred) > 0 {
		slog.Warn("prediction files without a label are not scored", "count", len(onlyPred), "files", listSome(onlyPred), "dir", predDir)
	}
	if len(both) == 0 {
		return nil, fmt.Errorf("no PNG file names in common between --pred %s (%d PNGs) and --label %s (%d PNGs)",
			predDir, len(preds), labelDir, len(labels))
	}
	return both, nil
}

// listSome joins up to 5 sorted names.
func listSome(names []string) string {
	slices.Sort(names)
	if len(names) > 5 {
		return strings.Join(names[:5], ", ") + fmt.Sprintf(", ... (%d more)", len(names)-5)
	}
	return strings.Join(names, ", ")
}

// scorePair reads one prediction and label and adds them to c.
func scorePair(c *seg.Confusion, predPath, labelPath string) error {
	label, err := ReadLabelMap(labelPath)
	if err != nil {
		return err
	}
	pred, err := ReadLabelMap(predPath)
	if err != nil {
		return err
	}
	if pred.W != label.W || pred.H != label.H {
		return &SizeError{AKind: "prediction", A: predPath, AW: pred.W, AH: pred.H,
			BKind: "label", B: labelPath, BW: label.W, BH: label.H}
	}
	err = seg.Add(c, pred.Pix, label.Pix)
	var ve *seg.ValueError
	if errors.As(err, &ve) {
		file := labelPath
		if ve.What == "prediction" {
			file = predPath
		}
		return valueError(file, ve, label.W)
	}
	return err
}

// ScoreFolders scores the matched PNG pairs of two folders. Every pair
// that fails is reported in errs (in name order); the confusion matrix
// holds the pairs that succeeded.
func ScoreFolders(predDir, labelDir string, numClasses, ignore int) (c *seg.Confusion, errs []error, err error) {
	names, err := matchFiles(predDir, labelDir)
	if err != nil {
		return nil, nil, err
	}
	workers := min(parallel.Threads(), len(names))
	parts := make([]*seg.Confusion, workers)
	perFile := make([]error, len(names))
	var wg sync.WaitGroup
	for w := range workers {
		if parts[w], err = seg.NewConfusion(numClasses, ignore); err != nil {
			return nil, nil, err
		}
		wg.Go(func() {
			for i := w; i < len(names); i += workers {
				n := filepath.FromSlash(names[i])
				perFile[i] = scorePair(parts[w], filepath.Join(predDir, n), filepath.Join(labelDir, n))
			}
		})
	}
	wg.Wait()
	c = parts[0]
	for _, p := range parts[1:] {
		if err := c.Merge(p); err != nil {
			return nil, nil, err
		}
	}
	for _, e := range perFile {
		if e != nil {
			errs = append(errs, e)
		}
	}
	return c, errs, nil
}

func evalRun(opts *EvalOptions) error {
	var names []string
	if opts.Labels != "" {
		var err error
		if names, err = ReadLabelNames(opts.Labels); err != nil {
			return err
		}
		if len(names) != opts.NumClasses {
			return config.Usage(fmt.Errorf("%s names %d classes but --num-classes is %d", opts.Labels, len(names), opts.NumClasses))
		}
	}
	c, errs, err := ScoreFolders(opts.Pred, opts.Label, opts.NumClasses, opts.IgnoreIndex)
	if err != nil {
		return err
	}
	if len(errs) > 0 {
		for _, e := range errs {
			fmt.Fprintf(opts.Factory.IOStreams.ErrOut, "paddle: %v\n", e)
		}
		return fmt.Errorf("%d of %d image pairs could not be scored; nothing was reported", len(errs), len(errs)+c.Images)
	}
	r := c.Result()
	if sum(r.PredArea) == 0 {
		// every scored pixel has a prediction in range, so this counts them
		return fmt.Errorf("no pixel to score: every label pixel of the %d images is the ignore index %d", c.Images, opts.IgnoreIndex)
	}
	return writeEval(opts.Factory.IOStreams.Out, opts.Factory.Settings.Format, r, c.Images, names)
}

func sum(v []int64) int64 {
	var s int64
	for _, x := range v {
		s += x
	}
	return s
}

func writeEval(w io.Writer, format string, r seg.Result, images int, names []string) error {
	if format == "json" {
		return json.NewEncoder(w).Encode(NewEvalReport(r, images))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "images  %d\nmIoU    %.4f\nAcc     %.4f\nKappa   %.4f\nmDice   %.4f\n\n", images, r.MIoU, r.Acc, r.Kappa, r.MDice)
	width := len("class")
	label := func(k int) string {
		if names != nil {
			return fmt.Sprintf("%d %s", k, names[k])
		}
		return fmt.Sprint(k)
	}
	for k := range r.ClassIoU {
		width = max(width, len(label(k)))
	}
	fmt.Fprintf(&b, "%-*s  %-6s  %-9s  %-6s  %-6s  %12s  %12s\n", width, "class", "IoU", "Precision", "Recall", "Dice", "label pixels", "pred pixels")
	for k := range r.ClassIoU {
		fmt.Fprintf(&b, "%-*s  %.4f  %-9.4f  %.4f  %.4f  %12d  %12d\n", width, label(k),
			r.ClassIoU[k], r.ClassPrecision[k], r.ClassRecall[k], r.ClassDice[k], r.LabelArea[k], r.PredArea[k])
	}
	_, err := io.WriteString(w, b.String())
	return err
}
