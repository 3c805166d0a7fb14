// Package clas is the image-classification kit (PaddleClas's job): LeNet,
// ResNet and PP-LCNet trained on MNIST, sklearn digits, class folders or
// PaddleClas list files, with top-k accuracy, checkpoints and predict.
//
// Where things are:
//
//	kit.go         the kit and its commands
//	config.go      the PaddleClas config sections (the schema)
//	models.go      LeNet and the Arch registry (ResNet, PPLCNet come from core/zoo)
//	dataset.go     datasets by config name, batches
//	transforms.go  PaddleClas transform ops (DecodeImage, ResizeImage, NormalizeImage, ...)
//	runner.go      train / eval / predict over core/workflow
//	serve.go       `paddle serve clas` (the kit's Serve hook)
//	export.go      export (trace → model.onnx + inference.yaml) and predict --model
//	idx.go digits.go listfile.go   MNIST IDX, sklearn digits, list files and class folders
//	datasetcmd.go  `paddle clas dataset mnist|digits`
package clas

import (
	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/kit"
)

// Kit returns the clas kit.
func Kit() *cmdutil.Kit {
	return &cmdutil.Kit{
		Kit: &kit.Kit{
			Name:          "clas",
			Short:         "Image classification (PaddleClas): LeNet, ResNet, PP-LCNet on MNIST, digits, folders, list files",
			Schema:        Schema(),
			Build:         build,
			PredictRecord: PredictRecord,
		},
		Commands: func(f *cmdutil.Factory, _ *kit.Kit) []*cobra.Command {
			return []*cobra.Command{newCmdDataset(f)}
		},
		Serve: Serve, // paddle serve clas
	}
}
