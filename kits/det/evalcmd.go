package det

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"

	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/config"
	"paddle/core/kit"
	"paddle/core/metric/coco"
	"paddle/core/workflow"
)

// EvalOptions are the inputs of `paddle det eval`.
type EvalOptions struct {
	Factory *cmdutil.Factory
	Kit     *kit.Kit
	GT      string // --gt: COCO ground-truth json
	DT      string // --dt: COCO results json
	Weights string // --weights: a checkpoint to evaluate with -c
	// Agnostic (--class-agnostic) scores every detection and ground truth
	// as one category: localisation alone, class mistakes forgiven.
	Agnostic bool
	SaveDT   string // --save-dt: with -c, write the detections as a COCO results file
	// AgnosticNMS (--agnostic-nms IOU) first drops, per image, every
	// detection whose IoU with a higher-scored one of any class exceeds IOU.
	AgnosticNMS float64
}

// NewCmdEval returns `paddle det eval`. It replaces the shared eval verb:
// with --gt and --dt it scores a COCO results file, no model needed.
func NewCmdEval(f *cmdutil.Factory, k *kit.Kit, runF func(*EvalOptions) error) *cobra.Command {
	opts := &EvalOptions{Factory: f, Kit: k}
	cmd := &cobra.Command{
		Use:   "eval (--gt annotations.json --dt results.json | -c config.yaml --weights DIR)",
		Short: "Evaluate a trained detector, or score COCO results (bbox mAP exactly as pycocotools)",
		Long: "Scores a COCO results file ([{\"image_id\", \"category_id\", \"bbox\": [x, y, w, h], \"score\"}])\n" +
			"against COCO ground truth exactly as pycocotools' COCOeval(iouType=\"bbox\") does, and prints\n" +
			"its 12 summary lines and the AP of each category. With --format json it prints\n" +
			"{\"stats\": [the 12 numbers in pycocotools' order], \"per_category\": {\"<name>\": AP@[.5:.95], ...}}\n" +
			"(-1 where there is no ground truth to score). With -c and --weights it runs the trained\n" +
			"model on the config's EvalDataset and prints the same report.",
		Example: "  paddle det eval --gt instances_val.json --dt bbox.json\n" +
			"  paddle det eval --gt instances_val.json --dt bbox.json --format json\n" +
			"  paddle det eval -c det/picodet_s_synth.yaml --weights output/picodet_s_synth/best",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			model := opts.GT == "" && opts.DT == "" && f.Settings.Config != ""
			if model && opts.Weights == "" {
				return cmdutil.FlagErrorf("-c needs --weights (a checkpoint directory)")
			}
			if !model && (opts.GT == "" || opts.DT == "") {
				return cmdutil.FlagErrorf("--gt and --dt are both required (or -c with --weights)")
			}
			if runF != nil {
				return runF(opts)
			}
			if model {
				return evalModelRun(workflow.WithProgress(cmd.Context(), f.RunnerIO()), opts)
			}
			return evalRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.GT, "gt", "", "COCO ground-truth json (images, annotations, categories)")
	cmd.Flags().StringVar(&opts.DT, "dt", "", "COCO results json: a list of {image_id, category_id, bbox, score}")
	cmd.Flags().StringVar(&opts.Weights, "weights", "", "checkpoint directory to evaluate (with -c)")
	cmd.Flags().BoolVar(&opts.Agnostic, "class-agnostic", false, "score all categories as one (localisation without classification)")
	cmd.Flags().StringVar(&opts.SaveDT, "save-dt", "", "with -c: also write the detections as a COCO results json")
	cmd.Flags().Float64Var(&opts.AgnosticNMS, "agnostic-nms", 0, "before scoring, suppress detections overlapping a higher-scored one of any class by IoU above this (0: off)")
	cmdutil.SupportsFormats(cmd, "text", "json")
	return cmd
}

// EvalReport is `paddle det eval --format json`'s output.
type EvalReport struct {
	Stats       []float64          `json:"stats"`
	PerCategory map[string]float64 `json:"per_category"`
}

func evalRun(opts *EvalOptions) error {
	gt, err := coco.ReadDataset(opts.GT)
	if err != nil {
		return err
	}
	dts, err := coco.ReadResults(opts.DT)
	if err != nil {
		return err
	}
	cats := map[int64]bool{}
	for _, c := range gt.Categories {
		cats[c.ID] = true
	}
	dropped := 0
	for _, d := range dts {
		if !cats[d.CategoryID] {
			dropped++
		}
	}
	if dropped > 0 {
		slog.Warn("detections of categories not in the ground truth are ignored (as pycocotools)", "count", dropped, "file", opts.DT)
	}
	return score(opts, gt, dts, opts.DT)
}

// score evaluates dts against gt (class-agnostic when asked) and prints the report.
func score(opts *EvalOptions, gt *coco.Dataset, dts []coco.Detection, what string) error {
	if opts.AgnosticNMS > 0 {
		dts = agnosticNMS(dts, opts.AgnosticNMS)
	}
	if opts.Agnostic {
		gt, dts = classAgnostic(gt, dts)
	}
	r, err := coco.Evaluate(gt, dts, coco.DefaultParams())
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return writeEval(opts.Factory.IOStreams.Out, opts.Factory.Settings.Format, gt, r)
}

// agnosticNMS runs greedy NMS over each image's detections regardless of
// category (kept in the input's order within an image's score ties).
func agnosticNMS(dts []coco.Detection, thresh float64) []coco.Detection {
	byImage := map[int64][]int{}
	var order []int64
	for i, d := range dts {
		if _, ok := byImage[d.ImageID]; !ok {
			order = append(order, d.ImageID)
		}
		byImage[d.ImageID] = append(byImage[d.ImageID], i)
	}
	var out []coco.Detection
	for _, id := range order {
		idx := byImage[id]
		sort.SliceStable(idx, func(a, b int) bool { return dts[idx[a]].Score > dts[idx[b]].Score })
		ds := make([]Det, len(idx))
		for k, i := range idx {
			b := dts[i].BBox
			ds[k] = Det{Class: k, Score: dts[i].Score, Box: [4]float64{b[0], b[1], b[0] + b[2], b[1] + b[3]}}
		}
		for _, d := range NMS(ds, thresh) {
			out = append(out, dts[idx[d.Class]])
		}
	}
	return out
}

// classAgnostic returns copies of gt and dts with every category merged
// into one, "object" (id 1). Detections of categories gt does not know are
// dropped first, as pycocotools would drop them.
func classAgnostic(gt *coco.Dataset, dts []coco.Detection) (*coco.Dataset, []coco.Detection) {
	known := map[int64]bool{}
	for _, c := range gt.Categories {
		known[c.ID] = true
	}
	g := &coco.Dataset{Images: gt.Images, Categories: []coco.Category{{ID: 1, Name: "object"}}}
	g.Annotations = make([]coco.Annotation, len(gt.Annotations))
	for i, a := range gt.Annotations {
		a.CategoryID = 1
		g.Annotations[i] = a
	}
	var d []coco.Detection
	for _, x := range dts {
		if known[x.CategoryID] {
			x.CategoryID = 1
			d = append(d, x)
		}
	}
	return g, d
}

// categoryNames returns a unique display name per category (its name, or
// "name (id N)" when two categories share a name), in CatIDs order.
func categoryNames(gt *coco.Dataset, r *coco.Result) []string {
	byID := map[int64]string{}
	count := map[string]int{}
	for _, c := range gt.Categories {
		byID[c.ID] = c.Name
		count[c.Name]++
	}
	names := make([]string, len(r.CatIDs))
	for k, id := range r.CatIDs {
		names[k] = byID[id]
		if count[names[k]] > 1 || names[k] == "" {
			names[k] = fmt.Sprintf("%s (id %d)", names[k], id)
		}
	}
	return names
}

func writeEval(w io.Writer, format string, gt *coco.Dataset, r *coco.Result) error {
	names := categoryNames(gt, r)
	if format == "json" {
		rep := EvalReport{Stats: r.Stats, PerCategory: map[string]float64{}}
		for k, n := range names {
			rep.PerCategory[n] = r.CategoryAP(k)
		}
		return json.NewEncoder(w).Encode(rep)
	}
	if _, err := io.WriteString(w, r.Summary()); err != nil {
		return err
	}
	width := len("category")
	for _, n := range names {
		width = max(width, len(n))
	}
	fmt.Fprintf(w, "\n%-*s  AP@[.5:.95]\n", width, "category")
	for k, n := range names {
		if _, err := fmt.Fprintf(w, "%-*s  %0.3f\n", width, n, r.CategoryAP(k)); err != nil {
			return err
		}
	}
	return nil
}

// evalModelRun evaluates the checkpoint opts.Weights on the config's
// EvalDataset and prints the COCO report.
func evalModelRun(ctx context.Context, opts *EvalOptions) error {
	cfg, err := opts.Factory.LoadConfig()
	if err != nil {
		return err
	}
	wr, err := build(cfg)
	if err != nil {
		return config.Usage(err)
	}
	gt, dts, err := wr.(*runner).evalCOCO(ctx, workflow.Env{IO: opts.Factory.RunnerIO(), Config: cfg, Weights: opts.Weights})
	if err != nil {
		return err
	}
	if opts.SaveDT != "" {
		b, err := json.Marshal(dts)
		if err != nil {
			return err
		}
		if err := os.WriteFile(opts.SaveDT, b, 0o644); err != nil {
			return fmt.Errorf("--save-dt: %w", err)
		}
	}
	return score(opts, gt, dts, opts.Weights)
}
