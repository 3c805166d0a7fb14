package ocr

import (
	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/config"
	"paddle/core/kit"
	"paddle/core/workflow"
	"paddle/kits/ocr/dettrain"
	"paddle/kits/ocr/rectrain"
	"paddle/kits/ocr/synth"
)

// Kit returns the OCR kit. Its predict replaces the shared verb: it runs the PP-OCRv4
// system from ONNX models instead of a training checkpoint. train and eval are the
// shared verbs over kits/ocr/rectrain (CRNN recognition), and export; synth renders training data.
func Kit() *cmdutil.Kit {
	return &cmdutil.Kit{
		Kit: &kit.Kit{
			Name:   "ocr",
			Short:  "Text detection and recognition (PaddleOCR): the PP-OCRv4 system, exact to PaddleOCR 2.x",
			Schema: dettrain.MergeSchema(rectrain.Schema(), dettrain.Schema()),
			Build:  buildTrainer,
		},
		Serve: Serve, // paddle serve ocr
		Commands: func(f *cmdutil.Factory, _ *kit.Kit) []*cobra.Command {
			return []*cobra.Command{NewCmdPredict(f, nil), synth.NewCmdSynth(f, nil)}
		},
	}
}

// buildTrainer builds the training runner Architecture.model_type names:
// det → dettrain (DB), anything else → rectrain (CRNN).
func buildTrainer(cfg *config.Config) (workflow.Runner, error) {
	if n, ok := cfg.Node("Architecture.model_type"); ok && n.Value == "det" {
		return dettrain.Build(cfg)
	}
	return rectrain.Build(cfg)
}
