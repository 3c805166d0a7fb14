package speech

import (
	"maps"

	"paddle/core/config"
	"paddle/core/workflow"
)

// withASRSchema returns s plus the recogniser's sections (data, feature,
// model, training, decoding), so `-o` and `paddle config show` know both
// kinds of speech config; each Build still validates strictly.
func withASRSchema(s *config.Schema) *config.Schema {
	out := *s
	out.Sections = maps.Clone(s.Sections)
	maps.Copy(out.Sections, ASRSchema().Sections)
	return &out
}

// withASR returns a Build that makes the recogniser's runner for a config
// in its layout (model and training sections) and calls build otherwise.
func withASR(build func(*config.Config) (workflow.Runner, error)) func(*config.Config) (workflow.Runner, error) {
	return func(cfg *config.Config) (workflow.Runner, error) {
		if isASRConfig(cfg) {
			return buildASR(cfg)
		}
		return build(cfg)
	}
}

// isASRConfig reports whether cfg is in the recogniser's layout.
func isASRConfig(cfg *config.Config) bool { return cfg.Has("model") && cfg.Has("training") }
