package seg

import (
	"fmt"

	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/cli/synthcmd"
	"paddle/core/synth"
)

// SynthOptions are the inputs of `paddle seg synth`.
type SynthOptions = synthcmd.Options

// NewCmdSynth returns `paddle seg synth`: the core/synth compositor (the
// same one `paddle det synth` runs, through core/cli/synthcmd), whose masks
// and PaddleSeg lists are what the seg kit trains on.
func NewCmdSynth(f *cmdutil.Factory, runF func(*SynthOptions) error) *cobra.Command {
	return synthcmd.New(f, SynthSpec(), runF)
}

// SynthSpec is `paddle seg synth`'s help and defaults; `paddle dataset build
// seg-synth` builds with the same defaults.
func SynthSpec() synthcmd.Spec {
	return synthcmd.Spec{
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
		Train: 2000, Eval: 200, Size: 256, MaxObjects: 4,
		Wrote: "(PaddleSeg: seg_train.txt seg_eval.txt labels.txt, images/ masks/)",
	}
}
