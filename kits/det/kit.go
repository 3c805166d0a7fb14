// Package det is the object-detection kit (PaddleDetection's job). What
// exists so far: COCO and Pascal VOC data-set readers, scoring of any COCO
// results file exactly as pycocotools does (`paddle det eval --gt --dt`),
// and synthetic data sets of real photo cut-outs (`paddle det synth`).
// Model training, export and predict are not implemented yet.
//
// Where things are:
//
//	kit.go         the kit and its commands
//	dataset.go     Dataset, Record, Object; box checks; conversion to COCO ground truth
//	cocoreader.go  COCO json reader (PaddleDetection's COCODataSet)
//	vocreader.go   Pascal VOC reader (label_list.txt, "image xml" lists, xml files)
//	evalcmd.go     `paddle det eval --gt annotations.json --dt results.json`
//	synthcmd.go    `paddle det synth --output DIR` (core/synth)
package det

import (
	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/kit"
)

// Kit returns the det kit.
func Kit() *kit.Kit {
	return &kit.Kit{
		Name:  "det",
		Short: "Object detection (PaddleDetection): COCO/VOC data, COCO mAP as pycocotools, synthetic data sets",
		Commands: func(f *cmdutil.Factory, k *kit.Kit) []*cobra.Command {
			return []*cobra.Command{
				NewCmdEval(f, nil),
				NewCmdSynth(f, nil),
			}
		},
	}
}
