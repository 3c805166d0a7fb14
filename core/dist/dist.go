// Package dist is how training processes talk to each other: a Comm of
// Size ranks with broadcast, sum all-reduce (blocking and started in the
// background), a barrier and abort. The default build has only one-process
// Comms (Local, and Group for tests: ranks as goroutines); the build tag
// `mpi` adds Open MPI (mpi_cgo.go) for `mpirun -np N paddle-mpi … train`.
//
// Where things are:
//
//	dist.go      Comm, Request, Mode, Open's rules, Launched (mpirun's variables)
//	local.go     Local: the one-rank Comm
//	group.go     Group: n ranks in one process (goroutines), for tests
//	mpi_cgo.go   the Open MPI Comm (build tag mpi)
//	mpi_none.go  the default build's Open: says how to get the MPI build
package dist

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// A Comm is a fixed set of Size ranks that run the same program. Every
// rank must call the collective methods (Bcast*, Allreduce*, Iallreduce*,
// Barrier) in the same order with buffers of the same length; a method
// returns when this rank's part is done. Allreduce sums in place; every rank
// gets bitwise the same result. Methods may be called from one goroutine
// at a time.
type Comm interface {
	Rank() int
	Size() int
	BcastF32(buf []float32, root int) error
	BcastF64(buf []float64, root int) error
	AllreduceF32(buf []float32) error
	AllreduceF64(buf []float64) error
	// IallreduceF32 starts summing buf across the ranks and returns at once;
	// buf must not be touched until the Request's Wait returns. Buffers from
	// NewF32 are the ones an MPI build can reduce without copying.
	IallreduceF32(buf []float32) (Request, error)
	// NewF32 returns a buffer of n float32s for IallreduceF32 (in an MPI
	// build: memory outside Go's heap, so MPI may keep it while it works).
	NewF32(n int) []float32
	Barrier() error
	// Abort ends every rank of the job with exit code code, now. It is for
	// errors: a rank that fails alone would leave the others waiting.
	Abort(code int)
	// Close ends the Comm (MPI_Finalize). Collectives after Close fail.
	Close() error
	// Name says what the Comm is, for `paddle env` and logs: "local",
	// "mpi (Open MPI v4.1.4)".
	Name() string
}

// A Request is an all-reduce in flight.
type Request interface {
	// Wait blocks until the all-reduce is done and its buffer holds the sum.
	Wait() error
}

// Mode is Global.distributed: whether a training run may, must or must not
// be one of several ranks.
type Mode string

// The Global.distributed values.
const (
	// Auto trains distributed when started by mpirun with more than one
	// process (OMPI_COMM_WORLD_SIZE > 1), alone otherwise. The default.
	Auto Mode = "auto"
	// On requires a distributed run: the MPI build started by mpirun.
	On Mode = "on"
	// Off trains alone even under mpirun.
	Off Mode = "off"
)

// ParseMode reads a Global.distributed value: auto, on or off; true (as
// PaddleOCR's configs write it) is auto, false off; "" is auto.
func ParseMode(s string) (Mode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto", "true":
		return Auto, nil
	case "on":
		return On, nil
	case "off", "false":
		return Off, nil
	}
	return "", fmt.Errorf("%q: want auto, on or off", s)
}

// Launched returns the number of processes mpirun (Open MPI's, or a PMI
// launcher such as Slurm's srun or MPICH's Hydra) started this one among,
// from their environment variables; 0 when none is set.
func Launched() int {
	for _, k := range []string{"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"} {
		if n, err := strconv.Atoi(os.Getenv(k)); err == nil && n > 0 {
			return n
		}
	}
	return 0
}

// Open returns the Comm a training run uses under mode: Local unless the
// run is distributed (mode On, or Auto under a launcher with more than one
// process), then MPI's, or an error saying how to get it in a build
// without MPI. Call it once per process.
func Open(mode Mode) (Comm, error) {
	n := Launched()
	switch {
	case mode == Off || (mode == Auto && n <= 1):
		return Local{}, nil
	case !Available:
		why := "Global.distributed is on"
		if mode == Auto {
			why = fmt.Sprintf("started by mpirun with %d processes", n)
		}
		return nil, fmt.Errorf("distributed training (%s) needs the MPI build of paddle: "+
			"install Open MPI (apt-get install openmpi-bin libopenmpi-dev), run `make build-mpi` and start "+
			"bin/paddle-mpi with mpirun -np N; or set -o Global.distributed=off (-o distributed=off in a PaddleSeg-layout config) to train alone", why)
	}
	return openMPI()
}
