package det

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/synth"
)

// SynthOptions are the inputs of `paddle det synth`.
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

// NewCmdSynth returns `paddle det synth`.
func NewCmdSynth(f *cmdutil.Factory, runF func(*SynthOptions) error) *cobra.Command {
	opts := &SynthOptions{Factory: f}
	stamps, bgs := synth.DefaultPaths()
	cmd := &cobra.Command{
		Use:   "synth --output DIR [--train N] [--eval M] [--size 320] [--seed S]",
		Short: "Write a detection/segmentation data set of real photo cut-outs composited on real photos",
		Long: "Composites Tux Paint photo stamps (8 classes: " + classList() + ")\n" +
			"at random scale, flip, rotation and occlusion onto real photos, with objects and backgrounds\n" +
			"split between train and eval (eval never shows a training object or background). Boxes come\n" +
			"from the visible alpha. Writes COCO json (annotations/instances_{train,eval}.json), VOC xml\n" +
			"with train.txt/eval.txt/label_list.txt, per-pixel masks with PaddleSeg lists\n" +
			"(seg_{train,eval}.txt, labels.txt) and synth.json. The same seed gives the same files.\n" +
			"The photos come from scripts/fetch_det_data.sh (into the cache).",
		Example: "  paddle det synth --output data/synth --train 4000 --eval 500\n" +
			"  paddle det synth --output /tmp/tiny --train 8 --eval 4 --size 256 --seed 3",
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
	fl.IntVar(&opts.Train, "train", 4000, "training images")
	fl.IntVar(&opts.Eval, "eval", 500, "evaluation images")
	fl.IntVar(&opts.Size, "size", 320, "image side in pixels (square images)")
	fl.Uint64Var(&opts.Seed, "seed", 0, "random seed")
	fl.IntVar(&opts.MinObjects, "min-objects", 1, "fewest objects per image")
	fl.IntVar(&opts.MaxObjects, "max-objects", 6, "most objects per image")
	fl.StringVar(&opts.Stamps, "stamps", stamps, "Tux Paint stamps folder (usr/share/tuxpaint/stamps)")
	fl.StringVar(&opts.Backgrounds, "backgrounds", bgs, "folder of background photos (.png, .jpg), searched recursively")
	return cmd
}

func classList() string {
	s := ""
	for i, c := range synth.DefaultClasses {
		if i > 0 {
			s += ", "
		}
		s += c.Name
	}
	return s
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
	_, err = fmt.Fprintf(io.Out, "wrote %s (COCO: annotations/, VOC: train.txt eval.txt label_list.txt, PaddleSeg: seg_train.txt seg_eval.txt labels.txt)\n", opts.Output)
	return err
}
