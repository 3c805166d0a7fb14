package workflow

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"path/filepath"
	"time"

	"paddle/core/ag"
	"paddle/core/dist"
	"paddle/core/metric"
	"paddle/core/nn"
	"paddle/core/op"
	"paddle/core/optim"
)

// Checkpoint folder names inside the output directory.
const (
	LatestDir = "latest"
	BestDir   = "best"
)

// Train runs the training loop: optimizer steps with gradient accumulation
// and clipping, logs every Schedule.LogEvery steps, evaluation and best-model
// tracking, a `latest` checkpoint after every epoch, and exact resume. On
// Ctrl-C (ctx cancelled) it saves `latest` and returns ctx.Err() (context.Canceled).
//
// With env.Comm of several ranks it is one rank of a data-parallel run
// (distributed.go): rank 0's weights are broadcast, each rank reads its part
// of every epoch, gradients are averaged across the ranks before each
// optimizer step, only rank 0 evaluates and saves, and a failing rank
// aborts them all.
func (t *Task[B]) Train(ctx context.Context, env Env, configYAML []byte) (err error) {
	var d *ranks
	defer func() {
		if d != nil {
			d.close()
			err = d.fail(err)
		}
	}()
	defer guard(&err)
	st := State{Seed: t.Seed, BestMetric: -1}
	if env.Resume != "" {
		var from string
		if st, from, err = ResumeCheckpoint(env.Resume, t.Model, t.Optimizer); err != nil {
			return err
		}
		slog.Info("resumed", "from", from, "epoch", st.Epoch, "batch", st.Batch, "step", st.Step)
	}
	if d, err = t.distribute(env.Comm, env.SyncBN, &st); err != nil {
		return err
	}
	sch := t.Schedule // as distribute left it
	sch.LogEvery = cmpOr(sch.LogEvery, 50)
	sch.AccumSteps = cmpOr(sch.AccumSteps, 1)
	if !d.root() {
		env.IO.Progress = nil
	}
	save := func(name string) error {
		if !d.root() {
			return nil
		}
		dir := filepath.Join(env.Output, name)
		if err := SaveCheckpoint(dir, t.Model, t.Optimizer, st, configYAML); err != nil {
			return err
		}
		slog.Info("saved checkpoint", "dir", dir)
		return nil
	}
	params := t.Model.Params()
	for st.Epoch < sch.Epochs && !t.done(st) {
		epoch := st.Epoch
		bar := env.IO.bar(t.StepsPerEpoch, fmt.Sprintf("epoch %d/%d", epoch+1, sch.Epochs))
		var lossSum float64
		var lossN, samples int
		tick := time.Now()
		batch := st.Batch // resuming mid-epoch: the loader starts after the batches done
		accum := 0
		stopped := false     // MaxSteps reached inside the epoch
		interrupted := false // ctx done (on any rank)
		for b, berr := range t.TrainBatches(d.batches(ctx), epoch, st.Batch) {
			if berr != nil {
				bar.Finish()
				if ctx.Err() != nil && !d.many() {
					interrupted = true
					break
				}
				return fmt.Errorf("epoch %d: %w", epoch+1, berr)
			}
			if interrupted, err = d.stop(ctx); err != nil {
				return err
			} else if interrupted {
				break
			}
			info := StepInfo{Epoch: epoch, Step: st.Step, Rand: rand.New(rand.NewPCG(t.Seed, uint64(st.Step)*2654435761+uint64(accum))), Comm: d.c}
			loss, err := t.Loss(b, info)
			if err != nil {
				return fmt.Errorf("epoch %d batch %d: %w", epoch+1, batch+1, err)
			}
			lv := loss.Item()
			if math.IsNaN(lv) || math.IsInf(lv, 0) {
				return fmt.Errorf("epoch %d step %d: loss is %v; lower the learning rate or check the data", epoch+1, st.Step+1, lv)
			}
			if sch.AccumSteps > 1 {
				loss = ag.MulScalar(loss, 1/float64(sch.AccumSteps))
			}
			if accum+1 == sch.AccumSteps {
				d.arm() // the step's last backward pass: start averaging gradients during it
			}
			loss.Backward()
			lossSum += lv
			lossN++
			samples += t.BatchSize * d.c.Size()
			batch++
			accum++
			bar.Add(1)
			if accum < sch.AccumSteps {
				continue
			}
			accum = 0
			lr := t.LR(st.Step, float64(epoch)+float64(batch)/float64(max(t.StepsPerEpoch, 1)))
			t.Optimizer.SetLR(lr)
			if err := d.averageGrads(); err != nil {
				return err
			}
			if sch.ClipNorm > 0 {
				optim.ClipGradNorm(params, sch.ClipNorm)
			}
			t.Optimizer.Step()
			t.Optimizer.ZeroGrad()
			st.Step++
			st.Batch = batch
			if st.Step%sch.LogEvery == 0 && d.root() {
				el := time.Since(tick).Seconds()
				slog.Info("train", "epoch", epoch+1, "step", st.Step, "loss", round(lossSum/float64(lossN)), "lr", lr,
					"samples/s", round(float64(samples)/el))
				lossSum, lossN, samples, tick = 0, 0, 0, time.Now()
			}
			if t.done(st) {
				stopped = batch < t.StepsPerEpoch
				break
			}
		}
		bar.Finish()
		if interrupted {
			nn.ZeroGrad(t.Model)
			if err := save(LatestDir); err != nil {
				return err
			}
			if d.root() {
				slog.Warn("interrupted", "epoch", epoch+1, "step", st.Step, "checkpoint", filepath.Join(env.Output, LatestDir))
			}
			return cmp.Or(ctx.Err(), context.Canceled) // another rank was interrupted
		}
		if !stopped { // an epoch ended; a budget that ended mid-epoch resumes from st.Batch
			st.Epoch++
			st.Batch = 0
		}
		last := st.Epoch == sch.Epochs || t.done(st)
		if d.root() && t.EvalBatches != nil && (last || (!stopped && sch.EvalEvery > 0 && st.Epoch%sch.EvalEvery == 0)) {
			rep, err := t.Eval(WithProgress(ctx, env.IO))
			if err != nil {
				return err
			}
			st.Metric, st.LastMetric = rep.Main, rep.MainValue()
			slog.Info("eval", "epoch", st.Epoch, "step", st.Step, "metrics", rep.String(), "samples", rep.Count)
			if rep.MainValue() > st.BestMetric {
				st.BestMetric, st.BestEpoch = rep.MainValue(), st.Epoch
				if err := save(BestDir); err != nil {
					return err
				}
			}
		}
		if !stopped && sch.SaveEvery > 0 && st.Epoch%sch.SaveEvery == 0 {
			if err := save(fmt.Sprintf("epoch_%d", st.Epoch)); err != nil {
				return err
			}
		}
		if err := save(LatestDir); err != nil {
			return err
		}
	}
	return nil
}

// distribute joins the run to comm's ranks (nil: alone): rank 0's weights
// everywhere, this rank's part of the data, and a mid-epoch resume point
// st saved with another number of ranks moved to the same samples.
func (t *Task[B]) distribute(comm dist.Comm, syncBN bool, st *State) (*ranks, error) {
	d, err := newRanks(comm, t.Model, BucketBytes)
	if err != nil {
		return nil, err
	}
	n := d.c.Size()
	synced := 0
	if d.many() && syncBN {
		if synced = nn.SyncBatchNorm(t.Model, d.c); d.root() {
			slog.Info("synchronised batch norm", "layers", synced)
		}
	}
	if d.many() && synced == 0 { // no collectives of the model's own in the backward pass
		d.overlap()
	}
	if d.many() {
		if t.shard == nil {
			return nil, errors.New("this model's training data cannot be split across ranks yet: train alone (-o Global.distributed=off, without mpirun)")
		}
		alone := t.StepsPerEpoch
		t.shard(d.c.Rank(), n)
		if t.StepsPerEpoch == 0 {
			return nil, fmt.Errorf("the training set gives no batch per rank with %d ranks", n)
		}
		t.keepSteps(alone, *st)
		if t.reschedule != nil { // the schedule's epochs are of global batches
			if err := t.reschedule(t.StepsPerEpoch); err != nil {
				return nil, err
			}
		}
	}
	// An epoch's first k global batches are the first k×global samples of
	// its order (data.DistributedBatch), so a resume point converts.
	global := t.BatchSize * n
	if old := cmpOr(st.GlobalBatch, t.BatchSize); st.Batch > 0 && old != global {
		b := st.Batch * old / global
		slog.Warn("resuming mid-epoch with another global batch", "ranks", n, "global_batch", global, "saved_with", old,
			"batch", b, "repeated_samples", st.Batch*old-b*global)
		st.Batch = b
	}
	st.Ranks, st.GlobalBatch = 0, 0
	if n > 1 {
		st.Ranks, st.GlobalBatch = n, global
	}
	return d, nil
}

// keepSteps fits a schedule counted in steps (MaxSteps: PaddleSeg's iters)
// to epochs of t.StepsPerEpoch steps instead of alone (a rank's share):
// the run still makes MaxSteps optimizer steps of the global batch, as
// PaddleSeg's iters do on several cards, with enough epochs for them from
// the resume point st, and evaluates and saves about as many steps apart.
func (t *Task[B]) keepSteps(alone int, st State) {
	s := &t.Schedule
	per := t.StepsPerEpoch
	if s.MaxSteps <= 0 || per == alone {
		return
	}
	s.Epochs = max((s.MaxSteps+per-1)/per, st.Epoch+(s.MaxSteps-st.Step+per-1)/per)
	rescale := func(every int) int {
		if every <= 0 {
			return every
		}
		return max(1, (every*alone+per/2)/per)
	}
	s.EvalEvery, s.SaveEvery = rescale(s.EvalEvery), rescale(s.SaveEvery)
}

func (t *Task[B]) done(st State) bool {
	return t.Schedule.MaxSteps > 0 && st.Step >= t.Schedule.MaxSteps
}

// Eval runs the model over the evaluation batches without recording a graph
// and returns the metric report.
func (t *Task[B]) Eval(ctx context.Context) (rep metric.Report, err error) {
	defer guard(&err)
	t.Metric.Reset()
	bar := progressBar(ctx, -1, "eval batches")
	defer bar.Finish()
	ag.NoGrad(func() {
		for b, berr := range t.EvalBatches(ctx) {
			if berr != nil {
				err = berr
				return
			}
			if err = t.Evaluate(b); err != nil {
				return
			}
			bar.Add(1)
		}
	})
	if err != nil {
		return rep, fmt.Errorf("eval: %w", err)
	}
	return t.Metric.Result(), nil
}

// guard turns an *op.ShapeError raised while running a model, or an
// *nn.CollectiveError of a synchronised batch norm, into an error. Any
// other panic is a bug and keeps its stack.
func guard(err *error) {
	if r := recover(); r != nil {
		switch e := r.(type) {
		case *op.ShapeError:
			*err = fmt.Errorf("model: %w", e)
		case *nn.CollectiveError:
			*err = e
		default:
			panic(r)
		}
	}
}

func cmpOr(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

func round(v float64) float64 { return math.Round(v*1e5) / 1e5 }
