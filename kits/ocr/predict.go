package ocr

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/cli/predict"
	"paddle/core/config"
	"paddle/core/data"
	"paddle/core/imgproc"
	"paddle/core/workflow"
	"paddle/kits/ocr/synth"
)

// PredictOptions are the inputs of `paddle ocr predict`.
type PredictOptions struct {
	Factory                               *cmdutil.Factory
	Inputs                                []string
	Det                                   bool
	Cls                                   bool
	Profile                               string
	Draw                                  string
	Font                                  string
	Workers                               int
	Batch                                 int
	Offline                               bool
	DetModel, RecModel, ClsModel, RecDict string
	SpaceMode                             string         // ParseSpaceMode's values; "" : DefaultSpaceMode(Lang)
	Lang                                  string         // ParseLang's values
	Precision                             string         // ParsePrecision's values
	Shard                                 workflow.Shard // --shard I/N

	// load replaces LoadSystem in tests.
	load func(context.Context, Sources, Profile) (*System, error)
}

// NewCmdPredict returns `paddle ocr predict`; runF replaces the run step in tests.
func NewCmdPredict(f *cmdutil.Factory, runF func(*PredictOptions) error) *cobra.Command {
	opts := &PredictOptions{Factory: f}
	var maxPixels func() error
	var shard func() (workflow.Shard, error)
	cmd := &cobra.Command{
		Use:   "predict [PATH... | -]",
		Short: "Detect and recognise text with PP-OCRv4 in images, folders, globs, PDFs or paths from stdin",
		Long: "predict runs PaddleOCR's PP-OCRv4 system (text detection, optional 0/180 angle\n" +
			"classification, recognition) exactly as PaddleOCR 2.x's predict_system.py does.\n" +
			"The ppocrv4 models are pulled into the model store on first use (see `paddle model`)\n" +
			"unless --offline, or taken from --det-model/--rec-model/--cls-model/--rec-dict.\n" +
			"Results go to stdout in input order; errors of single inputs are reported and the\n" +
			"rest go on (exit 1 at the end).\n\n" +
			"--format paddleocr writes PaddleOCR's detection label lines, as predict_system.py's\n" +
			"system_results.txt and PPOCRLabel do: `path<TAB>[{\"transcription\": ..., \"points\": [[x, y], ...]}, ...]`\n" +
			"(the path as given; failed inputs only on stderr), so predictions can be corrected and\n" +
			"trained on (Train.dataset.label_file_list of a det config).\n\n" + predict.RecordHelp(PredictRecord),
		Example: "  paddle ocr predict kits/ocr/testdata/images/sample_en.png\n" +
			"  paddle ocr predict --format jsonl scans/ --cls\n" +
			"  find . -name '*.png' | paddle ocr predict - --format jsonl --workers 4\n" +
			"  paddle ocr predict --det=false line.png\n" +
			"  paddle ocr predict --lang en kits/ocr/testdata/images/sample_en.png\n" +
			"  paddle ocr predict --precision int8 scans/\n" +
			"  paddle ocr predict --format paddleocr scans/ > det_label.txt",
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Inputs = args
			if len(args) == 0 {
				return cmdutil.FlagErrorf("give at least one image, folder, glob, PDF or - (paths on stdin)")
			}
			if _, err := ProfileByName(opts.Profile); err != nil {
				return cmdutil.FlagErrorf("--profile: %v", err)
			}
			if _, err := ParseLang(opts.Lang); err != nil {
				return cmdutil.FlagErrorf("--lang: %v", err)
			}
			if _, err := ParsePrecision(opts.Precision); err != nil {
				return cmdutil.FlagErrorf("--precision: %v", err)
			}
			if !cmd.Flags().Changed("space-mode") {
				opts.SpaceMode = DefaultSpaceMode(opts.Lang)
			}
			if _, err := ParseSpaceMode(opts.SpaceMode); err != nil {
				return cmdutil.FlagErrorf("--space-mode: %v", err)
			}
			if opts.Workers < 1 || opts.Batch < 1 {
				return cmdutil.FlagErrorf("--workers and --batch must be at least 1")
			}
			if err := maxPixels(); err != nil {
				return err
			}
			var err error
			if opts.Shard, err = shard(); err != nil {
				return err
			}
			if f.Settings.Format == "paddleocr" && !opts.Det {
				return cmdutil.FlagErrorf("--format paddleocr writes detection labels: it needs --det (the boxes)")
			}
			if runF != nil {
				return runF(opts)
			}
			return predictRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&opts.Det, "det", true, "detect text boxes; --det=false reads each input as one text line")
	fl.BoolVar(&opts.Cls, "cls", false, "classify each line's angle (0/180) and turn upside-down lines")
	fl.StringVar(&opts.Profile, "profile", "v2", "inference profile: v2 (PaddleOCR 2.x: det side limit 960/max, drop score 0.5) or v3 (3.x: 64/min, max side 4000, no drop)")
	fl.StringVar(&opts.Draw, "draw", "", "write an annotated image per input into this folder")
	fl.StringVar(&opts.Font, "font", "", "TrueType/OpenType font for --draw (default: a CJK font found on the system)")
	fl.IntVar(&opts.Workers, "workers", 1, "images processed at the same time")
	fl.IntVar(&opts.Batch, "batch", 6, "text lines per recognition (and angle) batch")
	fl.BoolVar(&opts.Offline, "offline", false, "never pull models; fail when the store model is missing")
	fl.StringVar(&opts.DetModel, "det-model", "", "detection model: .onnx file or export folder (default: the ppocrv4 store model)")
	fl.StringVar(&opts.RecModel, "rec-model", "", "recognition model: .onnx file or export folder")
	fl.StringVar(&opts.ClsModel, "cls-model", "", "angle classifier: .onnx file or export folder")
	fl.StringVar(&opts.RecDict, "rec-dict", "", "recognition dictionary, one character per line (a space class is appended)")
	fl.StringVar(&opts.SpaceMode, "space-mode", SpaceCTC, "spaces: ctc (PaddleOCR's decoding; the default for --lang ch) or gaps (also a space where the space class peaks between two Latin characters; the default for --lang en; docs/ocr.md)")
	fl.StringVar(&opts.Lang, "lang", LangCh, "recogniser: ch (PP-OCRv4's Chinese+English, exact to PaddleOCR 2.x) or en (English: en_dict.txt + space; docs/ocr.md)")
	fl.StringVar(&opts.Precision, "precision", PrecisionFP32, "fp32, or int8: the store's models quantized on first use (calibrated on images the binary renders itself, cached in the model store with their sha256; docs/int8.md); models given by --det-model/--rec-model/--cls-model are used as they are")
	maxPixels = cmdutil.MaxPixelsFlag(cmd, data.DefaultMaxPixels)
	shard = cmdutil.ShardFlag(cmd)
	cmdutil.SupportsFormats(cmd, "text", "jsonl", "json", "paddleocr")
	cmd.Long += "\n\n" + cmdutil.FormatsHelp(cmd)
	return cmd
}

// Output is one object of predict's JSON output: one image (or PDF page).
type Output struct {
	Image   string       `json:"image"`
	Results []LineOutput `json:"results"`
	Width   int          `json:"width"`
	Height  int          `json:"height"`
	Ms      float64      `json:"ms"`
}

// LineOutput is one recognised line; Points is omitted without detection.
type LineOutput struct {
	Text   string   `json:"text"`
	Score  float64  `json:"score"`
	Points [][2]int `json:"points,omitempty"`
}

// failed is predict's record of an input (or PDF page) that failed:
// {"image", "error"}.
func failed(name string, err error) workflow.Failed {
	return workflow.Failed{Key: workflow.KeyImage, Input: name, Error: err.Error()}
}

// page is one decoded image to recognise, with its name in the output.
type page struct {
	name string
	img  imgproc.Mat8
}

// item is what one input yields: its pages' outputs or an error per page.
type item struct {
	outs []any
	errs []error
}

func predictRun(ctx context.Context, opts *PredictOptions) error {
	f := opts.Factory
	format := f.Settings.Format
	if format == "" {
		format = "text"
	}
	prof, _ := ProfileByName(opts.Profile)
	prof.RecBatch, prof.ClsBatch = opts.Batch, opts.Batch
	exts := append(append([]string(nil), workflow.ImageExts...), ".pdf")
	inputs, err := workflow.ExpandInputs(opts.Inputs, f.IOStreams.In, exts)
	if err != nil {
		return err
	}
	if len(inputs) == 0 {
		return config.Usage(fmt.Errorf("no input images found in %s", strings.Join(opts.Inputs, " ")))
	}
	inputs = workflow.Sharded(opts.Shard, inputs) // after the check: a shard may be empty
	cmdutil.LeanGC(opts.Workers)
	load := LoadSystem
	if opts.load != nil {
		load = opts.load
	}
	sys, err := load(ctx, Sources{
		Det: opts.DetModel, Rec: opts.RecModel, Cls: opts.ClsModel, Dict: opts.RecDict, Lang: opts.Lang,
		UseDet: opts.Det, UseCls: opts.Cls, Offline: opts.Offline, Threads: f.Settings.Threads,
		Precision: opts.Precision, Progress: f.IOStreams.Progress,
	}, prof)
	if err != nil {
		return err
	}
	mode, _ := ParseSpaceMode(opts.SpaceMode)
	sys.Decode = DecoderFor(mode, sys.RecSteps)
	var drawer *Drawer
	if opts.Draw != "" {
		if err := os.MkdirAll(opts.Draw, 0o755); err != nil {
			return fmt.Errorf("--draw: %w", err)
		}
		var warn string
		drawer, warn = NewDrawer(opts.Font)
		if warn != "" {
			fmt.Fprintf(f.IOStreams.ErrOut, "paddle: warning: %s\n", warn)
		}
	}
	stems := workflow.OutputStems(inputs)
	w := &writer{out: f.IOStreams.Out, errOut: f.IOStreams.ErrOut, format: format, many: len(inputs) > 1}
	work := func(ctx context.Context, in workflow.Input) (item, error) {
		pages, err := readPages(ctx, in.Path)
		if err != nil {
			return item{}, err
		}
		var it item
		for _, pg := range pages {
			draw := ""
			if drawer != nil {
				draw = filepath.Join(opts.Draw, drawName(stems[in.Path], pg.name))
			}
			out, err := recognisePage(sys, pg, opts.Det, drawer, draw)
			if err != nil {
				it.errs = append(it.errs, fmt.Errorf("%s: %w", pg.name, err))
				it.outs = append(it.outs, failed(pg.name, err))
				continue
			}
			it.outs = append(it.outs, out)
		}
		return it, nil
	}
	nFailed := 0
	_, err = workflow.RunOrdered(ctx, inputs, opts.Workers, work, func(r workflow.Result[item]) error {
		if r.Err != nil {
			nFailed++
			return w.fail(r.Input.Path, r.Err)
		}
		if len(r.Value.outs) > 1 {
			w.many = true
		}
		for _, o := range r.Value.outs {
			if e, ok := o.(workflow.Failed); ok {
				nFailed++
				if err := w.fail(e.Input.(string), errors.New(e.Error)); err != nil {
					return err
				}
				continue
			}
			if err := w.write(o.(Output)); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		err = w.finish()
	}
	if err != nil {
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if nFailed > 0 {
		fmt.Fprintf(f.IOStreams.ErrOut, "paddle: %d of the inputs failed\n", nFailed)
		return cmdutil.ErrSilent
	}
	return nil
}

// recognisePage runs the system on one page and builds its output object;
// with a drawer it writes the annotated page to drawPath.
func recognisePage(sys *System, pg page, det bool, drawer *Drawer, drawPath string) (Output, error) {
	start := time.Now()
	out := Output{Image: pg.name, Width: pg.img.W, Height: pg.img.H, Results: []LineOutput{}}
	var res []Result
	if det {
		r, err := sys.Predict(pg.img)
		if err != nil {
			return out, err
		}
		res = r
	} else {
		r, err := sys.PredictLine(pg.img)
		if err != nil {
			return out, err
		}
		res = []Result{r}
	}
	for _, r := range res {
		lo := LineOutput{Text: r.Text, Score: math.Round(r.Score*1e5) / 1e5}
		if det {
			lo.Points = make([][2]int, 4)
			for k, p := range r.Box {
				lo.Points[k] = [2]int{int(p.X), int(p.Y)}
			}
		}
		out.Results = append(out.Results, lo)
	}
	out.Ms = math.Round(float64(time.Since(start).Microseconds())/100) / 10
	if drawer != nil && det {
		if err := drawer.Save(drawPath, pg.img, res); err != nil {
			return out, fmt.Errorf("--draw: %w", err)
		}
	}
	return out, nil
}

// drawName is the annotated image's file name for the input's unique stem
// (workflow.OutputStems) and a page's output name: "b.png" for an image,
// "doc_page2.png" for page 2 of a PDF ("doc.pdf#page=2").
func drawName(stem, name string) string {
	if i := strings.LastIndex(name, "#page="); i >= 0 {
		return stem + "_page" + name[i+6:] + ".png"
	}
	return stem + ".png"
}

// readPages decodes an image file (BGR), or renders a PDF's pages with pdftoppm.
func readPages(ctx context.Context, path string) ([]page, error) {
	if strings.EqualFold(filepath.Ext(path), ".pdf") {
		return pdfPages(ctx, path)
	}
	m, err := data.DecodeFile(path, data.BGR)
	if err != nil {
		return nil, err
	}
	return []page{{path, imgproc.Mat8{H: m.H, W: m.W, C: m.C, Pix: m.Pix}}}, nil
}

// pdfPages renders every page of a PDF at 150 dpi with poppler's pdftoppm.
func pdfPages(ctx context.Context, path string) ([]page, error) {
	bin, err := exec.LookPath("pdftoppm")
	if err != nil {
		return nil, fmt.Errorf("PDF input needs pdftoppm (poppler-utils), which is not installed; install it or convert the pages to images")
	}
	dir, err := os.MkdirTemp("", "paddle-pdf-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	cmd := exec.CommandContext(ctx, bin, "-r", "150", "-png", path, filepath.Join(dir, "p"))
	if msg, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("pdftoppm: %w: %s", err, strings.TrimSpace(string(msg)))
	}
	files, _ := filepath.Glob(filepath.Join(dir, "p-*.png"))
	// p-1.png ... or p-01.png ...: order by page number
	num := func(p string) int {
		var n int
		fmt.Sscanf(strings.TrimPrefix(filepath.Base(p), "p-"), "%d", &n)
		return n
	}
	sort.Slice(files, func(i, j int) bool { return num(files[i]) < num(files[j]) })
	if len(files) == 0 {
		return nil, fmt.Errorf("pdftoppm rendered no pages")
	}
	var pages []page
	for _, fl := range files {
		m, err := data.DecodeFile(fl, data.BGR)
		if err != nil {
			return nil, err
		}
		pages = append(pages, page{fmt.Sprintf("%s#page=%d", path, num(fl)), imgproc.Mat8{H: m.H, W: m.W, C: m.C, Pix: m.Pix}})
	}
	return pages, nil
}

// writer prints outputs in one of the formats.
type writer struct {
	out, errOut io.Writer
	format      string
	many        bool
	all         []any // json: collected, written by finish
	n           int
}

func (w *writer) encode(v any) error {
	enc := json.NewEncoder(w.out)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func (w *writer) write(o Output) error {
	switch w.format {
	case "jsonl":
		return w.encode(o)
	case "json":
		w.all = append(w.all, o)
		return nil
	case "paddleocr":
		return writeDetLabel(w.out, o)
	}
	if w.many {
		if w.n > 0 {
			fmt.Fprintln(w.out)
		}
		fmt.Fprintf(w.out, "==> %s <==\n", o.Image)
	}
	w.n++
	for _, r := range o.Results {
		if _, err := fmt.Fprintln(w.out, r.Text); err != nil {
			return err
		}
	}
	return nil
}

func (w *writer) fail(name string, err error) error {
	msg := err.Error()
	if !strings.Contains(msg, name) {
		msg = name + ": " + msg
	}
	fmt.Fprintf(w.errOut, "paddle: %s\n", msg)
	switch w.format {
	case "jsonl":
		return w.encode(failed(name, err))
	case "json":
		w.all = append(w.all, failed(name, err))
	}
	return nil
}

func (w *writer) finish() error {
	if w.format != "json" {
		return nil
	}
	if w.all == nil {
		w.all = []any{}
	}
	enc := json.NewEncoder(w.out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(w.all)
}

// writeDetLabel writes o as one PaddleOCR detection label line:
// `image<TAB>[{"transcription": ..., "points": [[x, y], ...]}, ...]`, the
// JSON spaced as Python's json.dumps(ensure_ascii=False) writes it.
func writeDetLabel(out io.Writer, o Output) error {
	boxes := make([]synth.DetBox, len(o.Results))
	for i, r := range o.Results {
		boxes[i] = synth.DetBox{Transcription: r.Text, Points: r.Points}
	}
	js, err := synth.MarshalDetLabel(boxes)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "%s\t%s\n", o.Image, js)
	return err
}

// PredictRecord is `ocr predict`'s record (--format jsonl|json), for --help
// (docs/formats.md).
const PredictRecord = `  {"image": string, "results": [{"text": string, "score": float, "points": [[x, y], ...4]}, ...], "width": int, "height": int, "ms": float}
  image: the path (a PDF page: "doc.pdf#page=N"); results: the lines in reading order; points: the box's
  corners in the image's pixels (integers), left out with --det=false; score: 5 decimals; ms: time taken.
  failed: {"image": string, "error": string}`
