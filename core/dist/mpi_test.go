//go:build mpi

package dist

import (
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

// BenchmarkMPIAllreduce times in-place float32 all-reduces of LeNet's
// gradients (21,386 values) and of one 25 MB bucket under mpirun:
// `mpirun -np 2 dist.test -test.run '^$' -test.bench MPI`.
func BenchmarkMPIAllreduce(b *testing.B) {
	c, err := openMPI()
	if err != nil {
		b.Fatal(err)
	}
	// the gradients of shipped configs (parameters, as `train` logs them)
	// and one full bucket (docs/distributed.md's table)
	for _, m := range []struct {
		name string
		n    int
	}{
		{"lenet_digits", 21386}, {"lenet_mnist", 61706}, {"gin_bzr", 68929}, {"rec_crnn_en", 193440},
		{"pplcnet_mnist", 338858}, {"picodet_xs", 402472}, {"resnet_mnist", 701178}, {"unet_synth", 840073},
		{"picodet_s", 852448}, {"pp_liteseg", 1122883}, {"ner_bilstm_crf", 1807354}, {"picodet_m", 1829336},
		{"bucket", 25 << 20 / 4},
	} {
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
}
