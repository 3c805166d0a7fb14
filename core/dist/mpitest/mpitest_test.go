// Package mpitest proves distributed training end to end: it runs
// bin/paddle-mpi under mpirun (make build-mpi; skipped without them).
package mpitest

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	pio "paddle/core/io"
)

// setup returns the MPI binary and mpirun, or skips.
func setup(t *testing.T) (bin, mpirun string) {
	bin, _ = filepath.Abs(filepath.Join("..", "..", "..", "bin", "paddle-mpi"))
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("no %s: run `make build-mpi` (needs openmpi-bin and libopenmpi-dev)", bin)
	}
	mpirun, err := exec.LookPath("mpirun")
	if err != nil {
		t.Skip("no mpirun: apt-get install openmpi-bin")
	}
	return bin, mpirun
}

func mpiArgs(np int, bin string, args ...string) []string {
	return append([]string{"-np", itoa(np), "--oversubscribe", "--allow-run-as-root", bin}, args...)
}

func itoa(n int) string { return strconv.Itoa(n) }

func run(t *testing.T, dir, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "OMP_NUM_THREADS=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// compare checks two checkpoints' weights within rel (max abs difference
// over max abs value, per tensor).
func compare(t *testing.T, a, b string, rel float64) {
	t.Helper()
	t.Logf("worst relative difference %.3g", diffs(t, a, b, rel))
}

// worstDiff is the worst per-tensor relative difference of two checkpoints.
func worstDiff(t *testing.T, a, b string) float64 {
	t.Helper()
	return diffs(t, a, b, math.Inf(1))
}

// diffs reports every tensor over rel and returns the worst difference.
func diffs(t *testing.T, a, b string, rel float64) float64 {
	t.Helper()
	ca, err := pio.LoadCheckpoint(a)
	if err != nil {
		t.Fatal(err)
	}
	cb, err := pio.LoadCheckpoint(b)
	if err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for name, x := range ca.Model {
		y, ok := cb.Model[name]
		if !ok {
			t.Fatalf("%s: no %s in %s", name, name, b)
		}
		xv, yv := x.Cast(x.DType()).Contiguous().Float64s(), y.Contiguous().Float64s()
		var num, den float64
		for i := range xv {
			num = max(num, math.Abs(xv[i]-yv[i]))
			den = max(den, math.Abs(xv[i]))
		}
		if d := num / max(den, 1e-12); d > worst {
			worst = d
		}
		if d := num / max(den, 1e-12); d > rel {
			t.Errorf("%s: relative difference %.3g > %g", name, d, rel)
		}
	}
	return worst
}

// TestClasTwoRanksMatchOneProcess: `mpirun -np 2 paddle-mpi clas train` of
// lenet_digits with batch 32 a rank ends with the weights of one process
// with batch 64 and the same seed.
func TestClasTwoRanksMatchOneProcess(t *testing.T) {
	bin, mpirun := setup(t)
	dir := t.TempDir()
	common := []string{"clas", "train", "-c", "clas/lenet_digits.yaml", "-o", "Global.epochs=2", "-o", "Global.eval_interval=2"}
	run(t, dir, bin, append(common, "-o", "DataLoader.Train.sampler.batch_size=64", "--output", "one")...)
	run(t, dir, mpirun, mpiArgs(2, bin, append(common, "--output", "two")...)...)
	compare(t, filepath.Join(dir, "one", "latest"), filepath.Join(dir, "two", "latest"), 1e-5)
}

// TestKilledRankEndsJob: SIGKILL to one rank mid-run ends mpirun non-zero
// within 30 s (Open MPI's mpirun kills the job when a rank dies).
func TestKilledRankEndsJob(t *testing.T) {
	bin, mpirun := setup(t)
	dir := t.TempDir()
	cmd := exec.Command(mpirun, mpiArgs(2, bin, "clas", "train", "-c", "clas/lenet_digits.yaml", "-o", "Global.epochs=1000", "--output", "kill")...)
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var victim int
	for deadline := time.Now().Add(20 * time.Second); victim == 0 && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		victim = rankPID(cmd.Process.Pid, 1)
	}
	if victim == 0 {
		cmd.Process.Kill()
		t.Fatal("rank 1 not found among mpirun's children")
	}
	time.Sleep(2 * time.Second) // mid-run
	start := time.Now()
	syscall.Kill(victim, syscall.SIGKILL)
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("mpirun exited 0 after a rank was killed")
		}
		t.Logf("mpirun ended %v after the kill: %v", time.Since(start).Round(time.Millisecond), err)
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("mpirun still running 30 s after a rank was killed")
	}
}

// rankPID finds the child of mpirun ppid whose OMPI_COMM_WORLD_RANK is rank.
func rankPID(ppid, rank int) int {
	procs, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, p := range procs {
		env, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(env), "OMPI_COMM_WORLD_RANK="+itoa(rank)+"\x00") {
			continue
		}
		stat, err := os.ReadFile(filepath.Join(filepath.Dir(p), "stat"))
		if err != nil {
			continue
		}
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(f) > 1 && f[1] == itoa(ppid) {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
			return pid
		}
	}
	return 0
}

// TestOCRRecTwoRanksMatchOneProcess: `mpirun -np 2 paddle-mpi ocr train`
// of the CRNN recogniser as shipped (ocr/rec_crnn_en.yaml: MiniVGG with
// batch norm, BiLSTM, CTC, RecAug, Adam) with Global.use_sync_bn, 4 steps
// of batch 8 a rank, ends near the weights of one process at batch 16,
// and without SyncBatchNorm (each rank normalising by its own 8 samples,
// PaddlePaddle's default) far from them.
//
// Near, not within 1e-5: this model on these synthetic lines amplifies
// float32 rounding in batch norm (near-constant channels of zero-padded
// margins, max-pool near-ties). One process alone, its fused batch norm
// against the synchronised formula on one rank, already differs by 1.2e-4
// after one step; two ranks against four (both synchronised) by 1.6e-5.
// The bound here is 1e-3; the difference measured is 2e-4–3e-4, and 1.7
// without SyncBatchNorm (docs/distributed.md).
func TestOCRRecTwoRanksMatchOneProcess(t *testing.T) {
	bin, mpirun := setup(t)
	dir := t.TempDir()
	for _, part := range []struct{ name, count, seed string }{{"train", "64", "1"}, {"eval", "16", "7"}} {
		run(t, dir, bin, "ocr", "synth", "--output", "train_data/rec_en/"+part.name, "--charset", "en",
			"--count", part.count, "--max-len", "8", "--seed", part.seed)
	}
	common := []string{"ocr", "train", "-c", "ocr/rec_crnn_en.yaml", "-o", "Global.eval_batch_step=[0,100000]"}
	run(t, dir, bin, append(common, "-o", "Train.loader.batch_size_per_card=16", "--output", "one")...)
	two := mpiArgs(2, bin, append(common, "-o", "Train.loader.batch_size_per_card=8")...)
	run(t, dir, mpirun, append(two, "-o", "Global.use_sync_bn=true", "--output", "sync")...)
	compare(t, filepath.Join(dir, "one", "latest"), filepath.Join(dir, "sync", "latest"), 1e-3)
	run(t, dir, mpirun, append(two, "--output", "perrank")...)
	if d := worstDiff(t, filepath.Join(dir, "one", "latest"), filepath.Join(dir, "perrank", "latest")); d < 1e-3 {
		t.Errorf("per-rank batch norm: worst relative difference %.3g from one process, want a visible one (the test cannot tell)", d)
	}
}
