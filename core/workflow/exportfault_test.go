package workflow

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/graph"
	"paddle/core/io"
	"paddle/core/op"
	"paddle/core/tensor"
)

// reluGraph is y = relu(x), x (?, 4).
func reluGraph() *graph.Graph {
	x := &graph.Value{Name: "x", Meta: op.Meta{DType: tensor.Float32, Shape: tensor.Shape{-1, 4}}}
	y := &graph.Value{Name: "y", Meta: op.Meta{DType: tensor.Float32}}
	return &graph.Graph{Name: "relu", Inputs: []*graph.Value{x}, Outputs: []*graph.Value{y}, Nodes: []*graph.Node{
		{Op: op.Lookup("relu"), In: []*graph.Value{x}, Out: []*graph.Value{y}, Name: "relu"},
	}}
}

// TestHelperWriteExport is not a test: TestExportDiskFull runs it in a child
// process with the fault hook set.
func TestHelperWriteExport(t *testing.T) {
	dir := os.Getenv("PADDLE_TEST_EXPORT_DIR")
	if dir == "" {
		t.Skip("helper process only")
	}
	err := WriteExport(dir, reluGraph(), &Inference{Global: InferenceGlobal{ModelName: os.Getenv("PADDLE_TEST_EXPORT_NAME")}}, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "ERROR:", err)
		os.Exit(1)
	}
}

// TestExportDiskFull runs an export over an earlier one with each of its
// filesystem operations failing in turn (PADDLE_FAULT_FS_ERROR=N:ENOSPC, then
// N:EROFS): each run fails saying why and that the earlier export is
// unchanged, which it is, with no temporary file left; an export into a new
// folder leaves nothing.
func TestExportDiskFull(t *testing.T) {
	run := func(dir, name, fault string) (string, error) {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestHelperWriteExport$")
		cmd.Env = append(os.Environ(), "PADDLE_TEST_EXPORT_DIR="+dir, "PADDLE_TEST_EXPORT_NAME="+name, io.FaultErrorEnv+"="+fault)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		return stderr.String(), err
	}
	root := t.TempDir()
	old := filepath.Join(root, "old")
	if out, err := run(old, "first", ""); err != nil {
		t.Fatalf("first export: %v %s", err, out)
	}
	snapshot := func(dir string) map[string]string {
		m := map[string]string{}
		es, _ := os.ReadDir(dir)
		for _, e := range es {
			b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
			m[e.Name()] = string(b)
		}
		return m
	}
	before := snapshot(old)
	if len(before) != 2 || !strings.Contains(before[ExportInferenceFile], "first") {
		t.Fatalf("first export wrote %v", before)
	}
	for _, c := range []struct{ errno, why string }{{"ENOSPC", "the disk is full"}, {"EROFS", "read-only"}} {
		failed := 0
		for n := 1; n < 40; n++ {
			out, err := run(old, "second", fmt.Sprintf("%d:%s", n, c.errno))
			if err == nil {
				break // past the last operation: the export went through
			}
			failed++
			want := "the export already in " + old + " is unchanged"
			if !strings.Contains(out, c.why) || !strings.Contains(out, want) {
				t.Fatalf("%s at operation %d: %q, want it to say %q and %q", c.errno, n, out, c.why, want)
			}
			if got := snapshot(old); fmt.Sprint(got) != fmt.Sprint(before) {
				t.Fatalf("%s at operation %d: the folder changed to %v", c.errno, n, got)
			}
			if n > 1+3*2+2 { // a new folder has no files to move aside
				continue
			}
			fresh := filepath.Join(root, fmt.Sprintf("new%d%s", n, c.errno))
			out, err = run(fresh, "x", fmt.Sprintf("%d:%s", n, c.errno))
			if _, serr := os.Stat(fresh); err == nil || !os.IsNotExist(serr) || !strings.Contains(out, "nothing was written") {
				t.Fatalf("%s at operation %d into a new folder: %v %q; folder: %v", c.errno, n, err, out, serr)
			}
		}
		if failed != 1+3*2+2*2 { // mkdir; open, write, sync per file; aside and rename per file
			t.Errorf("%s: %d operations failed in turn, want %d", c.errno, failed, 1+3*2+2*2)
		}
		before = snapshot(old) // the run without a fault replaced it
		if !strings.Contains(before[ExportInferenceFile], "second") {
			t.Fatalf("the export without a fault wrote %v", before)
		}
	}
}
