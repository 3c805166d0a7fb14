package io

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"paddle/core/tensor"
)

// crashState is the state.yaml of the crash tests' checkpoints.
type crashState struct {
	Step int `yaml:"step"`
}

// crashModel is the model a crash test saves at step: every weight is step,
// so a checkpoint's weights show which save wrote them.
func crashModel(step int) map[string]*tensor.Tensor {
	w := tensor.Full(tensor.Float32, float64(step), 64, 64)
	return map[string]*tensor.Tensor{"w": w, "b": tensor.Full(tensor.Float32, float64(step), 64)}
}

// crashSaves are the steps the child saves into one folder, in turn.
const crashSaves = 4

// TestCrashChild is the child process of TestCheckpointSurvivesKillAtEveryStep:
// it saves crashSaves checkpoints into $PADDLE_CRASH_CHILD_DIR, resuming like
// training does, and is killed by FaultEnv somewhere inside. Run alone it skips.
func TestCrashChild(t *testing.T) {
	dir := os.Getenv("PADDLE_CRASH_CHILD_DIR")
	if dir == "" {
		t.Skip("child process of TestCheckpointSurvivesKillAtEveryStep")
	}
	first := 1
	if use, _, err := ResolveCheckpoint(dir); err == nil { // as workflow.ResumeCheckpoint
		if err := RemoveStale(dir); err != nil {
			t.Fatal(err)
		}
		st, err := checkpointStep(use)
		if err != nil {
			t.Fatal(err)
		}
		first = st + 1
	}
	for step := first; step <= crashSaves; step++ {
		cfg := []byte(fmt.Sprintf("step: %d\n", step))
		if err := SaveCheckpoint(dir, crashModel(step), crashModel(-step), crashState{step}, cfg); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(os.Stdout, "saved step %d\n", step)
	}
}

// checkpointStep loads dir and returns its state's step after checking that
// every file agrees with it: weights, optimizer and config.
func checkpointStep(dir string) (int, error) {
	c, err := LoadCheckpoint(dir)
	if err != nil {
		return 0, err
	}
	var st crashState
	if err := c.DecodeState(&st); err != nil {
		return 0, err
	}
	for name, want := range map[string]map[string]*tensor.Tensor{"model": crashModel(st.Step), "optimizer": crashModel(-st.Step)} {
		got := c.Model
		if name == "optimizer" {
			got = c.Optimizer
		}
		for k, w := range want {
			if g := got[k]; g == nil || !g.Shape().Equal(w.Shape()) {
				return 0, fmt.Errorf("%s: %s %s missing or mis-shaped", dir, name, k)
			} else if d, ok := tensor.MaxDiff(g, w, 0, 0); !ok {
				return 0, fmt.Errorf("%s: state step %d but %s %s differs by %g", dir, st.Step, name, k, d)
			}
		}
	}
	if want := fmt.Sprintf("step: %d\n", st.Step); string(c.Config) != want {
		return 0, fmt.Errorf("%s: state step %d but config %q", dir, st.Step, c.Config)
	}
	return st.Step, nil
}

// A process killed (SIGKILL) at any filesystem step inside a save leaves a
// complete checkpoint whose files agree with each other (or, before the
// first save finished, a clear error), and the next run resumes from it and
// finishes with nothing stale left behind (issue 24).
func TestCheckpointSurvivesKillAtEveryStep(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process per step")
	}
	child := func(dir string, killAt int) (killed bool, out string) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), "PADDLE_CRASH_CHILD_DIR="+dir, FaultEnv+"="+strconv.Itoa(killAt))
		b, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ProcessState.String() == "signal: killed" {
			return true, string(b)
		}
		if err != nil {
			t.Fatalf("kill at %d: child failed: %v\n%s", killAt, err, b)
		}
		return false, string(b)
	}
	points := 0
	for killAt := 1; ; killAt++ {
		dir := filepath.Join(t.TempDir(), "out", "latest")
		killed, out := child(dir, killAt)
		if !killed {
			break // the step count ran past the last step: every point is covered
		}
		points++
		saved := strings.Count(out, "saved step ") // saves that returned before the kill
		use, fallback, err := ResolveCheckpoint(dir)
		step := 0
		switch {
		case err != nil && saved == 0:
			// killed inside the first save: nothing complete yet, and resume says why
			if !strings.Contains(err.Error(), "latest") {
				t.Errorf("kill at %d: error %q does not name the checkpoint", killAt, err)
			}
		case err != nil:
			t.Fatalf("kill at %d after %d finished saves: %v", killAt, saved, err)
		default:
			if step, err = checkpointStep(use); err != nil {
				t.Fatalf("kill at %d (fallback %v): %v", killAt, fallback, err)
			}
			if step < saved {
				t.Fatalf("kill at %d: resumes from step %d, but step %d was saved", killAt, step, saved)
			}
		}
		// the next run resumes from what survived and finishes all saves
		if killed, out := child(dir, 0); killed {
			t.Fatalf("kill at %d: resumed child killed:\n%s", killAt, out)
		}
		if got, err := checkpointStep(dir); err != nil || got != crashSaves {
			t.Fatalf("kill at %d (survived step %d): after resume step %d, %v", killAt, step, got, err)
		}
		ents, _ := os.ReadDir(filepath.Dir(dir))
		if len(ents) != 1 {
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			t.Errorf("kill at %d: after resume the output folder holds %v, want only latest", killAt, names)
		}
	}
	t.Logf("killed the saver at %d filesystem steps", points)
	if points < 4*crashSaves {
		t.Fatalf("only %d kill points: the fault hook is not counting steps", points)
	}
}
