package seg

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/synth"
)

// SynthOptions are the inputs of `paddle seg synth`.
type SynthOptions struct {
	Factory     *cmdutil.Factory
	Output      string
	Train, Eval int
	Size        int
	Seed        uint64
	MinObjects  int
	MaxObjects  int
	Stamps      string // Tux Paint stamps root (default: the cache)
	Backgrounds string // folder of background photos (default: the cache)
}

// NewCmdSynth returns `paddle seg synth`: the core/synth compositor (the
// same one `paddle det synth` runs), whose masks and PaddleSeg lists are
// what the seg kit trains on.
func NewCmdSynth(f *cmdutil.Factory, runF func(*SynthOptions) error) *cobra.Command {
	opts := &SynthOptions{Factory: f}
	stamps, bgs := synth.DefaultPaths()
	cmd := &cobra.Command{
		Use:   "synth --output DIR [--train N] [--eval M] [--size 256] [--seed S]",
		Short: "Write a segmentation data set of real photo cut-outs composited on real photos",
		Long: "Composites Tux Paint photo stamps (" + fmt.Sprint(len(synth.DefaultClasses)) + " classes plus background)\n" +
			"at random scale, flip, rotation and occlusion onto real photos, with objects and backgrounds\n" +
			"split between train and eval (eval never shows a training object or background). Masks hold\n" +
			"class+1 where the visible alpha is solid, 0 on background and 255 (ignored) on anti-aliased\n" +
			"edges. Writes images/, masks/, PaddleSeg lists seg_train.txt and seg_eval.txt, labels.txt\n" +
			"(and, from the same compositor, the det kit's COCO/VOC files). The same seed gives the same files.\n" +
			"The photos come from scripts/fetch_det_data.sh (into the cache).",
		Example: "  paddle seg synth --output data/segsynth --train 2000 --eval 200 --size 256\n" +
			"  paddle seg train -c configs/seg/pp_liteseg_synth.yaml -o train_dataset.dataset_root=data/segsynth",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch {
			case opts.Output == "":
				return cmdutil.FlagErrorf("--output is required")
			case opts.Train < 0 || opts.Eval < 0 || opts.Train+opts.Eval == 0:
				return cmdutil.FlagErrorf("--train and --eval must not be negative, and not both 0")
			case opts.Size < 32:
				return cmdutil.FlagErrorf("--size %d: want at least 32", opts.Size)
			case opts.MinObjects < 0 || opts.MaxObjects < max(opts.MinObjects, 1):
				return cmdutil.FlagErrorf("--min-objects %d --max-objects %d: want 0 ≤ min ≤ max, max ≥ 1", opts.MinObjects, opts.MaxObjects)
			}
			if runF != nil {
				return runF(opts)
			}
			return synthRun(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Output, "output", "", "folder to write the data set into")
	fl.IntVar(&opts.Train, "train", 2000, "training images")
	fl.IntVar(&opts.Eval, "eval", 200, "evaluation images")
	fl.IntVar(&opts.Size, "size", 256, "image side in pixels (square images)")
	fl.Uint64Var(&opts.Seed, "seed", 0, "random seed")
	fl.IntVar(&opts.MinObjects, "min-objects", 1, "fewest objects per image")
	fl.IntVar(&opts.MaxObjects, "max-objects", 4, "most objects per image")
	fl.StringVar(&opts.Stamps, "stamps", stamps, "Tux Paint stamps folder (usr/share/tuxpaint/stamps)")
	fl.StringVar(&opts.Backgrounds, "backgrounds", bgs, "folder of background photos (.png, .jpg), searched recursively")
	return cmd
}

func synthRun(opts *SynthOptions) error {
	files, err := synth.BackgroundFiles(opts.Backgrounds)
	if err != nil {
		return err
	}
	lib, err := synth.LoadLibrary(opts.Stamps, synth.DefaultClasses, files)
	if err != nil {
		return err
	}
	io := opts.Factory.IOStreams
	bar := io.Progress(opts.Train+opts.Eval, "compositing")
	var mu sync.Mutex
	workers := opts.Factory.Settings.Threads
	if workers < 1 {
		workers = runtime.NumCPU()
	}
	wo := synth.WriteOptions{
		Options: synth.Options{Size: opts.Size, Seed: opts.Seed, MinObjects: opts.MinObjects, MaxObjects: opts.MaxObjects},
		Train:   opts.Train, Eval: opts.Eval, Workers: workers,
		Progress: func(n int) { mu.Lock(); bar.Add(n); mu.Unlock() },
		Log:      func(msg string) { fmt.Fprintln(io.Out, msg) },
	}
	if err := synth.Write(opts.Output, lib, wo); err != nil {
		return err
	}
	bar.Finish()
	_, err = fmt.Fprintf(io.Out, "wrote %s (PaddleSeg: seg_train.txt seg_eval.txt labels.txt, images/ masks/)\n", opts.Output)
	return err
}
