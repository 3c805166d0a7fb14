package train

import (
	"math/rand/v2"
	"strings"
	"testing"

	"paddle/core/nn"
	"paddle/core/optim"
	"paddle/core/workflow"
)

func TestEvalEpochs(t *testing.T) {
	tests := []struct {
		v     any
		steps int
		want  int
	}{
		{nil, 10, 0},
		{0, 10, 0},
		{25, 10, 3}, // 2.5 rounds to 3
		{24, 10, 2}, // 2.4 rounds to 2
		{3, 100, 1}, // at least one epoch
		{[]any{0, 40}, 20, 2},
		{[]any{0, -1}, 20, 0},
		{[]any{40}, 20, 0}, // not [start, every]
		{"40", 20, 0},      // not a number
		{[]any{0, "x"}, 20, 0},
	}
	for _, tt := range tests {
		if got := EvalEpochs(tt.v, tt.steps); got != tt.want {
			t.Errorf("EvalEpochs(%v, %d) = %d, want %d", tt.v, tt.steps, got, tt.want)
		}
	}
}

func TestOptimizeAndPretrained(t *testing.T) {
	lin, err := nn.NewLinear(nn.LinearOptions{In: 2, Out: 1}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	task := &workflow.Task[int]{Model: lin, StepsPerEpoch: 10}
	s := Steps{EpochNum: 0, MaxSteps: 7, PrintBatchStep: 3, SaveEpochStep: 2, EvalBatchStep: []any{0, 20}}
	if err := Optimize(task, "x.yml", optim.Config{Name: "Momentum", Momentum: 0.9, LR: optim.LRConfig{LearningRate: 0.5}}, s); err != nil {
		t.Fatal(err)
	}
	want := workflow.Schedule{Epochs: 1, MaxSteps: 7, LogEvery: 3, EvalEvery: 2, SaveEvery: 2}
	if task.Optimizer == nil || task.Schedule != want {
		t.Errorf("optimizer %v, schedule %+v, want %+v", task.Optimizer, task.Schedule, want)
	}
	if lr := task.LR(3, 0.3); lr != 0.5 {
		t.Errorf("LR(3) = %g, want 0.5", lr)
	}
	if err := Optimize(task, "x.yml", optim.Config{Name: "Nope"}, s); err == nil || !strings.HasPrefix(err.Error(), "x.yml: ") {
		t.Errorf("unknown optimizer: error %v, want one naming x.yml", err)
	}

	if err := Pretrained(lin, ""); err != nil {
		t.Errorf("Pretrained(\"\") = %v", err)
	}
	if err := Pretrained(lin, t.TempDir()); err == nil || !strings.HasPrefix(err.Error(), "Global.pretrained_model: ") {
		t.Errorf("Pretrained(empty folder) = %v, want an error naming Global.pretrained_model", err)
	}
}
