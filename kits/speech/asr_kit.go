package speech

import "paddle/core/config"

// isASRConfig reports whether cfg is in the recogniser's layout (model and
// training sections): the kit's asr task (kit.go).
func isASRConfig(cfg *config.Config) bool { return cfg.Has("model") && cfg.Has("training") }
