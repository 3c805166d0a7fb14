package speech

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/config"
	"paddle/core/hub"
	"paddle/core/workflow"
	"paddle/datasets"
)

// clsOptions are the inputs of `paddle speech cls`.
type clsOptions struct {
	Factory *cmdutil.Factory
	Inputs  []string // --input and arguments
	Model   string   // --model export dir
	Weights string   // --weights checkpoint dir
	TopK    int
	Shard   workflow.Shard // --shard I/N
}

func newCmdCls(f *cmdutil.Factory, runF func(*clsOptions) error) *cobra.Command {
	opts := &clsOptions{Factory: f}
	var shard func() (workflow.Shard, error)
	cmd := &cobra.Command{
		Use:   "cls --model DIR | --weights DIR --input x.wav [<input>... | -]",
		Short: "Classify audio files (spoken language, sound events) with a trained classifier",
		Long: "Classifies each file with an audio classifier (an export from `paddle speech export`, or a\n" +
			"training checkpoint): log-mel fbank over the whole file, windows of the model's length every\n" +
			"half window (a shorter file is repeated to fill one), probabilities averaged over the\n" +
			"windows. Prints one JSON line per file: {\"file\", \"label\", \"score\", \"topk\": [{\"label\",\n" +
			"\"score\"}]}. Inputs: --input (repeatable) and arguments: WAV or Ogg Vorbis files,\n" +
			"folders, globs, - for paths on stdin.",
		Example: "  paddle speech cls --model output/cls_langid/export --input x.wav --topk 5\n" +
			"  find clips -name '*.ogg' | paddle speech cls --weights output/cls_langid/best -",
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Inputs = append(opts.Inputs, args...)
			if len(opts.Inputs) == 0 {
				return cmdutil.FlagErrorf("give audio with --input (or as arguments)")
			}
			if (opts.Weights == "") == (opts.Model == "") {
				return cmdutil.FlagErrorf("give one of --model (an export) and --weights (a checkpoint)")
			}
			if opts.TopK < 1 {
				return cmdutil.FlagErrorf("--topk must be at least 1")
			}
			var err error
			if opts.Shard, err = shard(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return clsRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringArrayVar(&opts.Inputs, "input", nil, "audio file, folder or glob (repeatable)")
	cmd.Flags().StringVar(&opts.Model, "model", "", "export directory (model.onnx + inference.yaml)")
	cmd.Flags().StringVar(&opts.Weights, "weights", "", "checkpoint directory (with its config.yaml)")
	cmd.Flags().IntVar(&opts.TopK, "topk", 5, "classes to list per file")
	shard = cmdutil.ShardFlag(cmd)
	cmdutil.SupportsFormats(cmd, "jsonl", "json", "text")
	return cmd
}

// loadClassifier loads an export (model) or a checkpoint (weights, with its
// config.yaml and overrides) as an audio classifier.
func loadClassifier(model, weights string, overrides []string) (*audioClassifier, error) {
	if model != "" {
		if !isClsExport(model) {
			return nil, config.Usage(fmt.Errorf("%s: not an audio-classification export (inference.yaml's PostProcess is not %s)", model, clsPostProcessName))
		}
		return loadExportClassifier(model)
	}
	cfg, err := config.Load(filepath.Join(weights, "config.yaml"), overrides...)
	if err != nil {
		return nil, config.Usage(err)
	}
	if !isClsConfig(cfg) {
		return nil, config.Usage(fmt.Errorf("%s: not an audio-classification checkpoint (Arch.name is not a classifier)", weights))
	}
	r, err := buildCls(cfg)
	if err != nil {
		return nil, config.Usage(err)
	}
	cr := r.(*clsRunner)
	return cr.classifierFor(workflow.Env{Weights: weights})
}

func clsRun(ctx context.Context, opts *clsOptions) error {
	env := workflow.Env{IO: opts.Factory.RunnerIO(), Model: opts.Model, Weights: opts.Weights, Format: opts.Factory.Settings.Format, Shard: opts.Shard}
	c, err := loadClassifier(opts.Model, opts.Weights, opts.Factory.Settings.Overrides)
	if err != nil {
		return err
	}
	return c.run(ctx, env, opts.Inputs, opts.TopK)
}

// defaultTuxpaintStamps is where scripts/fetch_tuxpaint_sounds.sh puts the stamps.
func defaultTuxpaintStamps() string {
	return filepath.Join(hub.CacheDir(), "data", "tuxpaint-sounds", "usr", "share", "tuxpaint", "stamps")
}

// DefaultClsDataOptions returns the defaults of task ("langid" or "sound"):
// the flags' defaults of `paddle speech cls-data` and what `paddle dataset
// build tuxpaint-langid|tuxpaint-sound` uses.
func DefaultClsDataOptions(task, output string) ClsDataOptions {
	return ClsDataOptions{Task: task, Output: output, Root: defaultTuxpaintStamps(), ValPercent: 10, TestPercent: 15,
		MinClips: map[string]int{"langid": 50, "sound": 10}[task]}
}

// WriteClsData writes the lists of o (MakeClsLists) and prints their
// summary as one JSON line.
func WriteClsData(env datasets.Env, o ClsDataOptions) error {
	s, err := MakeClsLists(o)
	if err != nil {
		return err
	}
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(env.Stdout(), string(b))
	return err
}

// newCmdClsData is `paddle speech cls-data`, an alias of `paddle dataset
// build tuxpaint-langid|tuxpaint-sound` (datasets/catalog): both run WriteClsData.
func newCmdClsData(f *cmdutil.Factory) *cobra.Command {
	o := DefaultClsDataOptions("langid", "")
	o.Root, o.MinClips = "", 0 // the task's default min-clips and the cache's stamps unless given
	cmd := &cobra.Command{
		Use:   "cls-data --task langid|sound --output DIR",
		Short: "Write audio-classification lists from the Tux Paint stamp sounds (split by stamp)",
		Long: "Walks the Tux Paint stamps (scripts/fetch_tuxpaint_sounds.sh) and writes DIR/train.list,\n" +
			"val.list, test.list (`<file>\\t<class>`) and labels.txt. --task langid: the spoken\n" +
			"descriptions <stamp>_desc_<lang>.ogg by language (<stamp>_desc.ogg is English); --task\n" +
			"sound: the sound effects <stamp>.ogg by folder (animals/<group>, else the top folder;\n" +
			"symbols/math and symbols/alphabets, spoken digits and letters, are left out). All clips of a\n" +
			"stamp go to one split (FNV-1a hash of the stamp's path); classes with fewer than\n" +
			"--min-clips clips (default: langid 50, sound 10) are dropped. --folds K --fold I writes fold I\n" +
			"of a K-fold cross-validation by stamp instead (for the small sound set). Prints a JSON summary.",
		Example: "  paddle speech cls-data --task langid --output data/cls_langid",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return cmdutil.FlagErrorf("unexpected arguments %v", args)
			}
			if o.Output == "" {
				return cmdutil.FlagErrorf("--output is required")
			}
			if o.Task != "langid" && o.Task != "sound" {
				return cmdutil.FlagErrorf("--task must be langid or sound, not %q", o.Task)
			}
			if !cmd.Flags().Changed("min-clips") {
				o.MinClips = DefaultClsDataOptions(o.Task, "").MinClips
			}
			if o.Root == "" {
				o.Root = defaultTuxpaintStamps()
			}
			return WriteClsData(cmdutil.DatasetEnv(f), o)
		},
	}
	cmd.Flags().StringVar(&o.Task, "task", o.Task, "langid (spoken descriptions by language) or sound (sound effects by folder)")
	cmd.Flags().StringVar(&o.Root, "root", "", "the stamps folder (default: $PADDLE_CACHE/data/tuxpaint-sounds/usr/share/tuxpaint/stamps)")
	cmd.Flags().StringVar(&o.Output, "output", "", "folder for the lists")
	cmd.Flags().IntVar(&o.ValPercent, "val-percent", o.ValPercent, "share of stamps in val.list")
	cmd.Flags().IntVar(&o.TestPercent, "test-percent", o.TestPercent, "share of stamps in test.list")
	cmd.Flags().IntVar(&o.Folds, "folds", 0, "write fold --fold of a k-fold split by stamp instead (test.list: the fold, train.list: the rest)")
	cmd.Flags().IntVar(&o.Fold, "fold", 0, "which fold (0 … folds-1) with --folds")
	cmd.Flags().IntVar(&o.MinClips, "min-clips", 0, "drop classes with fewer clips (default: langid 50, sound 10)")
	return cmd
}
