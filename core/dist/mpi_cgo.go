//go:build mpi

package dist

/*
#cgo pkg-config: mpi
#include <stdlib.h>
#include <mpi.h>

// MPI_COMM_WORLD and the datatypes are macros (addresses in Open MPI) that
// cgo cannot name: these wrappers keep them on the C side.
static int p_init(int *provided) {
	int done = 0;
	MPI_Initialized(&done);
	if (done) { MPI_Query_thread(provided); return MPI_SUCCESS; }
	return MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, provided);
}
static int p_rank(int *r) { return MPI_Comm_rank(MPI_COMM_WORLD, r); }
static int p_size(int *n) { return MPI_Comm_size(MPI_COMM_WORLD, n); }
static int p_bcast_f32(float *b, int n, int root) { return MPI_Bcast(b, n, MPI_FLOAT, root, MPI_COMM_WORLD); }
static int p_bcast_f64(double *b, int n, int root) { return MPI_Bcast(b, n, MPI_DOUBLE, root, MPI_COMM_WORLD); }
static int p_allreduce_f32(float *b, int n) { return MPI_Allreduce(MPI_IN_PLACE, b, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); }
static int p_allreduce_f64(double *b, int n) { return MPI_Allreduce(MPI_IN_PLACE, b, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); }
static int p_iallreduce_f32(float *b, int n, MPI_Request *req) {
	return MPI_Iallreduce(MPI_IN_PLACE, b, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, req);
}
static int p_wait(MPI_Request *req) { return MPI_Wait(req, MPI_STATUS_IGNORE); }
static int p_barrier(void) { return MPI_Barrier(MPI_COMM_WORLD); }
static void p_abort(int code) { MPI_Abort(MPI_COMM_WORLD, code); }
static int p_finalize(void) { return MPI_Finalize(); }
static void p_version(char *buf, int *n) { MPI_Get_library_version(buf, n); }
static int p_max_version(void) { return MPI_MAX_LIBRARY_VERSION_STRING; }
*/
import "C"

import (
	"fmt"
	"strings"
	"sync"
	"unsafe"
)

// Available reports whether this build has MPI (build tag mpi).
const Available = true

// mpiComm is MPI_COMM_WORLD. MPI is initialised with MPI_THREAD_SERIALIZED:
// Go may run a goroutine on any OS thread, so the calls are serialised by
// mu rather than pinned to the main thread (MPI_THREAD_FUNNELED).
type mpiComm struct {
	mu         sync.Mutex
	rank, size int
	name       string
	closed     bool
}

var (
	openOnce sync.Once
	opened   *mpiComm
	openErr  error
)

func openMPI() (Comm, error) {
	openOnce.Do(func() {
		var provided C.int
		if rc := C.p_init(&provided); rc != C.MPI_SUCCESS {
			openErr = fmt.Errorf("MPI_Init_thread: error %d", int(rc))
			return
		}
		if provided < C.MPI_THREAD_SERIALIZED {
			openErr = fmt.Errorf("MPI_Init_thread: the MPI library gives thread level %d, want MPI_THREAD_SERIALIZED", int(provided))
			return
		}
		var r, n C.int
		C.p_rank(&r)
		C.p_size(&n)
		buf := make([]byte, int(C.p_max_version())+1)
		var l C.int
		C.p_version((*C.char)(unsafe.Pointer(&buf[0])), &l)
		v := strings.TrimSpace(strings.SplitN(string(buf[:l]), ",", 2)[0])
		opened = &mpiComm{rank: int(r), size: int(n), name: "mpi (" + v + ")"}
	})
	return opened, openErr
}

func (c *mpiComm) Rank() int    { return c.rank }
func (c *mpiComm) Size() int    { return c.size }
func (c *mpiComm) Name() string { return c.name }

// call runs f under the lock and turns an MPI return code into an error.
func (c *mpiComm) call(what string, f func() C.int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return fmt.Errorf("%s: MPI is finalized", what)
	}
	if rc := f(); rc != C.MPI_SUCCESS {
		return fmt.Errorf("%s: MPI error %d", what, int(rc))
	}
	return nil
}

// The blocking calls pass Go memory to MPI for the length of the call,
// which cgo allows.

func (c *mpiComm) BcastF32(b []float32, root int) error {
	if len(b) == 0 {
		return nil
	}
	return c.call("MPI_Bcast", func() C.int { return C.p_bcast_f32((*C.float)(&b[0]), C.int(len(b)), C.int(root)) })
}

func (c *mpiComm) BcastF64(b []float64, root int) error {
	if len(b) == 0 {
		return nil
	}
	return c.call("MPI_Bcast", func() C.int { return C.p_bcast_f64((*C.double)(&b[0]), C.int(len(b)), C.int(root)) })
}

func (c *mpiComm) AllreduceF32(b []float32) error {
	if len(b) == 0 {
		return nil
	}
	return c.call("MPI_Allreduce", func() C.int { return C.p_allreduce_f32((*C.float)(&b[0]), C.int(len(b))) })
}

func (c *mpiComm) AllreduceF64(b []float64) error {
	if len(b) == 0 {
		return nil
	}
	return c.call("MPI_Allreduce", func() C.int { return C.p_allreduce_f64((*C.double)(&b[0]), C.int(len(b))) })
}

// NewF32 allocates in C: MPI keeps an Iallreduce's buffer after the call
// returns, which cgo forbids for Go memory. The buffer lives as long as
// the process (the engine allocates its buckets once per run).
func (c *mpiComm) NewF32(n int) []float32 {
	if n == 0 {
		return nil
	}
	p := C.calloc(C.size_t(n), 4)
	if p == nil {
		panic("dist: out of memory for an all-reduce bucket")
	}
	return unsafe.Slice((*float32)(p), n)
}

type mpiRequest struct {
	c   *mpiComm
	req *C.MPI_Request // in C memory, like the buffer
}

// IallreduceF32 starts MPI_Iallreduce; buf must come from NewF32.
func (c *mpiComm) IallreduceF32(b []float32) (Request, error) {
	if len(b) == 0 {
		return done{}, nil
	}
	req := (*C.MPI_Request)(C.calloc(1, C.size_t(unsafe.Sizeof(C.MPI_Request(nil)))))
	err := c.call("MPI_Iallreduce", func() C.int { return C.p_iallreduce_f32((*C.float)(&b[0]), C.int(len(b)), req) })
	if err != nil {
		C.free(unsafe.Pointer(req))
		return nil, err
	}
	return &mpiRequest{c: c, req: req}, nil
}

func (r *mpiRequest) Wait() error {
	defer C.free(unsafe.Pointer(r.req))
	return r.c.call("MPI_Wait", func() C.int { return C.p_wait(r.req) })
}

func (c *mpiComm) Barrier() error {
	return c.call("MPI_Barrier", func() C.int { return C.p_barrier() })
}

// Abort is MPI_Abort on MPI_COMM_WORLD: mpirun ends every rank.
func (c *mpiComm) Abort(code int) { C.p_abort(C.int(code)) }

// Close is MPI_Finalize (a collective: every rank calls it).
func (c *mpiComm) Close() error {
	err := c.call("MPI_Finalize", func() C.int { return C.p_finalize() })
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	return err
}
