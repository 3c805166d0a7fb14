package clas

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	pio "paddle/core/io"
	"paddle/core/tensor"
	"paddle/core/workflow"
)

// crashArgs is the smallest training: LeNet on digits, 5 steps an epoch,
// 3 epochs, a latest save after each and a best save at the end.
var crashArgs = []string{"clas", "train", "-c", "clas/lenet_digits.yaml", "-o", "Global.epochs=3", "-o", "Global.eval_interval=0",
	"-o", "DataLoader.Train.sampler.batch_size=300"}

// TestTrainCrashChild is the child process of TestTrainSurvivesKillInsideSaves:
// it runs `paddle` with the arguments in $PADDLE_CRASH_CHILD_ARGS (split on
// newlines). Run alone it skips.
func TestTrainCrashChild(t *testing.T) {
	args := os.Getenv("PADDLE_CRASH_CHILD_ARGS")
	if args == "" {
		t.Skip("child process of TestTrainSurvivesKillInsideSaves")
	}
	if code, _, errOut := paddle(t, strings.Split(args, "\n")...); code != 0 {
		t.Fatalf("exit %d:\n%s", code, errOut)
	}
}

// A training killed (SIGKILL) at filesystem steps inside its checkpoint saves
// leaves a complete checkpoint whose step matches its weights, and --resume
// from it finishes with the weights of an uninterrupted run (issue 24). Every
// 9th step is tried; PADDLE_CRASH_EVERY=1 tries them all.
func TestTrainSurvivesKillInsideSaves(t *testing.T) {
	needDigits(t)
	if testing.Short() {
		t.Skip("spawns two trainings per kill point")
	}
	every := 9
	if n, err := strconv.Atoi(os.Getenv("PADDLE_CRASH_EVERY")); err == nil && n > 0 {
		every = n
	}
	// the reference: an uninterrupted run that keeps every epoch's weights
	ref := t.TempDir()
	if code, _, errOut := paddle(t, append(crashArgs, "--output", ref, "-o", "Global.save_interval=1")...); code != 0 {
		t.Fatalf("reference run: exit %d\n%s", code, errOut)
	}
	refAt := map[int]map[string]*tensor.Tensor{}
	for e := 1; e <= 3; e++ {
		dir := filepath.Join(ref, "epoch_"+strconv.Itoa(e))
		refAt[stateStep(t, dir)] = loadWeights(t, dir)
	}
	final := loadWeights(t, filepath.Join(ref, workflow.LatestDir))

	child := func(killAt int, args ...string) (killed bool, stderr string) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestTrainCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), "PADDLE_CRASH_CHILD_ARGS="+strings.Join(args, "\n"), pio.FaultEnv+"="+strconv.Itoa(killAt))
		b, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ProcessState.String() == "signal: killed" {
			return true, string(b)
		}
		if err != nil {
			return false, string(b) + err.Error()
		}
		return false, ""
	}
	points := 0
	for killAt := 1; ; killAt += every {
		out := filepath.Join(t.TempDir(), "out")
		args := append(crashArgs, "--output", out)
		killed, msg := child(killAt, args...)
		if !killed {
			if msg != "" {
				t.Fatalf("kill at %d: the run failed instead:\n%s", killAt, msg)
			}
			break
		}
		points++
		latest := filepath.Join(out, workflow.LatestDir)
		use, _, err := pio.ResolveCheckpoint(latest)
		if err != nil {
			if strings.Contains(msg, "saved checkpoint") && strings.Contains(msg, latest) {
				t.Fatalf("kill at %d: latest was saved, but: %v", killAt, err)
			}
			// killed in the first save: --resume refuses, saying why
			if _, msg := child(0, append(args, "--resume", latest)...); !strings.Contains(msg, "--resume") || !strings.Contains(msg, latest) {
				t.Fatalf("kill at %d: resume without a checkpoint: %q", killAt, msg)
			}
			continue
		}
		step := stateStep(t, use)
		want, ok := refAt[step]
		if !ok {
			t.Fatalf("kill at %d: %s is at step %d, not an epoch end", killAt, use, step)
		}
		sameWeights(t, "kill at "+strconv.Itoa(killAt)+": "+use, loadWeights(t, use), want)
		if _, msg := child(0, append(args, "--resume", latest)...); msg != "" {
			t.Fatalf("kill at %d: resume: %s", killAt, msg)
		}
		sameWeights(t, "kill at "+strconv.Itoa(killAt)+": resumed run", loadWeights(t, latest), final)
	}
	t.Logf("killed training at %d points inside its saves (every %d filesystem steps)", points, every)
	if points < 100/every {
		t.Fatalf("only %d kill points", points)
	}
}

// stateStep is the step a checkpoint's state.yaml records.
func stateStep(t *testing.T, dir string) int {
	t.Helper()
	c, err := pio.LoadCheckpoint(dir)
	if err != nil {
		t.Fatal(err)
	}
	var st workflow.State
	if err := c.DecodeState(&st); err != nil {
		t.Fatal(err)
	}
	return st.Step
}

func sameWeights(t *testing.T, what string, got, want map[string]*tensor.Tensor) {
	t.Helper()
	for name, w := range want {
		if d, ok := tensor.MaxDiff(got[name], w, 0, 0); !ok {
			t.Fatalf("%s: %s differs from the uninterrupted run's by %g", what, name, d)
		}
	}
}
