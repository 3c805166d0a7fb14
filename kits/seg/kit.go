// Package seg is the semantic-segmentation kit (PaddleSeg's job). What
// exists so far: PaddleSeg file lists, labels.txt and label PNGs (gray or
// palette, 255 = ignore) with checks, and scoring of prediction PNG
// folders exactly as PaddleSeg's metrics.py (`paddle seg eval --pred
// --label`). Models, training, export and predict are not implemented yet.
//
// Where things are:
//
//	kit.go       the kit and its commands
//	label.go     label / prediction PNGs (LabelMap), value and size errors
//	filelist.go  file lists (train.txt ...), labels.txt, LoadSample
//	evalcmd.go   `paddle seg eval --pred DIR --label DIR --num-classes N`
//
// The metrics themselves live in core/metric/seg.
package seg

import (
	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/kit"
)

// Kit returns the seg kit.
func Kit() *kit.Kit {
	return &kit.Kit{
		Name:  "seg",
		Short: "Semantic segmentation (PaddleSeg): file lists, label PNGs, mIoU/Acc/Kappa/Dice as PaddleSeg",
		Commands: func(f *cmdutil.Factory, k *kit.Kit) []*cobra.Command {
			return []*cobra.Command{
				NewCmdEval(f, nil),
			}
		},
	}
}
