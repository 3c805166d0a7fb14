package det

import (
	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/cli/synthcmd"
	"paddle/core/synth"
)

// SynthOptions are the inputs of `paddle det synth`.
type SynthOptions = synthcmd.Options

// NewCmdSynth returns `paddle det synth`: the shared synth command
// (core/cli/synthcmd) with the det kit's help, defaults and closing line.
func NewCmdSynth(f *cmdutil.Factory, runF func(*SynthOptions) error) *cobra.Command {
	return synthcmd.New(f, SynthSpec(), runF)
}

// SynthSpec is `paddle det synth`'s help and defaults; `paddle dataset build
// det-synth` builds with the same defaults.
func SynthSpec() synthcmd.Spec {
	return synthcmd.Spec{
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
		Train: 4000, Eval: 500, Size: 320, MaxObjects: 6,
		Wrote: "(COCO: annotations/, VOC: train.txt eval.txt label_list.txt, PaddleSeg: seg_train.txt seg_eval.txt labels.txt)",
	}
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
