// Package root builds the paddle command tree: global flags, process
// settings (viper), logging, one parent command per kit, and the shared
// nouns (version, env, config). Execute maps errors to exit codes.
package root

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"paddle/core/backend"
	"paddle/core/cli/bench"
	"paddle/core/cli/cmdutil"
	"paddle/core/cli/configcmd"
	"paddle/core/cli/envcmd"
	"paddle/core/cli/eval"
	"paddle/core/cli/export"
	"paddle/core/cli/model"
	"paddle/core/cli/predict"
	"paddle/core/cli/serve"
	"paddle/core/cli/train"
	"paddle/core/cli/version"
	"paddle/core/config"
	"paddle/core/kit"
)

// NewCmdRoot returns the root command with every kit's commands attached.
func NewCmdRoot(f *cmdutil.Factory, kits ...*cmdutil.Kit) *cobra.Command {
	s := &f.Settings
	v := viper.New()
	cmd := &cobra.Command{
		Use:   "paddle <command>",
		Short: "PaddlePaddle's task kits in one static binary",
		Long: "paddle trains, evaluates, exports and runs models for OCR, detection, segmentation,\n" +
			"classification, NLP, speech and molecules, on one shared engine, with no Python.",
		SilenceErrors: true,
		SilenceUsage:  true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return prepare(cmd, f, v)
		},
	}
	cmd.SetOut(f.IOStreams.Out)
	cmd.SetErr(f.IOStreams.ErrOut)
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &cmdutil.FlagError{Err: err} })

	pf := cmd.PersistentFlags()
	pf.StringVar(&s.Device, "device", "cpu", "device to run on: "+strings.Join(backend.List(), ", "))
	pf.IntVar(&s.Threads, "threads", cmdutil.DefaultThreads(), "kernel threads")
	pf.StringVar(&s.Format, "format", "", "output format; each command lists what it supports (text, json, jsonl, csv)")
	pf.StringVar(&s.LogLevel, "log-level", "info", "log level: debug, info, warn, error")
	pf.StringVar(&s.LogFormat, "log-format", "text", "log format on stderr: text or json")
	pf.StringVarP(&s.Config, "config", "c", "", "model config YAML file (or an embedded name such as clas/lenet_mnist.yaml)")
	pf.StringArrayVarP(&s.Overrides, "override", "o", nil, "override a config key, repeatable: -o Section.key=value")
	_ = cmd.RegisterFlagCompletionFunc("config", cmdutil.CompleteConfig)
	_ = cmd.RegisterFlagCompletionFunc("format", cmdutil.CompleteFormat)
	_ = cmd.RegisterFlagCompletionFunc("device", cobra.FixedCompletions(backend.List(), cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("log-level", cobra.FixedCompletions([]string{"debug", "info", "warn", "error"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("log-format", cobra.FixedCompletions([]string{"text", "json"}, cobra.ShellCompDirectiveNoFileComp))
	for _, name := range []string{"device", "threads", "log-level", "log-format"} {
		_ = v.BindPFlag(name, pf.Lookup(name))
	}
	v.SetEnvPrefix("PADDLE")
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_"))
	v.AutomaticEnv()

	cmd.AddCommand(version.NewCmdVersion(f), envcmd.NewCmdEnv(f), configcmd.NewCmdConfig(f, kits), model.NewCmdModel(f), bench.NewCmdBench(f))
	cmd.AddCommand(serve.NewCmdServe(f, kits))
	for _, k := range kits {
		cmd.AddCommand(kitCommand(f, k))
		if k.Schema != nil {
			config.Register(k.Name, k.Schema)
		}
	}
	return cmd
}

// kitCommand makes `paddle <kit>` with the kit's verbs: the shared ones
// (train, eval, predict, export) when the kit builds runners, then the kit's
// own. A later command of the same name replaces an earlier one, which is how
// a kit overrides a shared verb.
func kitCommand(f *cmdutil.Factory, k *cmdutil.Kit) *cobra.Command {
	c := &cobra.Command{Use: k.Name + " <command>", Short: k.Short}
	byName := map[string]*cobra.Command{}
	var order []string
	var subs []*cobra.Command
	if k.Build != nil {
		subs = append(subs, sharedVerbs(f, k.Kit)...)
	}
	if k.Commands != nil {
		subs = append(subs, k.Commands(f, k.Kit)...)
	}
	for _, sub := range subs {
		if _, seen := byName[sub.Name()]; !seen {
			order = append(order, sub.Name())
		}
		byName[sub.Name()] = sub
	}
	for _, n := range order {
		c.AddCommand(byName[n])
	}
	return c
}

// sharedVerbs are the verbs every kit with a Build gets.
func sharedVerbs(f *cmdutil.Factory, k *kit.Kit) []*cobra.Command {
	return []*cobra.Command{
		train.NewCmdTrain(f, k, nil),
		eval.NewCmdEval(f, k, nil),
		predict.NewCmdPredict(f, k, nil),
		export.NewCmdExport(f, k, nil),
	}
}

// prepare resolves the process settings (flags > PADDLE_* env > user config
// file > defaults), the --format value, logging and the backend.
func prepare(cmd *cobra.Command, f *cmdutil.Factory, v *viper.Viper) error {
	s := &f.Settings
	if file := userConfigFile(); file != "" {
		v.SetConfigFile(file)
		if err := v.ReadInConfig(); err != nil {
			return config.Usage(fmt.Errorf("user config %s: %w", file, err))
		}
		s.UserFile = file
	}
	s.Device = v.GetString("device")
	s.LogLevel = v.GetString("log-level")
	s.LogFormat = v.GetString("log-format")
	if t := v.GetString("threads"); t != "" {
		if _, err := fmt.Sscan(t, &s.Threads); err != nil || s.Threads < 1 {
			return cmdutil.FlagErrorf("--threads %q: want a positive integer", t)
		}
	}
	format, err := cmdutil.ResolveFormat(cmd, s.Format)
	if err != nil {
		return err
	}
	s.Format = format
	if err := setupLogging(f, s); err != nil {
		return err
	}
	b, err := backend.Get(s.Device)
	if err != nil {
		return cmdutil.FlagErrorf("--device: %v", err)
	}
	return backend.Activate(b, s.Threads)
}

// userConfigFile returns $PADDLE_CONFIG or <user config dir>/paddle/config.yaml when it exists.
func userConfigFile() string {
	if p := os.Getenv("PADDLE_CONFIG"); p != "" {
		return p
	}
	d, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	p := filepath.Join(d, "paddle", "config.yaml")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

func setupLogging(f *cmdutil.Factory, s *cmdutil.Settings) error {
	var level slog.Level
	if err := level.UnmarshalText([]byte(s.LogLevel)); err != nil {
		return cmdutil.FlagErrorf("--log-level %q: want debug, info, warn or error", s.LogLevel)
	}
	opts := &slog.HandlerOptions{Level: level}
	var h slog.Handler
	switch s.LogFormat {
	case "text":
		h = slog.NewTextHandler(f.IOStreams.ErrOut, opts)
	case "json":
		h = slog.NewJSONHandler(f.IOStreams.ErrOut, opts)
	default:
		return cmdutil.FlagErrorf("--log-format %q: want text or json", s.LogFormat)
	}
	slog.SetDefault(slog.New(h))
	return nil
}
