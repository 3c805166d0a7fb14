// Package kit is the one type kits and the command line share: a kit
// registers itself by returning a Kit from its constructor, listed in
// kits/kits.go. No init side effects, no blank imports.
package kit

import (
	"context"

	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/config"
	"paddle/core/serve"
	"paddle/core/workflow"
)

// Kit is a task kit (ocr, det, seg, clas, nlp, speech, helix) as the command line sees it.
type Kit struct {
	Name  string // command name: "clas"
	Short string // one-line help

	// Schema describes the kit's config sections and components, for
	// `paddle config show` and -o validation. Nil when the kit has no configs.
	Schema *config.Schema

	// Build makes the kit's Runner from a resolved config; the shared verbs
	// (train, eval, predict) call it. Nil when the kit has no trainable models.
	Build func(cfg *config.Config) (workflow.Runner, error)

	// Commands returns the kit's verbs. Shared verbs come from core/cli
	// constructors; a kit replaces one by returning its own command of the
	// same name (OCR's predict).
	Commands func(f *cmdutil.Factory, k *Kit) []*cobra.Command

	// PredictRecord describes one record of the kit's predict output (its
	// fields and their types, docs/formats.md), for predict --help.
	PredictRecord string

	// Serve, when set, lets `paddle serve <kit>` answer the kit's predictions over
	// HTTP (core/serve). It is called while the command tree is built and may add
	// the kit's model flags to cmd; the function it returns is called once, after
	// the flags are parsed, to load the one Predictor that all requests share.
	// Nil when the kit cannot be served.
	Serve func(f *cmdutil.Factory, cmd *cobra.Command) func(ctx context.Context) (serve.Predictor, error)
}
