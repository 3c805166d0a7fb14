package nlp

import (
	"context"
	"os"
	"testing"

	"paddle/core/metric"
	"paddle/core/workflow"
)

// needMeasure skips unless PADDLE_MEASURE is set: the untrained-score
// tests only print the numbers that training floors are measured from.
func needMeasure(t *testing.T) {
	t.Helper()
	if os.Getenv("PADDLE_MEASURE") == "" {
		t.Skip("set PADDLE_MEASURE=1 to print the untrained model's score")
	}
}

// untrainedReport evaluates a freshly initialised model of a runner on its
// eval set.
func untrainedReport[M any, B any](t *testing.T, newModel func(string) (M, error), task func(M, bool) (*workflow.Task[B], error)) metric.Report {
	t.Helper()
	model, err := newModel("")
	if err != nil {
		t.Fatal(err)
	}
	tk, err := task(model, false)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := tk.Eval(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return rep
}
