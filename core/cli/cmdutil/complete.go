package cmdutil

import (
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"paddle/configs"
)

// CompleteArgs completes a command's first argument from names (called when
// completing, so a catalogue is read only then); later arguments get none.
func CompleteArgs(names func() []string) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return withPrefix(names(), toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// withPrefix keeps the names that start with prefix.
func withPrefix(names []string, prefix string) []cobra.Completion {
	var out []cobra.Completion
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	return out
}

// ConfigNames lists the embedded configs (configs/): "clas/lenet_mnist.yaml",
// without the `_base_` pieces, which are not configs of their own. With kit
// set, only that kit's.
func ConfigNames(kit string) []string {
	var names []string
	_ = fs.WalkDir(configs.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), "_") {
			return fs.SkipDir
		}
		if !d.IsDir() && path.Ext(p) == ".yaml" && (kit == "" || strings.HasPrefix(p, kit+"/")) {
			names = append(names, p)
		}
		return nil
	})
	slices.Sort(names)
	return names
}

// CompleteConfig completes -c: the embedded configs of the command's kit
// (`paddle clas train -c <TAB>`; every kit's elsewhere), then files.
func CompleteConfig(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	kit := ""
	for c := cmd; c != nil && c.HasParent(); c = c.Parent() {
		if !c.Parent().HasParent() { // the root's child: `paddle <kit>`
			kit = c.Name()
		}
	}
	names := ConfigNames(kit)
	if len(names) == 0 {
		names = ConfigNames("")
	}
	// Default: the shell also offers files, since a path on disk works too.
	return withPrefix(names, toComplete), cobra.ShellCompDirectiveDefault
}

// CompleteFormat completes --format with what the command supports.
func CompleteFormat(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return withPrefix(Formats(cmd), toComplete), cobra.ShellCompDirectiveNoFileComp
}
