// Package kit is the engine's view of a task kit: its name, its config
// schema and how it builds a Runner from a config. It knows nothing of the
// command line; core/cli/cmdutil.Kit adds a kit's own verbs and its serve
// hook. A kit returns both from one constructor, listed in kits/kits.go. No
// init side effects, no blank imports.
package kit

import (
	"paddle/core/config"
	"paddle/core/workflow"
)

// Kit is a task kit (ocr, det, seg, clas, nlp, speech, helix).
type Kit struct {
	Name  string // command name: "clas"
	Short string // one-line help

	// Schema describes the kit's config sections and components, for
	// `paddle config show` and -o validation. Nil when the kit has no configs.
	Schema *config.Schema

	// Build makes the kit's Runner from a resolved config; the shared verbs
	// (train, eval, predict, export) call it, and the command line attaches
	// them to every kit that sets it. Nil when the kit has no trainable models.
	Build func(cfg *config.Config) (workflow.Runner, error)

	// PredictRecord describes one record of the kit's predict output (its
	// fields and their types, docs/formats.md), for predict --help.
	PredictRecord string
}
