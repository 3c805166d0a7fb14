package ocr

import (
	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/config"
	"paddle/core/kit"
	"paddle/kits/ocr/dettrain"
	"paddle/kits/ocr/rectrain"
	"paddle/kits/ocr/synth"
)

// Kit returns the OCR kit. Its predict replaces the shared verb: it runs the PP-OCRv4
// system from ONNX models instead of a training checkpoint. train and eval are the
// shared verbs over kits/ocr/rectrain (CRNN recognition), and export; synth renders training data.
func Kit() *cmdutil.Kit {
	return &cmdutil.Kit{
		Kit: (&kit.Kit{
			Name:  "ocr",
			Short: "Text detection and recognition (PaddleOCR): the PP-OCRv4 system, exact to PaddleOCR 2.x",
		}).WithTasks(
			// Architecture.model_type det → dettrain (DB), anything else → rectrain (CRNN).
			kit.Task{Name: "rec", Match: func(cfg *config.Config) bool { return !isDetConfig(cfg) }, Schema: rectrain.Schema(), Build: rectrain.Build},
			kit.Task{Name: "det", Match: isDetConfig, Schema: dettrain.Schema(), Build: dettrain.Build},
		),
		Serve: Serve, // paddle serve ocr
		Commands: func(f *cmdutil.Factory, _ *kit.Kit) []*cobra.Command {
			return []*cobra.Command{NewCmdPredict(f, nil), synth.NewCmdSynth(f, nil)}
		},
	}
}

// isDetConfig reports whether cfg trains a detector (Architecture.model_type det).
func isDetConfig(cfg *config.Config) bool {
	n, ok := cfg.Node("Architecture.model_type")
	return ok && n.Value == "det"
}
