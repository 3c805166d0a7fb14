package workflow

import (
	"context"
	"io"
	"iter"
	"math/rand/v2"

	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/dist"
	"paddle/core/metric"
	"paddle/core/nn"
	"paddle/core/optim"
)

// Schedule says how long to train and how often to log, evaluate and save.
// Kits map their native keys (Global.epochs, Global.epoch_num, iters) onto it.
type Schedule struct {
	Epochs     int     // passes over the training data
	MaxSteps   int     // if > 0, stop after this many optimizer steps in total
	LogEvery   int     // log every N optimizer steps (0: 50)
	EvalEvery  int     // evaluate every N epochs (0: only at the end)
	SaveEvery  int     // save epoch_<n> every N epochs (0: only latest and best)
	AccumSteps int     // gradient accumulation: batches per optimizer step (0: 1)
	ClipNorm   float64 // global gradient-norm clipping (0: off)
}

// StepInfo tells a training step where it is, with a generator seeded from
// (seed, step) so dropout and friends replay identically on resume.
type StepInfo struct {
	Epoch, Step int
	Rand        *rand.Rand
	// Comm is the run's ranks (dist.Local alone). A loss normalised over
	// the whole batch (a mean over the valid pixels, a weighted mean) sums
	// its sums and normalisers over them with nn.SumAcross, so that the
	// ranks' averaged gradients are one process's for the global batch; a
	// mean over samples needs nothing (every rank has as many).
	Comm dist.Comm
}

// Task is what a kit builds from a config for the engine to run. B is the
// kit's batch type; the engine never looks inside it.
type Task[B any] struct {
	Model     nn.Module
	Optimizer optim.Optimizer
	// LR returns the learning rate for a step; epochFrac is epoch + fraction done.
	LR func(step int, epochFrac float64) float64

	// Loss runs the model in training mode on a batch and returns the scalar loss.
	Loss func(b B, info StepInfo) (*ag.Var, error)
	// Evaluate runs the model in eval mode on a batch and feeds Metric.
	Evaluate func(b B) error
	Metric   interface {
		Reset()
		Result() metric.Report
	}

	// TrainBatches yields the batches of one epoch from batch start on,
	// deterministically for a given epoch (the resume guarantee relies on it).
	// EvalBatches yields the evaluation set. BatchSize counts samples for
	// throughput logs.
	TrainBatches  func(ctx context.Context, epoch, start int) iter.Seq2[B, error]
	EvalBatches   func(ctx context.Context) iter.Seq2[B, error]
	StepsPerEpoch int
	BatchSize     int
	// shard makes TrainBatches and StepsPerEpoch one rank's part of every
	// epoch for a distributed run (set by TrainOn); nil: the kit's batches
	// cannot be split, and Train refuses to run distributed.
	shard func(rank, ranks int)
	// reschedule rebuilds LR for epochs of another number of steps (set by
	// BuildOptimizer when its epochs are the loader's).
	reschedule func(stepsPerEpoch int) error

	Schedule Schedule
	Seed     uint64
}

// Bar is a progress indicator of a known number of steps.
type Bar interface {
	Add(n int)
	Describe(s string)
	Finish()
}

// IO is where a Runner reads inputs named "-" from and writes its results
// and progress to. The command line fills it from its standard streams;
// tests and library callers give buffers or leave it zero.
type IO struct {
	In  io.Reader // where inputs named "-" are read from
	Out io.Writer // results: predictions, reports
	// Progress starts a progress bar of total steps (-1: unknown) described
	// by desc; nil shows none.
	Progress func(total int, desc string) Bar
}

// bar starts a progress bar, or a silent one when no Progress is set.
func (o IO) bar(total int, desc string) Bar {
	if o.Progress == nil {
		return noBar{}
	}
	return o.Progress(total, desc)
}

type noBar struct{}

func (noBar) Add(int)         {}
func (noBar) Describe(string) {}
func (noBar) Finish()         {}

// Env is what a command passes down to a Runner.
type Env struct {
	IO      IO
	Config  *config.Config
	Weights string // --weights: a checkpoint directory to evaluate or predict with
	Model   string // --model: an export directory (model.onnx + inference.yaml) to predict with
	Resume  string // --resume: a checkpoint directory to continue training from
	Output  string // --output: where to write (checkpoints, exports, drawings)
	Format  string // resolved --format
	Shard   Shard  // --shard: the part of the predict inputs this run does
	// Comm is the job a distributed training run belongs to (nil: alone).
	// Rank 0 logs, evaluates and writes checkpoints.
	Comm dist.Comm
	// SyncBN (Global.use_sync_bn) makes the model's batch norms compute
	// their training statistics over all ranks' samples (nn.SyncBatchNorm)
	// in a distributed run; per rank otherwise, as PaddlePaddle's default.
	SyncBN bool
}

// Runner is a kit's tasks with their types erased: the shared verbs talk to it.
type Runner interface {
	Train(ctx context.Context, env Env) error
	Eval(ctx context.Context, env Env) (metric.Report, error)
	Predict(ctx context.Context, env Env, inputs []string) error
}
