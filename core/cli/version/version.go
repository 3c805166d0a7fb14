// Package version implements `paddle version`.
package version

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"paddle/core/backend"
	"paddle/core/backend/cpu"
	"paddle/core/cli/cmdutil"
)

// Info describes this build and machine.
type Info struct {
	Version     string `json:"version"`
	Commit      string `json:"commit"`
	GoVersion   string `json:"go"`
	Platform    string `json:"platform"`
	CPUFeatures string `json:"cpu_features"`
	// KernelLevel is the cpu backend's active kernel level
	// (PADDLE_CPU_KERNELS), KernelLevels all this processor has.
	KernelLevel  string   `json:"kernel_level"`
	KernelLevels []string `json:"kernel_levels"`
	Backends     []string `json:"backends"`
}

// Collect gathers the build information; the commit comes from the VCS stamp
// Go embeds, unless the factory sets one.
func Collect(f *cmdutil.Factory) Info {
	commit := f.Commit
	if commit == "" {
		commit = "unknown"
		if bi, ok := debug.ReadBuildInfo(); ok {
			for _, s := range bi.Settings {
				if s.Key == "vcs.revision" && len(s.Value) >= 12 {
					commit = s.Value[:12]
				}
			}
		}
	}
	return Info{
		Version: f.Version, Commit: commit, GoVersion: runtime.Version(),
		Platform: runtime.GOOS + "/" + runtime.GOARCH, CPUFeatures: cpu.Features(),
		KernelLevel: cpu.Level(), KernelLevels: cpu.Levels(),
		Backends: backend.List(),
	}
}

// NewCmdVersion returns `paddle version`.
func NewCmdVersion(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version, build, CPU features and backends",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			info := Collect(f)
			out := f.IOStreams.Out
			if f.Settings.Format == "json" {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(info)
			}
			fmt.Fprintf(out, "paddle %s (commit %s)\n", info.Version, info.Commit)
			fmt.Fprintf(out, "go:           %s\n", info.GoVersion)
			fmt.Fprintf(out, "platform:     %s\n", info.Platform)
			fmt.Fprintf(out, "cpu features: %s\n", info.CPUFeatures)
			fmt.Fprintf(out, "kernels:      %s (available: %s; %s)\n", info.KernelLevel, strings.Join(info.KernelLevels, ", "), cpu.KernelEnv)
			fmt.Fprintf(out, "backends:     %s\n", strings.Join(info.Backends, ", "))
			return nil
		},
	}
	cmdutil.SupportsFormats(cmd, "text", "json")
	return cmd
}
