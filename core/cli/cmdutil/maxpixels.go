package cmdutil

import (
	"github.com/spf13/cobra"

	"paddle/core/data"
)

// MaxPixelsFlag gives cmd the --max-pixels flag with default def and returns
// the function its RunE calls before decoding any image: it checks the value
// and makes it the limit of core/data's decoders, which read every image's
// header and refuse a larger one before allocating its pixels.
func MaxPixelsFlag(cmd *cobra.Command, def int64) func() error {
	v := cmd.Flags().Int64("max-pixels", def, "refuse images whose header declares more pixels (width × height) than this, before decoding them")
	return func() error {
		if *v < 1 {
			return FlagErrorf("--max-pixels must be at least 1, not %d", *v)
		}
		data.SetMaxPixels(*v)
		return nil
	}
}
