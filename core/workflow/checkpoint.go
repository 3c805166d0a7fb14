package workflow

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	pio "paddle/core/io"
	"paddle/core/metric"
	"paddle/core/nn"
	"paddle/core/optim"
	"paddle/core/tensor"
)

// State is what state.yaml records beside the weights: enough to continue a
// run exactly where it stopped.
type State struct {
	Epoch      int     `yaml:"epoch"`       // epochs fully done
	Batch      int     `yaml:"batch"`       // batches done in the current epoch (resume mid-epoch)
	Step       int     `yaml:"step"`        // optimizer steps done in total
	Seed       uint64  `yaml:"seed"`        // the run's seed
	Metric     string  `yaml:"metric"`      // name of the main metric
	BestMetric float64 `yaml:"best_metric"` // best main metric so far (-1: none yet)
	BestEpoch  int     `yaml:"best_epoch"`
	LastMetric float64 `yaml:"last_metric"`
	// Ranks and GlobalBatch are the ranks and samples per batch (all ranks
	// together) of a distributed run that saved it (0: a run alone with the
	// config's batch size), so a resume with other ranks finds its place.
	Ranks       int `yaml:"ranks,omitempty"`
	GlobalBatch int `yaml:"global_batch,omitempty"`
}

// LoadModel copies the checkpoint's tensors into m's parameters and buffers,
// reporting every missing, unexpected or mis-shaped tensor at once.
func LoadModel(m nn.Module, got map[string]*tensor.Tensor, dir string) error {
	if err := pio.CheckNames(pio.SpecsOf(nn.State(m)), got); err != nil {
		return fmt.Errorf("load weights from %s: %w", dir, err)
	}
	return nn.LoadState(m, got)
}

// SaveCheckpoint writes dir with the model, optimizer, state and config.
func SaveCheckpoint(dir string, m nn.Module, opt optim.Optimizer, st State, configYAML []byte) error {
	var os map[string]*tensor.Tensor
	if opt != nil {
		os = opt.State()
	}
	return pio.SaveCheckpoint(dir, nn.State(m), os, st, configYAML)
}

// LoadCheckpoint restores model (and optimizer when given) from dir and returns its state.
// dir may also be a PaddlePaddle .pdparams file (for a PaddleNamer model):
// then only the model is loaded and the state is zero.
func LoadCheckpoint(dir string, m nn.Module, opt optim.Optimizer) (State, error) {
	var st State
	if IsPaddleWeights(dir) { // weights only: no optimizer state or counters
		return st, loadPaddleModel(dir, m)
	}
	c, err := pio.LoadCheckpoint(dir)
	if err != nil {
		return st, err
	}
	if err := LoadModel(m, c.Model, dir); err != nil {
		return st, err
	}
	if opt != nil && c.Optimizer != nil {
		if err := opt.LoadState(c.Optimizer); err != nil {
			return st, fmt.Errorf("%s: optimizer state: %w", dir, err)
		}
	}
	if c.State != nil {
		if err := c.DecodeState(&st); err != nil {
			return st, err
		}
	}
	return st, nil
}

// ResumeCheckpoint is LoadCheckpoint for --resume: dir must be a complete
// checkpoint (weights and state.yaml). When a save into dir was interrupted
// it resumes from the previous complete checkpoint the save kept, and says
// so; when there is none it is an error, never a silent start from step 0.
// It returns the folder it read.
func ResumeCheckpoint(dir string, m nn.Module, opt optim.Optimizer) (State, string, error) {
	use, fallback, err := pio.ResolveCheckpoint(dir)
	if err != nil {
		return State{}, "", fmt.Errorf("--resume: %w", err)
	}
	if fallback {
		slog.Warn("the checkpoint's last save was interrupted; resuming from the previous complete checkpoint",
			"checkpoint", dir, "from", use)
	}
	if err := pio.RemoveStale(dir); err != nil {
		return State{}, "", fmt.Errorf("--resume: %w", err)
	}
	st, err := LoadCheckpoint(use, m, opt)
	return st, use, err
}

// EvalCheckpoint loads the weights of checkpoint dir into model, builds the
// task that evaluates it and runs Eval: what every kit's eval verb does.
func EvalCheckpoint[B any](ctx context.Context, dir string, model nn.Module, task func() (*Task[B], error)) (metric.Report, error) {
	if _, err := LoadCheckpoint(dir, model, nil); err != nil {
		return metric.Report{}, err
	}
	t, err := task()
	if err != nil {
		return metric.Report{}, err
	}
	if t.EvalBatches == nil {
		return metric.Report{}, fmt.Errorf("no eval data: the config has no eval split")
	}
	return t.Eval(ctx)
}

// LoadPretrained starts m from the weights of checkpoint dir (or of a
// PaddlePaddle .pdparams file, for a model that is a PaddleNamer) the way
// PaddleDetection's pretrain_weights and PaddleSeg's pretrained do: every
// parameter or buffer whose name and shape match is copied, and the rest
// keep their initial values (a head trained for other classes, layers the
// checkpoint lacks). It returns the names left as they were, sorted, so
// callers can log them. A checkpoint that matches nothing is an error: it
// is another model's.
func LoadPretrained(dir string, m nn.Module) (skipped []string, err error) {
	if IsPaddleWeights(dir) {
		return loadPaddlePretrained(dir, m)
	}
	c, err := pio.LoadCheckpoint(dir)
	if err != nil {
		return nil, err
	}
	loaded := 0
	for _, p := range append(m.Params(), nn.Buffers(m)...) {
		t, ok := c.Model[p.Name]
		if !ok || !t.Shape().Equal(p.V.T.Shape()) {
			skipped = append(skipped, p.Name)
			continue
		}
		p.V.T.CopyFrom(t.Cast(p.V.T.DType()))
		loaded++
	}
	if loaded == 0 {
		return nil, fmt.Errorf("pretrained weights %s: no tensor matches the model by name and shape", dir)
	}
	slices.Sort(skipped)
	return skipped, nil
}

// LogPretrained logs what LoadPretrained gave m from dir under the config
// key that named it: loaded and skipped counts and the first skipped
// names, as a warning when most tensors were skipped (a foreign checkpoint
// can match a few tensors by chance).
func LogPretrained(key, dir string, m nn.Module, skipped []string) {
	total := len(m.Params()) + len(nn.Buffers(m))
	shown := skipped
	if len(shown) > 8 {
		shown = shown[:8]
	}
	args := []any{"key", key, "dir", dir, "loaded", total - len(skipped), "skipped", len(skipped), "first_skipped", strings.Join(shown, ",")}
	if len(skipped) > total/2 {
		slog.Warn("pretrained weights: most tensors did not match by name and shape (another model's checkpoint?)", args...)
		return
	}
	slog.Info("pretrained weights", args...)
}
