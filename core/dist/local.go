package dist

// Local is the Comm of a process that trains alone: rank 0 of 1, where
// every collective leaves its buffer as it is.
type Local struct{}

var _ Comm = Local{}

// Rank is 0.
func (Local) Rank() int { return 0 }

// Size is 1.
func (Local) Size() int { return 1 }

// BcastF32 does nothing: the only rank is the root.
func (Local) BcastF32([]float32, int) error { return nil }

// BcastF64 does nothing.
func (Local) BcastF64([]float64, int) error { return nil }

// AllreduceF32 does nothing: the sum over one rank is its buffer.
func (Local) AllreduceF32([]float32) error { return nil }

// AllreduceF64 does nothing.
func (Local) AllreduceF64([]float64) error { return nil }

// IallreduceF32 returns a finished Request.
func (Local) IallreduceF32([]float32) (Request, error) { return done{}, nil }

// NewF32 returns make([]float32, n).
func (Local) NewF32(n int) []float32 { return make([]float32, n) }

// Barrier returns at once.
func (Local) Barrier() error { return nil }

// Abort does nothing: with one rank the error that called it ends the run.
func (Local) Abort(int) {}

// Close does nothing.
func (Local) Close() error { return nil }

// Name is "local".
func (Local) Name() string { return "local" }

type done struct{}

func (done) Wait() error { return nil }
