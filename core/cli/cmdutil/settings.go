package cmdutil

import "runtime"

// Settings are the process settings (not model settings): from flags, then
// PADDLE_* environment variables, then the user config file, then defaults.
type Settings struct {
	Device    string   // --device: cpu (default), cuda:0, ...
	Threads   int      // --threads: kernel goroutines (default: all cores)
	Format    string   // --format, resolved against what the command supports
	LogLevel  string   // --log-level: debug|info|warn|error
	LogFormat string   // --log-format: text|json
	Config    string   // -c/--config
	Overrides []string // -o/--override, repeatable
	UserFile  string   // the user config file that was read, if any
}

// DefaultThreads is the --threads default: every core.
func DefaultThreads() int { return runtime.NumCPU() }
