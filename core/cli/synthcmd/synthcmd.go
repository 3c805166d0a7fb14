// Package synthcmd is the body of the kits' `synth` verbs (`paddle det
// synth`, `paddle seg synth`): flags, their checks and the run over the
// core/synth compositor. Each kit keeps a thin NewCmdSynth that states its
// help text, flag defaults and closing line.
package synthcmd

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/synth"
	"paddle/datasets"
)

// Options are the inputs of a kit's synth command.
type Options struct {
	Factory     *cmdutil.Factory // nil outside a command (Build)
	Output      string
	Train, Eval int
	Size        int
	Seed        uint64
	MinObjects  int
	MaxObjects  int
	Stamps      string // Tux Paint stamps root (default: the cache)
	Backgrounds string // folder of background photos (default: the cache)
	// Wrote is printed after the folder name once the set is written,
	// e.g. "(PaddleSeg: seg_train.txt …)".
	Wrote string
}

// Spec is what differs between kits: help text, flag defaults and the
// line printed when done.
type Spec struct {
	Use, Short, Long, Example string
	Train, Eval, Size         int // flag defaults
	MaxObjects                int // --max-objects default
	Wrote                     string
}

// Defaults returns the options of s's flag defaults, writing into output:
// what `paddle dataset build det-synth|seg-synth` runs.
func Defaults(s Spec, output string) Options {
	stamps, bgs := synth.DefaultPaths()
	return Options{Output: output, Train: s.Train, Eval: s.Eval, Size: s.Size, MinObjects: 1, MaxObjects: s.MaxObjects,
		Stamps: stamps, Backgrounds: bgs, Wrote: s.Wrote}
}

// New returns the synth command described by s; runF replaces the run in
// tests. The command is an alias of `paddle dataset build det-synth|seg-synth`
// (datasets/catalog): both run Build.
func New(f *cmdutil.Factory, s Spec, runF func(*Options) error) *cobra.Command {
	d := Defaults(s, "")
	opts := &d
	opts.Factory = f
	cmd := &cobra.Command{
		Use:     s.Use,
		Short:   s.Short,
		Long:    s.Long,
		Example: s.Example,
		Args:    cobra.NoArgs,
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
			return Run(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Output, "output", "", "folder to write the data set into")
	fl.IntVar(&opts.Train, "train", opts.Train, "training images")
	fl.IntVar(&opts.Eval, "eval", opts.Eval, "evaluation images")
	fl.IntVar(&opts.Size, "size", opts.Size, "image side in pixels (square images)")
	fl.Uint64Var(&opts.Seed, "seed", opts.Seed, "random seed")
	fl.IntVar(&opts.MinObjects, "min-objects", opts.MinObjects, "fewest objects per image")
	fl.IntVar(&opts.MaxObjects, "max-objects", opts.MaxObjects, "most objects per image")
	fl.StringVar(&opts.Stamps, "stamps", opts.Stamps, "Tux Paint stamps folder (usr/share/tuxpaint/stamps)")
	fl.StringVar(&opts.Backgrounds, "backgrounds", opts.Backgrounds, "folder of background photos (.png, .jpg), searched recursively")
	return cmd
}

// Run is Build with the command's output, progress bar and --threads.
func Run(opts *Options) error {
	return Build(cmdutil.DatasetEnv(opts.Factory), *opts)
}

// Build loads the stamps and backgrounds, writes the data set with
// synth.Write on env.Workers workers (all CPUs when 0) with a progress bar,
// and prints "wrote <Output> <Wrote>".
func Build(env datasets.Env, opts Options) error {
	files, err := synth.BackgroundFiles(opts.Backgrounds)
	if err != nil {
		return err
	}
	lib, err := synth.LoadLibrary(opts.Stamps, synth.DefaultClasses, files)
	if err != nil {
		return err
	}
	out := env.Stdout()
	bar := env.Bar(opts.Train+opts.Eval, "compositing")
	var mu sync.Mutex
	workers := env.Workers
	if workers < 1 {
		workers = runtime.NumCPU()
	}
	wo := synth.WriteOptions{
		Options: synth.Options{Size: opts.Size, Seed: opts.Seed, MinObjects: opts.MinObjects, MaxObjects: opts.MaxObjects},
		Train:   opts.Train, Eval: opts.Eval, Workers: workers,
		Progress: func(n int) { mu.Lock(); bar.Add(n); mu.Unlock() },
		Log:      func(msg string) { fmt.Fprintln(out, msg) },
	}
	if err := synth.Write(opts.Output, lib, wo); err != nil {
		return err
	}
	bar.Finish()
	_, err = fmt.Fprintf(out, "wrote %s %s\n", opts.Output, opts.Wrote)
	return err
}
