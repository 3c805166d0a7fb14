package train

import (
	"context"
	"fmt"
	"log/slog"

	"paddle/core/config"
	"paddle/core/dist"
)

// openComm opens the job this training run is a rank of, by the config's
// Global.distributed (auto, on, off; default auto): dist.Local alone, MPI's
// under mpirun in the MPI build, and in the default build an error saying
// how to get it. Ranks other than 0 log only errors from here on.
func openComm(cfg *config.Config) (dist.Comm, error) {
	var s string
	if n, ok := cfg.Node("Global.distributed"); ok {
		s = n.Value
	}
	mode, err := dist.ParseMode(s)
	if err != nil {
		return nil, config.Usage(fmt.Errorf("%s: Global.distributed: %w", cfg.File, err))
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
// SyncBatchNorm.convert_sync_batchnorm): true makes the batch norms of a
// distributed run compute their statistics over all ranks.
func useSyncBN(cfg *config.Config) (bool, error) {
	n, ok := cfg.Node("Global.use_sync_bn")
	if !ok {
		return false, nil
	}
	var b bool
	if err := n.Decode(&b); err != nil {
		at := "-o"
		if n.Line > 0 {
			at = fmt.Sprintf("%s:%d", cfg.File, n.Line)
		}
		return false, config.Usage(fmt.Errorf("%s: Global.use_sync_bn: %q, want true or false", at, n.Value))
	}
	return b, nil
}

// errorsOnly passes on only records of level Error and above.
type errorsOnly struct{ slog.Handler }

func (h errorsOnly) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelError && h.Handler.Enabled(ctx, l)
}
func (h errorsOnly) WithAttrs(a []slog.Attr) slog.Handler { return errorsOnly{h.Handler.WithAttrs(a)} }
func (h errorsOnly) WithGroup(n string) slog.Handler      { return errorsOnly{h.Handler.WithGroup(n)} }
