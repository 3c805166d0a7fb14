package workflow

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"path/filepath"
	"time"

	"paddle/core/ag"
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
func (t *Task[B]) Train(ctx context.Context, env Env, configYAML []byte) (err error) {
	defer guard(&err)
	sch := t.Schedule
	sch.LogEvery = cmpOr(sch.LogEvery, 50)
	sch.AccumSteps = cmpOr(sch.AccumSteps, 1)
	st := State{Seed: t.Seed, BestMetric: -1}
	if env.Resume != "" {
		var from string
		if st, from, err = ResumeCheckpoint(env.Resume, t.Model, t.Optimizer); err != nil {
			return err
		}
		slog.Info("resumed", "from", from, "epoch", st.Epoch, "batch", st.Batch, "step", st.Step)
	}
	save := func(name string) error {
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
		stopped := false // MaxSteps reached inside the epoch
		for b, berr := range t.TrainBatches(ctx, epoch, st.Batch) {
			if berr != nil {
				bar.Finish()
				if ctx.Err() != nil {
					break
				}
				return fmt.Errorf("epoch %d: %w", epoch+1, berr)
			}
			if ctx.Err() != nil {
				break
			}
			info := StepInfo{Epoch: epoch, Step: st.Step, Rand: rand.New(rand.NewPCG(t.Seed, uint64(st.Step)*2654435761+uint64(accum)))}
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
			loss.Backward()
			lossSum += lv
			lossN++
			samples += t.BatchSize
			batch++
			accum++
			bar.Add(1)
			if accum < sch.AccumSteps {
				continue
			}
			accum = 0
			lr := t.LR(st.Step, float64(epoch)+float64(batch)/float64(max(t.StepsPerEpoch, 1)))
			t.Optimizer.SetLR(lr)
			if sch.ClipNorm > 0 {
				optim.ClipGradNorm(params, sch.ClipNorm)
			}
			t.Optimizer.Step()
			t.Optimizer.ZeroGrad()
			st.Step++
			st.Batch = batch
			if st.Step%sch.LogEvery == 0 {
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
		if ctx.Err() != nil {
			nn.ZeroGrad(t.Model)
			if err := save(LatestDir); err != nil {
				return err
			}
			slog.Warn("interrupted", "epoch", epoch+1, "step", st.Step, "checkpoint", filepath.Join(env.Output, LatestDir))
			return ctx.Err()
		}
		if !stopped { // an epoch ended; a budget that ended mid-epoch resumes from st.Batch
			st.Epoch++
			st.Batch = 0
		}
		last := st.Epoch == sch.Epochs || t.done(st)
		if t.EvalBatches != nil && (last || (!stopped && sch.EvalEvery > 0 && st.Epoch%sch.EvalEvery == 0)) {
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

// guard turns an *op.ShapeError raised while running a model into an error.
// Any other panic is a bug and keeps its stack.
func guard(err *error) {
	if r := recover(); r != nil {
		se, ok := r.(*op.ShapeError)
		if !ok {
			panic(r)
		}
		*err = fmt.Errorf("model: %w", se)
	}
}

func cmpOr(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

func round(v float64) float64 { return math.Round(v*1e5) / 1e5 }
