// Package det is the object-detection kit (PaddleDetection's job): a
// PP-PicoDet-style anchor-free detector trained, evaluated (COCO mAP exactly
// as pycocotools), exported to ONNX and run; COCO and Pascal VOC readers;
// scoring of any COCO results file (`paddle det eval --gt --dt`); synthetic
// data sets of real photo cut-outs (`paddle det synth`).
//
// Where things are:
//
//	kit.go         the kit and its commands
//	config.go      PaddleDetection config sections and components (the schema)
//	model.go       PicoDet: LCNet backbone (core/zoo), LCPAN neck, GFL head, anchors, box decoding
//	assign.go      task-aligned and SimOTA label assignment (plain Go)
//	loss.go        varifocal, GIoU and distribution focal losses
//	postprocess.go score threshold, class-aware NMS, Matrix NMS, top-k
//	transforms.go  Sample; flip, crop, expand, distort, resize, mosaic
//	batch.go       data sets by config, mosaic loading, collate with multi-scale resize
//	runner.go      train / eval over core/workflow, COCO metric
//	predict.go     predict (jsonl, --draw) from a checkpoint or an export
//	predictcmd.go  `paddle det predict`: the shared verb plus --draw
//	serve.go       `paddle serve det` (the kit's Serve hook)
//	draw.go        boxes, labels and scores drawn on the image (PNG)
//	export.go      export (model.onnx + inference.yaml)
//	dataset.go     Dataset, Record, Object; box checks; conversion to COCO ground truth
//	cocoreader.go  COCO json reader (PaddleDetection's COCODataSet)
//	vocreader.go   Pascal VOC reader (label_list.txt, "image xml" lists, xml files)
//	evalcmd.go     `paddle det eval --gt annotations.json --dt results.json` or `-c --weights`
//	synthcmd.go    `paddle det synth --output DIR` (core/synth)
package det

import (
	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/kit"
)

// Kit returns the det kit.
func Kit() *cmdutil.Kit {
	return &cmdutil.Kit{
		Kit: &kit.Kit{
			Name:          "det",
			Short:         "Object detection (PaddleDetection): PicoDet-style detector, COCO/VOC data, COCO mAP as pycocotools, synthetic data sets",
			Schema:        Schema(),
			Build:         build,
			PredictRecord: PredictRecord,
		},
		Commands: func(f *cmdutil.Factory, k *kit.Kit) []*cobra.Command {
			return []*cobra.Command{NewCmdEval(f, k, nil), newCmdPredict(f, k), NewCmdSynth(f, nil)}
		},
		Serve: Serve, // paddle serve det
	}
}
