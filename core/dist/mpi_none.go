//go:build !mpi

package dist

// Available reports whether this build has MPI (build tag mpi).
const Available = false

func openMPI() (Comm, error) { panic("dist: openMPI without the mpi build tag") }
