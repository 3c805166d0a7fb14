package train

import (
	"context"
	"fmt"
	"log/slog"

	"gopkg.in/yaml.v3"

	"paddle/core/config"
	"paddle/core/dist"
)

// openComm opens the job this training run is a rank of, by the config's
// Global.distributed (auto, on, off; default auto; distributed: in a
// PaddleSeg-layout config, distKey): dist.Local alone, MPI's
// under mpirun in the MPI build, and in the default build an error saying
// how to get it. Ranks other than 0 log only errors from here on.
func openComm(cfg *config.Config) (dist.Comm, error) {
	var s string
	key, n, ok := distKey(cfg, "distributed")
	if ok {
		s = n.Value
	}
	mode, err := dist.ParseMode(s)
	if err != nil {
		return nil, config.Usage(fmt.Errorf("%s: %s: %w", at(cfg, n), key, err))
	}
	c, err := dist.Open(mode)
	if err != nil {
		return nil, err
	}
	if c.Size() > 1 {
		if c.Rank() == 0 {
			slog.Info("distributed training", "ranks", c.Size(), "comm", c.Name())
		} else {
			slog.SetDefault(slog.New(errorsOnly{slog.Default().Handler()}))
		}
	}
	return c, nil
}

// useSyncBN reads Global.use_sync_bn (PaddleOCR's and PaddleClas's key for
// SyncBatchNorm.convert_sync_batchnorm; use_sync_bn: in a PaddleSeg-layout
// config, distKey): true makes the batch norms of a distributed run compute
// their statistics over all ranks. Unset it is false; a kit may default it
// otherwise (seg: true, as PaddleSeg's layers are SyncBatchNorm).
func useSyncBN(cfg *config.Config) (bool, error) {
	key, n, ok := distKey(cfg, "use_sync_bn")
	if !ok {
		return false, nil
	}
	var b bool
	if err := n.Decode(&b); err != nil {
		return false, config.Usage(fmt.Errorf("%s: %s: %q, want true or false", at(cfg, n), key, n.Value))
	}
	return b, nil
}

// distKey finds a distributed-training key: Global.<name>, or <name> at
// the top of a config without a Global section (PaddleSeg's layout, whose
// settings are all top-level: batch_size, iters). It returns the path found
// (for messages) and its node.
func distKey(cfg *config.Config, name string) (string, *yaml.Node, bool) {
	if cfg.Has("Global") {
		n, ok := cfg.Node("Global." + name)
		return "Global." + name, n, ok
	}
	n, ok := cfg.Node(name)
	return name, n, ok
}

// at is where node n of cfg came from: file:line, or -o.
func at(cfg *config.Config, n *yaml.Node) string {
	if n != nil && n.Line > 0 {
		return fmt.Sprintf("%s:%d", cfg.File, n.Line)
	}
	if n == nil {
		return cfg.File
	}
	return "-o"
}

// errorsOnly passes on only records of level Error and above.
type errorsOnly struct{ slog.Handler }

func (h errorsOnly) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelError && h.Handler.Enabled(ctx, l)
}
func (h errorsOnly) WithAttrs(a []slog.Attr) slog.Handler { return errorsOnly{h.Handler.WithAttrs(a)} }
func (h errorsOnly) WithGroup(n string) slog.Handler      { return errorsOnly{h.Handler.WithGroup(n)} }
