package dist

import (
	"errors"
	"sync"
)

// Group returns n Comms that are the ranks of one job inside this process
// (one goroutine per rank), summing in rank order: the engine's
// distributed code runs, and is tested, without MPI. Abort on any rank
// makes every rank's pending and later collectives fail.
func Group(n int) []Comm {
	g := &group{n: n, bufs: make([]any, n)}
	g.cond = sync.NewCond(&g.mu)
	out := make([]Comm, n)
	for r := range n {
		out[r] = &member{g: g, rank: r}
	}
	return out
}

// ErrAborted is what a Group's collectives return after a rank aborted.
var ErrAborted = errors.New("dist: another rank aborted the job")

type group struct {
	n       int
	mu      sync.Mutex
	cond    *sync.Cond
	arrived int
	gen     int
	bufs    []any
	aborted bool
}

// collective waits for every rank's buf; the last to arrive runs op on
// them all (in rank order) while the others wait.
func (g *group) collective(rank int, buf any, op func(bufs []any)) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.aborted {
		return ErrAborted
	}
	g.bufs[rank] = buf
	g.arrived++
	gen := g.gen
	if g.arrived == g.n {
		op(g.bufs)
		g.arrived = 0
		g.gen++
		g.cond.Broadcast()
		return nil
	}
	for g.gen == gen && !g.aborted {
		g.cond.Wait()
	}
	if g.gen == gen {
		return ErrAborted
	}
	return nil
}

type member struct {
	g    *group
	rank int
}

func (m *member) Rank() int    { return m.rank }
func (m *member) Size() int    { return m.g.n }
func (m *member) Name() string { return "group" }

func (m *member) BcastF32(buf []float32, root int) error { return bcast(m, buf, root) }
func (m *member) BcastF64(buf []float64, root int) error { return bcast(m, buf, root) }
func (m *member) AllreduceF32(buf []float32) error       { return allreduce(m, buf) }
func (m *member) AllreduceF64(buf []float64) error       { return allreduce(m, buf) }

func (m *member) IallreduceF32(buf []float32) (Request, error) {
	return done{}, allreduce(m, buf)
}

func (m *member) NewF32(n int) []float32 { return make([]float32, n) }

func (m *member) Barrier() error { return m.g.collective(m.rank, nil, func([]any) {}) }

func (m *member) Abort(int) {
	m.g.mu.Lock()
	m.g.aborted = true
	m.g.cond.Broadcast()
	m.g.mu.Unlock()
}

func (m *member) Close() error { return nil }

func bcast[T float32 | float64](m *member, buf []T, root int) error {
	return m.g.collective(m.rank, buf, func(bufs []any) {
		src := bufs[root].([]T)
		for _, b := range bufs {
			copy(b.([]T), src)
		}
	})
}

func allreduce[T float32 | float64](m *member, buf []T) error {
	return m.g.collective(m.rank, buf, func(bufs []any) {
		sum := make([]T, len(buf))
		for _, b := range bufs {
			for i, v := range b.([]T) {
				sum[i] += v
			}
		}
		for _, b := range bufs {
			copy(b.([]T), sum)
		}
	})
}
