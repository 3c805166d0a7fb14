package dist

import (
	"errors"
	"strings"
	"sync"
	"testing"
)

func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{"": Auto, "auto": Auto, "true": Auto, "on": On, "ON": On, "off": Off, "false": Off} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %q, %v, want %q", in, got, err, want)
		}
	}
	if _, err := ParseMode("yes please"); err == nil {
		t.Error("ParseMode(yes please): no error")
	}
}

// TestOpenWithoutMPI: alone, Open gives Local; asked to be distributed, the
// default build says how to get the MPI build.
func TestOpenWithoutMPI(t *testing.T) {
	if Available {
		t.Skip("this is the MPI build")
	}
	t.Setenv("OMPI_COMM_WORLD_SIZE", "")
	c, err := Open(Auto)
	if err != nil || c.Size() != 1 || c.Rank() != 0 {
		t.Fatalf("Open(auto) alone = %v, %v", c, err)
	}
	for _, tc := range []struct {
		mode Mode
		env  string
	}{{On, ""}, {Auto, "2"}} {
		t.Setenv("OMPI_COMM_WORLD_SIZE", tc.env)
		_, err := Open(tc.mode)
		if err == nil || !strings.Contains(err.Error(), "make build-mpi") {
			t.Errorf("Open(%s) with OMPI_COMM_WORLD_SIZE=%q: %v, want the how-to", tc.mode, tc.env, err)
		}
	}
	t.Setenv("OMPI_COMM_WORLD_SIZE", "2")
	if c, err := Open(Off); err != nil || c.Size() != 1 {
		t.Errorf("Open(off) under mpirun = %v, %v, want Local", c, err)
	}
}

// TestGroup: sums, broadcasts and the started all-reduce agree on every rank.
func TestGroup(t *testing.T) {
	const n = 3
	comms := Group(n)
	var wg sync.WaitGroup
	errs := make([]error, n)
	got := make([][]float32, n)
	for r, c := range comms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := []float32{float32(r), 1}
			b := []float64{float64(r) * 10}
			w := []float32{0, 0}
			if r == 1 {
				w = []float32{7, 8}
			}
			err := errors.Join(c.AllreduceF32(a), c.AllreduceF64(b), c.BcastF32(w, 1), c.Barrier())
			req, err2 := c.IallreduceF32(w)
			err = errors.Join(err, err2, req.Wait())
			got[r], errs[r] = []float32{a[0], a[1], float32(b[0]), w[0], w[1]}, err
		}()
	}
	wg.Wait()
	want := []float32{0 + 1 + 2, 3, 30, 21, 24}
	for r := range n {
		if errs[r] != nil || !equal(got[r], want) {
			t.Errorf("rank %d: %v, %v, want %v", r, got[r], errs[r], want)
		}
	}
}

// TestGroupAbort: a rank's Abort frees the ranks waiting in a collective.
func TestGroupAbort(t *testing.T) {
	comms := Group(2)
	errc := make(chan error)
	go func() { errc <- comms[0].AllreduceF32([]float32{1}) }()
	comms[1].Abort(1)
	if err := <-errc; !errors.Is(err, ErrAborted) {
		t.Errorf("rank 0 after rank 1 aborted: %v, want ErrAborted", err)
	}
}

func equal(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
