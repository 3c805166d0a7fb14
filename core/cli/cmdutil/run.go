package cmdutil

import (
	"paddle/core/config"
)

// LoadConfig loads the -c config with the -o overrides; a config error is a
// usage error (exit 2). An empty path is a flag error.
func (f *Factory) LoadConfig() (*config.Config, error) {
	if f.Settings.Config == "" {
		return nil, FlagErrorf("-c/--config is required")
	}
	cfg, err := config.Load(f.Settings.Config, f.Settings.Overrides...)
	if err != nil {
		return nil, config.Usage(err)
	}
	return cfg, nil
}
