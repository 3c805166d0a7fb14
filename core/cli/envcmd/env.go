// Package envcmd implements `paddle env`: the resolved process settings.
package envcmd

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"paddle/core/backend/cpu"
	"paddle/core/cli/cmdutil"
	"paddle/core/dist"
	"paddle/core/hub"
)

// Env is what `paddle env` reports.
type Env struct {
	Device           string   `json:"device"`
	Threads          int      `json:"threads"`
	KernelLevel      string   `json:"kernel_level"`
	LogLevel         string   `json:"log_level"`
	CacheDir         string   `json:"cache_dir"`
	ModelsDir        string   `json:"models_dir"`
	UserConfig       string   `json:"user_config"`
	ConfigSearchPath []string `json:"config_search_path"`
	Rank             int      `json:"rank"`
	Size             int      `json:"size"`
	Distributed      string   `json:"distributed"` // the Comm ("local", "mpi (…)") or why none
}

// NewCmdEnv returns `paddle env`.
func NewCmdEnv(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "env",
		Short: "Print the resolved threads, device, cache and config locations",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s := f.Settings
			wd, _ := os.Getwd()
			e := Env{
				Device: s.Device, Threads: s.Threads, KernelLevel: cpu.Level(), LogLevel: s.LogLevel,
				CacheDir: hub.CacheDir(), ModelsDir: hub.ModelsDir(), UserConfig: s.UserFile,
				ConfigSearchPath: []string{wd + " (files on disk win)", "embedded configs/ in the binary"},
			}
			if e.UserConfig == "" {
				e.UserConfig = "(none)"
			}
			e.Size = 1
			if c, err := dist.Open(dist.Auto); err != nil {
				e.Distributed = err.Error()
			} else {
				e.Rank, e.Size, e.Distributed = c.Rank(), c.Size(), c.Name()
				c.Close()
			}
			out := f.IOStreams.Out
			if s.Format == "json" {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(e)
			}
			fmt.Fprintf(out, "device:      %s\n", e.Device)
			fmt.Fprintf(out, "threads:     %d\n", e.Threads)
			fmt.Fprintf(out, "kernels:     %s (%s)\n", e.KernelLevel, cpu.KernelEnv)
			fmt.Fprintf(out, "log level:   %s\n", e.LogLevel)
			fmt.Fprintf(out, "cache dir:   %s\n", e.CacheDir)
			fmt.Fprintf(out, "models dir:  %s\n", e.ModelsDir)
			fmt.Fprintf(out, "user config: %s\n", e.UserConfig)
			fmt.Fprintf(out, "config path: %s\n", strings.Join(e.ConfigSearchPath, "; "))
			fmt.Fprintf(out, "rank:        %d of %d (%s)\n", e.Rank, e.Size, e.Distributed)
			return nil
		},
	}
	cmdutil.SupportsFormats(cmd, "text", "json")
	return cmd
}
