// Package kit is the engine's view of a task kit: its name, its config
// schema and how it builds a Runner from a config. It knows nothing of the
// command line; core/cli/cmdutil.Kit adds a kit's own verbs and its serve
// hook. A kit returns both from one constructor, listed in kits/kits.go. No
// init side effects, no blank imports.
package kit

import (
	"fmt"
	"strings"

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

	// Tasks are the kinds of model of a kit that trains several (ocr's
	// det and rec, speech's kws, cls and asr, nlp's cls and tag), set with
	// WithTasks, which derives Schema and Build from them. Nil for a kit
	// with one kind of model.
	Tasks []Task
}

// A Task is one kind of model of a kit that trains several: how its
// configs are recognised, their schema and the runner they build.
type Task struct {
	Name string // "det", "rec": for messages

	// Match reports whether cfg is this task's config; nil matches every
	// config (the fallback, listed last).
	Match func(cfg *config.Config) bool

	// Schema is the schema the task's configs are checked against; Build
	// validates with it.
	Schema *config.Schema

	// Build makes the task's Runner from one of its configs.
	Build func(cfg *config.Config) (workflow.Runner, error)
}

// WithTasks sets k's Tasks and derives from them the kit's Schema (their
// schemas merged, config.MergeSchemas, the first task's winning a clash)
// and its Build (the first task whose Match accepts a config builds it). It
// returns k.
func (k *Kit) WithTasks(tasks ...Task) *Kit {
	k.Tasks = tasks
	schemas := make([]*config.Schema, 0, len(tasks))
	for _, t := range tasks {
		if t.Schema != nil {
			schemas = append(schemas, t.Schema)
		}
	}
	k.Schema = config.MergeSchemas(schemas...)
	k.Build = func(cfg *config.Config) (workflow.Runner, error) {
		t, err := k.TaskOf(cfg)
		if err != nil {
			return nil, err
		}
		return t.Build(cfg)
	}
	return k
}

// TaskOf returns the first of k's tasks whose Match accepts cfg; a config
// no task recognises is a usage error naming the tasks.
func (k *Kit) TaskOf(cfg *config.Config) (Task, error) {
	names := make([]string, len(k.Tasks))
	for i, t := range k.Tasks {
		if t.Match == nil || t.Match(cfg) {
			return t, nil
		}
		names[i] = t.Name
	}
	return Task{}, config.Usage(fmt.Errorf("%s: not a config of any %s task (%s)", cfg.File, k.Name, strings.Join(names, ", ")))
}
