// Package backend is the device boundary: a Backend owns the kernels of a
// device and hands them to core/op as one value, an op.Kernels (the
// contract: fast kernels of whole ops by name, plus the GEMM, convolution
// and vector paths core/op's own kernels call). Ops without a fast kernel
// fall back to their reference implementation, which runs on the host.
// `cpu` is the first backend; another (an ISA, int8 kernels, a GPU)
// implements the same interface and registers itself the same way.
package backend

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"paddle/core/op"
)

// Backend is one device kind.
type Backend interface {
	// Name is the --device value that selects it ("cpu").
	Name() string
	// Description says what it is and what it runs on, for `paddle version`.
	Description() string
	// Kernels returns the backend's kernel set, set up for the given
	// thread count; Activate hands it to core/op.
	Kernels(threads int) (*op.Kernels, error)
	// Missing returns the ops of the list that this backend cannot run.
	Missing(ops []string) []string
}

var (
	mu       sync.Mutex
	backends = map[string]Backend{}
)

// Register makes a backend selectable by name. Backends call it from init,
// the one allowed registration side effect (build tags choose backends).
func Register(b Backend) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := backends[b.Name()]; dup {
		panic("backend: duplicate registration of " + b.Name())
	}
	backends[b.Name()] = b
}

// List returns the registered backend names, sorted.
func List() []string {
	mu.Lock()
	defer mu.Unlock()
	names := make([]string, 0, len(backends))
	for n := range backends {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Get returns the backend for a --device value such as "cpu" or "cuda:0".
func Get(device string) (Backend, error) {
	name, _, _ := strings.Cut(device, ":")
	mu.Lock()
	b, ok := backends[name]
	mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("device %q: no such backend (available: %s)", device, strings.Join(List(), ", "))
	}
	return b, nil
}

// Activate makes b the backend core/op runs on, with threads threads.
func Activate(b Backend, threads int) error {
	k, err := b.Kernels(threads)
	if err != nil {
		return fmt.Errorf("device %q: %w", b.Name(), err)
	}
	op.Use(k)
	return nil
}

// CheckOps returns an error naming the ops that b cannot run, before any work starts.
func CheckOps(b Backend, ops []string) error {
	missing := b.Missing(slices.Compact(slices.Sorted(slices.Values(ops))))
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("device %q: ops not implemented: %s", b.Name(), strings.Join(missing, ", "))
}
