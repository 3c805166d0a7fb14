//go:build mpi

package dist

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestMPICollectives runs under mpirun (`go test -c -tags mpi` then
// `mpirun -np 2 dist.test -test.run MPI`); alone it checks the one-rank job.
func TestMPICollectives(t *testing.T) {
	c, err := openMPI()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(c.Name(), "mpi (") {
		t.Errorf("Name() = %q", c.Name())
	}
	n, r := c.Size(), c.Rank()
	a := []float32{float32(r), 1}
	b := []float64{float64(r) + 0.5}
	if err := c.AllreduceF32(a); err != nil {
		t.Fatal(err)
	}
	if err := c.AllreduceF64(b); err != nil {
		t.Fatal(err)
	}
	if want := float32(n * (n - 1) / 2); a[0] != want || a[1] != float32(n) {
		t.Errorf("rank %d: AllreduceF32 = %v, want [%v %d]", r, a, want, n)
	}
	if want := float64(n*(n-1)/2) + 0.5*float64(n); b[0] != want {
		t.Errorf("rank %d: AllreduceF64 = %v, want %v", r, b, want)
	}
	w := c.NewF32(3)
	if r == 0 {
		w[0], w[1], w[2] = 1, 2, 3
	}
	if err := c.BcastF32(w, 0); err != nil {
		t.Fatal(err)
	}
	req, err := c.IallreduceF32(w)
	if err != nil {
		t.Fatal(err)
	}
	if err := req.Wait(); err != nil {
		t.Fatal(err)
	}
	if w[2] != 3*float32(n) {
		t.Errorf("rank %d: Bcast then Iallreduce = %v, want 3×%d at [2]", r, w, n)
	}
	if err := c.Barrier(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil { // MPI_Finalize: mpirun wants every rank to call it
		t.Fatal(err)
	}
}

// allreduceSizes are the float counts BenchmarkMPIAllreduce times:
// PADDLE_ALLREDUCE_SIZES (name=count,..., as scripts/allreduce passes the
// shipped configs' sizes), else LeNet's gradients and one full bucket.
func allreduceSizes(b *testing.B) []allreduceSize {
	env := os.Getenv("PADDLE_ALLREDUCE_SIZES")
	if env == "" {
		return []allreduceSize{{"lenet_digits", 21386}, {"bucket", 25 << 20 / 4}}
	}
	var out []allreduceSize
	for _, f := range strings.Split(env, ",") {
		name, v, ok := strings.Cut(f, "=")
		n, err := strconv.Atoi(v)
		if !ok || err != nil || n <= 0 {
			b.Fatalf("PADDLE_ALLREDUCE_SIZES: %q is not name=count (count > 0)", f)
		}
		out = append(out, allreduceSize{name, n})
	}
	return out
}

type allreduceSize struct {
	name string
	n    int
}

// BenchmarkMPIAllreduce times in-place float32 all-reduces of
// allreduceSizes under mpirun:
// `mpirun -np 2 dist.test -test.run '^$' -test.bench MPI`.
func BenchmarkMPIAllreduce(b *testing.B) {
	c, err := openMPI()
	if err != nil {
		b.Fatal(err)
	}
	for _, m := range allreduceSizes(b) {
		n := m.n
		buf := c.NewF32(n)
		b.Run(m.name+"_"+strconv.Itoa(4*n)+"B", func(b *testing.B) {
			b.SetBytes(int64(4 * n))
			for b.Loop() {
				if err := c.AllreduceF32(buf); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	if err := c.Close(); err != nil { // MPI_Finalize: mpirun wants every rank to call it
		b.Fatal(err)
	}
}
