package workflow

import (
	"math/rand/v2"
	"strings"
	"testing"

	"paddle/core/nn"
	"paddle/core/optim"
)

func TestBuildOptimizer(t *testing.T) {
	lin, err := nn.NewLinear(nn.LinearOptions{In: 2, Out: 1}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	task := &Task[int]{Model: lin}
	c := optim.Config{Name: "Momentum", Momentum: 0.9, LR: optim.LRConfig{Name: "Cosine", LearningRate: 0.1}}
	if err := BuildOptimizer(task, "a.yaml", c, 2, 5); err != nil {
		t.Fatal(err)
	}
	_, sched, err := optim.Build(c, lin.Params(), 2, 5)
	if err != nil {
		t.Fatal(err)
	}
	if task.Optimizer == nil {
		t.Fatal("no optimizer")
	}
	for _, step := range []int{0, 3, 9} {
		if got, want := task.LR(step, 0), sched.LR(step); got != want {
			t.Errorf("LR(%d) = %g, want %g (the schedule's)", step, got, want)
		}
	}
	if task.LR(0, 0) == task.LR(9, 0) {
		t.Errorf("cosine LR constant: %g", task.LR(0, 0))
	}
	if err := BuildOptimizer(task, "a.yaml", optim.Config{Name: "Nope"}, 1, 1); err == nil || !strings.HasPrefix(err.Error(), "a.yaml: ") {
		t.Errorf("unknown optimizer: error %v, want one naming a.yaml", err)
	}
}
