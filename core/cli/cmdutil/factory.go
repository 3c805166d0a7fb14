package cmdutil

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"paddle/core/cli/iostreams"
	"paddle/core/workflow"
)

// Factory carries the dependencies commands share. Expensive ones are lazy
// functions, so a command that does not need them never builds them.
type Factory struct {
	IOStreams *iostreams.IOStreams
	// Version and Commit describe this build (set by cmd/paddle).
	Version, Commit string
	// Settings are filled by the root command before any command runs.
	Settings Settings
}

// NewFactory returns a Factory over the process's standard streams.
func NewFactory() *Factory {
	return &Factory{IOStreams: iostreams.System(), Version: "dev"}
}

const formatsAnnotation = "paddle/formats"

// SupportsFormats declares the --format values a command accepts; the first is the default.
func SupportsFormats(cmd *cobra.Command, formats ...string) {
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[formatsAnnotation] = strings.Join(formats, ",")
}

// Formats returns the --format values cmd accepts (nil: the flag does not apply).
func Formats(cmd *cobra.Command) []string {
	s, ok := cmd.Annotations[formatsAnnotation]
	if !ok || s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// ResolveFormat checks the --format value against what cmd supports and
// returns the effective one (the default when empty).
func ResolveFormat(cmd *cobra.Command, value string) (string, error) {
	fs := Formats(cmd)
	switch {
	case value == "" && len(fs) > 0:
		return fs[0], nil
	case value == "":
		return "", nil
	case len(fs) == 0:
		return "", FlagErrorf("--format is not supported by %q", cmd.CommandPath())
	case !slices.Contains(fs, value):
		return "", FlagErrorf("--format %q: %q supports %s", value, cmd.CommandPath(), strings.Join(fs, ", "))
	}
	return value, nil
}

// RunnerIO gives a Runner the command's standard streams: "-" inputs from
// stdin, results on stdout, progress bars on stderr when it is a terminal.
func (f *Factory) RunnerIO() workflow.IO {
	ios := f.IOStreams
	return workflow.IO{In: ios.In, Out: ios.Out, Progress: func(total int, desc string) workflow.Bar {
		return ios.Progress(total, desc)
	}}
}
