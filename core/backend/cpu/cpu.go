// Package cpu is the host backend: pure Go (no cgo), parallel over the
// threads given by --threads. Ops without a specialised kernel run their
// reference kernel, which is host code, so the cpu backend misses no op.
package cpu

import (
	"fmt"
	"runtime"

	"golang.org/x/sys/cpu"

	"paddle/core/backend"
	"paddle/core/parallel"
)

func init() { backend.Register(host{}) }

type host struct{}

func (host) Name() string { return "cpu" }

func (host) Description() string {
	return fmt.Sprintf("pure Go on %s/%s (%s; sgemm kernel %s)", runtime.GOOS, runtime.GOARCH, Features(), Kernel())
}

func (host) Activate(threads int) error {
	parallel.SetThreads(threads)
	installKernels()
	return nil
}

func (host) Missing([]string) []string { return nil }

// Features lists the SIMD features of this CPU that kernels can use.
func Features() string {
	var f []string
	add := func(ok bool, name string) {
		if ok {
			f = append(f, name)
		}
	}
	add(cpu.X86.HasAVX2, "avx2")
	add(cpu.X86.HasFMA, "fma")
	add(cpu.X86.HasAVX512F, "avx512f")
	add(cpu.X86.HasAVX512VNNI, "avx512vnni")
	add(cpu.ARM64.HasASIMD, "neon")
	if len(f) == 0 {
		return "no SIMD extensions detected"
	}
	s := f[0]
	for _, x := range f[1:] {
		s += " " + x
	}
	return s
}
