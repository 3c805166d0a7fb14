package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/ag"
	"paddle/core/metric"
	"paddle/core/nn"
	"paddle/core/op"
	"paddle/core/optim"
	"paddle/core/tensor"
)

// batch is a toy batch: x (4, 2) and y = x·[2, -3] + 1.
type batch struct{ x, y *tensor.Tensor }

type mse struct{ sum, n float64 }

func (m *mse) Reset() { *m = mse{} }
func (m *mse) Result() metric.Report {
	// higher is better: negative mean squared error
	return metric.Report{Main: "neg_mse", Values: map[string]float64{"neg_mse": -m.sum / max(m.n, 1)}, Count: int(m.n)}
}

// toyTask fits a Linear(2, 1) by SGD on 8 fixed batches per epoch.
func toyTask(t *testing.T, onLoss func(step int) error) *Task[batch] {
	t.Helper()
	lin, err := nn.NewLinear(nn.LinearOptions{In: 2, Out: 1}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	opt, err := optim.NewSGD(lin.Params(), optim.SGDOptions{LR: 0.1, Momentum: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	data := func(epoch, start int) iter.Seq2[batch, error] {
		return func(yield func(batch, error) bool) {
			for i := start; i < 8; i++ {
				r := rand.New(rand.NewPCG(uint64(epoch), uint64(i)))
				x := tensor.Rand(r, tensor.Float32, -1, 1, 4, 2)
				xv := x.F32()
				y := tensor.New(tensor.Float32, 4, 1)
				for j := range 4 {
					y.F32()[j] = 2*xv[2*j] - 3*xv[2*j+1] + 1
				}
				if !yield(batch{x, y}, nil) {
					return
				}
			}
		}
	}
	m := &mse{}
	task := &Task[batch]{
		Model: lin, Optimizer: opt, Seed: 7, StepsPerEpoch: 8, BatchSize: 4, Metric: m,
		LR: func(int, float64) float64 { return 0.1 },
		Loss: func(b batch, info StepInfo) (*ag.Var, error) {
			if onLoss != nil {
				if err := onLoss(info.Step); err != nil {
					return nil, err
				}
			}
			d := ag.Sub(lin.Forward(ag.Const(b.x), true), ag.Const(b.y))
			return ag.Mean(ag.Mul(d, d), nil, false), nil
		},
		Evaluate: func(b batch) error {
			d := op.Sub(lin.Forward(ag.Const(b.x), false).T, b.y)
			for _, v := range d.F32() {
				m.sum += float64(v * v)
				m.n++
			}
			return nil
		},
		TrainBatches: func(_ context.Context, epoch, start int) iter.Seq2[batch, error] { return data(epoch, start) },
		EvalBatches:  func(context.Context) iter.Seq2[batch, error] { return data(99, 0) },
		Schedule:     Schedule{Epochs: 3, LogEvery: 4},
	}
	return task
}

func env(t *testing.T) Env {
	return Env{IO: IO{Out: io.Discard}, Output: t.TempDir()}
}

func TestTrainLearnsAndSavesBest(t *testing.T) {
	task := toyTask(t, nil)
	e := env(t)
	before, err := task.Eval(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := task.Train(context.Background(), e, []byte("Global: {}\n")); err != nil {
		t.Fatal(err)
	}
	rep, err := task.Eval(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("neg MSE untrained %.3f, trained %.3f", before.MainValue(), rep.MainValue())
	// 24 momentum-SGD steps must cut the error at least fourfold
	if rep.MainValue() < before.MainValue()/4 {
		t.Fatalf("eval %v (untrained %v): the toy regression did not learn", rep, before)
	}
	for _, dir := range []string{LatestDir, BestDir} {
		for _, f := range []string{"model.safetensors", "optimizer.safetensors", "state.yaml", "config.yaml"} {
			if _, err := os.Stat(filepath.Join(e.Output, dir, f)); err != nil {
				t.Errorf("%s/%s missing", dir, f)
			}
		}
	}
	st, _ := os.ReadFile(filepath.Join(e.Output, LatestDir, "state.yaml"))
	if !strings.Contains(string(st), "epoch: 3") || !strings.Contains(string(st), "step: 24") {
		t.Fatalf("state.yaml:\n%s", st)
	}
}

// Ctrl-C (a cancelled context) saves `latest` at the last finished step and
// returns context.Canceled; resuming from it finishes with the same weights as an
// uninterrupted run.
func TestInterruptSavesAndResumes(t *testing.T) {
	full := toyTask(t, nil)
	if err := full.Train(context.Background(), env(t), nil); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	task := toyTask(t, func(step int) error {
		if step == 11 {
			cancel()
		}
		return nil
	})
	e := env(t)
	err := task.Train(ctx, e, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	st, _ := os.ReadFile(filepath.Join(e.Output, LatestDir, "state.yaml"))
	if !strings.Contains(string(st), "step: 12") || !strings.Contains(string(st), "batch: 4") {
		t.Fatalf("state after interrupt:\n%s", st)
	}
	resumed := toyTask(t, nil)
	e.Resume = filepath.Join(e.Output, LatestDir)
	if err := resumed.Train(context.Background(), e, nil); err != nil {
		t.Fatal(err)
	}
	a, b := nn.State(full.Model), nn.State(resumed.Model)
	for k := range a {
		if d, ok := tensor.MaxDiff(a[k], b[k], 0, 0); !ok {
			t.Errorf("%s differs by %g after interrupt + resume", k, d)
		}
	}
}

func TestTrainReportsBadLossAndShapeErrors(t *testing.T) {
	task := toyTask(t, func(step int) error {
		if step == 2 {
			return fmt.Errorf("boom")
		}
		return nil
	})
	err := task.Train(context.Background(), env(t), nil)
	if err == nil || !strings.Contains(err.Error(), "epoch 1 batch 3: boom") {
		t.Fatalf("err = %v", err)
	}
	task = toyTask(t, nil)
	task.Loss = func(b batch, _ StepInfo) (*ag.Var, error) {
		return ag.MatMul(ag.Const(b.x), ag.Const(b.x), false, false), nil // (4,2)·(4,2): a model bug
	}
	err = task.Train(context.Background(), env(t), nil)
	var se *op.ShapeError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "model: matmul") {
		t.Fatalf("err = %v, want a model shape error", err)
	}
}

func TestExpandInputs(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"b/2.png", "b/1.jpg", "a.png", "b/notes.txt"} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755)
		os.WriteFile(filepath.Join(dir, p), nil, 0o644)
	}
	stdin := strings.NewReader(filepath.Join(dir, "x.png") + "\n\n" + filepath.Join(dir, "a.png") + "\n")
	got, err := ExpandInputs([]string{filepath.Join(dir, "b"), filepath.Join(dir, "*.png"), "-", filepath.Join(dir, "missing.png"), filepath.Join(dir, "*.gif")}, stdin, ImageExts)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, in := range got {
		n, _ := filepath.Rel(dir, in.Path)
		if in.Err != nil {
			n += "!"
		}
		names = append(names, n)
	}
	want := "b/1.jpg b/2.png a.png x.png a.png missing.png! *.gif!"
	if strings.Join(names, " ") != want {
		t.Fatalf("got %v\nwant %v", names, want)
	}
}

func TestRunOrderedKeepsOrderAndErrors(t *testing.T) {
	var inputs []Input
	for i := range 20 {
		inputs = append(inputs, Input{Path: fmt.Sprint(i)})
	}
	inputs[5].Err = errors.New("unreadable")
	var order []string
	failed, err := RunOrdered(context.Background(), inputs, 4, func(_ context.Context, in Input) (string, error) {
		if in.Path == "13" {
			return "", errors.New("bad")
		}
		return "ok" + in.Path, nil
	}, func(r Result[string]) error {
		order = append(order, r.Input.Path)
		return nil
	})
	if err != nil || failed != 2 {
		t.Fatalf("failed %d, err %v", failed, err)
	}
	for i, p := range order {
		if p != fmt.Sprint(i) {
			t.Fatalf("order %v", order)
		}
	}
}

func TestPrinterFormats(t *testing.T) {
	type row struct {
		Name string `json:"name"`
		N    int    `json:"n"`
	}
	text := func(r row) string { return fmt.Sprintf("%s=%d\n", r.Name, r.N) }
	for format, want := range map[string]string{
		"jsonl": "{\"name\":\"a\",\"n\":1}\n{\"name\":\"b\",\"n\":2}\n",
		"json":  "[\n  {\n    \"name\": \"a\",\n    \"n\": 1\n  },\n  {\n    \"name\": \"b\",\n    \"n\": 2\n  }\n]\n",
		"text":  "a=1\nb=2\n",
	} {
		var b strings.Builder
		p := NewPrinter(&b, format, KeyText, text)
		for _, r := range []row{{"a", 1}, {"b", 2}} {
			if err := p.Print(r); err != nil {
				t.Fatal(err)
			}
		}
		if err := p.Close(); err != nil || b.String() != want {
			t.Errorf("%s: got %q, want %q (%v)", format, b.String(), want, err)
		}
	}
}

func TestPrinterFinish(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name         string
		failed       int
		err          error
		want, output string
	}{
		{"ok", 0, nil, "", "[]\n"},
		{"some failed", 2, nil, "2 of 5 inputs failed", "[]\n"},
		{"run error", 1, boom, "boom", ""}, // not closed: the run's error wins
	}
	for _, tt := range tests {
		var b strings.Builder
		err := NewPrinter(&b, "json", KeyImage, func(int) string { return "" }).Finish(tt.failed, 5, tt.err)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want || b.String() != tt.output {
			t.Errorf("%s: error %q, output %q; want %q, %q", tt.name, got, b.String(), tt.want, tt.output)
		}
	}
}

// A failed input's record is {"<key>": input, "error": "..."} in every
// format, between the other records, and nothing is HTML-escaped.
func TestPrinterFail(t *testing.T) {
	type rec struct {
		Audio string  `json:"audio"`
		Score float64 `json:"score"`
	}
	text := func(r rec) string { return fmt.Sprintf("%s\t%.1f\n", r.Audio, r.Score) }
	for format, want := range map[string]string{
		"jsonl": `{"audio":"a<1>.wav","score":0}` + "\n" + `{"audio":"b&.wav","error":"no samples"}` + "\n",
		"json":  "[\n  {\n    \"audio\": \"a<1>.wav\",\n    \"score\": 0\n  },\n  {\n    \"audio\": \"b&.wav\",\n    \"error\": \"no samples\"\n  }\n]\n",
		"text":  "a<1>.wav\t0.0\nb&.wav\terror: no samples\n",
	} {
		var b strings.Builder
		p := NewPrinter(&b, format, KeyAudio, text)
		emit := PrintResults(p, func(r Result[float64]) rec { return rec{Audio: r.Input.Path, Score: r.Value} })
		if err := emit(Result[float64]{Input: Input{Path: "a<1>.wav"}}); err != nil {
			t.Fatal(err)
		}
		if err := emit(Result[float64]{Input: Input{Path: "b&.wav"}, Err: errors.New("no samples")}); err != nil {
			t.Fatal(err)
		}
		if err := p.Close(); err != nil || b.String() != want {
			t.Errorf("%s: got %q, want %q (%v)", format, b.String(), want, err)
		}
	}
	if b, err := json.Marshal(Failed{Key: KeyText, Input: nil, Error: "x.txt: no such file"}); err != nil || string(b) != `{"text":null,"error":"x.txt: no such file"}` {
		t.Errorf("Failed with no input: %s %v", b, err)
	}
}
