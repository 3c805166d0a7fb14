package ocr

import (
	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/kit"
)

// Kit returns the OCR kit. Its predict replaces the shared verb: it runs the PP-OCRv4
// system from ONNX models instead of a training checkpoint.
func Kit() *kit.Kit {
	return &kit.Kit{
		Name:  "ocr",
		Short: "Text detection and recognition (PaddleOCR): the PP-OCRv4 system, exact to PaddleOCR 2.x",
		Commands: func(f *cmdutil.Factory, k *kit.Kit) []*cobra.Command {
			return []*cobra.Command{NewCmdPredict(f, nil)}
		},
	}
}
