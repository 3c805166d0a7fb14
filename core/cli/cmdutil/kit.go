package cmdutil

import (
	"context"

	"github.com/spf13/cobra"

	"paddle/core/kit"
	"paddle/core/serve"
)

// Kit is a kit as the command line sees it: the engine's kit.Kit plus the
// verbs only this kit has and its serve hook. The root command gives every
// kit with a Build the shared verbs (train, eval, predict, export); Commands
// adds the kit's own, and a command of a shared verb's name replaces that
// verb (OCR's predict, det's eval).
type Kit struct {
	*kit.Kit

	// Commands returns the kit-only verbs and the kit's replacements of
	// shared verbs. Nil when it has none.
	Commands func(f *Factory, k *kit.Kit) []*cobra.Command

	// Serve, when set, lets `paddle serve <kit>` answer the kit's predictions over
	// HTTP (core/serve). It is called while the command tree is built and may add
	// the kit's model flags to cmd; the function it returns is called once, after
	// the flags are parsed, to load the one Predictor that all requests share.
	// Nil when the kit cannot be served.
	Serve func(f *Factory, cmd *cobra.Command) func(ctx context.Context) (serve.Predictor, error)
}
