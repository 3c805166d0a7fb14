package cpu

import (
	"fmt"
	"os"
	"strings"
	"sync/atomic"
)

// KernelEnv is the environment variable that forces a kernel level:
// "generic" (portable Go), "avx2" or "avx512" on amd64, "neon" on arm64, no
// higher than the processor has. Unset (or "auto") picks the highest.
const KernelEnv = "PADDLE_CPU_KERNELS"

// isa is an instruction set a level's vector kernels may use.
type isa uint8

const (
	isaGeneric isa = iota // portable Go only
	isaNEON               // arm64 Advanced SIMD, 32 V registers (neon_arm64.s)
	isaAVX2               // AVX2 + FMA, 16 YMM registers
	isaAVX512             // AVX-512 F (with AVX2, FMA, BMI2)
)

// A level is one set of kernels: every kernel of this package runs the
// code for the level's instruction set, and none above it, so that
// PADDLE_CPU_KERNELS=avx2 on an AVX-512 processor runs (and tests) what an
// AVX2-only processor runs.
type level struct {
	name string
	isa  isa
	mk   *microKernel // SGEMM's micro-kernel at this level
}

var (
	levels      []*level // this processor's levels, highest first; generic last
	activeLevel atomic.Pointer[level]
	// levelErr is the error of an invalid PADDLE_CPU_KERNELS, returned by
	// Activate; the highest level runs meanwhile.
	levelErr error
)

// curISA is the instruction set of the active level; every vector kernel
// checks it when called, so a level switch never leaves a higher one's
// code installed.
func curISA() isa { return activeLevel.Load().isa }

// Level names the active kernel level ("generic", "avx2", "avx512", "neon").
func Level() string { return activeLevel.Load().name }

// Levels lists this processor's kernel levels, highest first.
func Levels() []string {
	names := make([]string, len(levels))
	for i, l := range levels {
		names[i] = l.name
	}
	return names
}

// SelectKernel makes the named level ("" or "auto": the highest) the
// active one: SGEMM's micro-kernel and every other kernel. Kernels already
// installed into core/op switch with it; call Activate to install the new
// level's set.
func SelectKernel(name string) error {
	if name == "" || name == "auto" {
		setLevel(levels[0])
		return nil
	}
	for _, l := range levels {
		if l.name == name {
			setLevel(l)
			return nil
		}
	}
	return fmt.Errorf("%s=%s: not a kernel level of this processor (available: %s)", KernelEnv, name, strings.Join(Levels(), ", "))
}

func setLevel(l *level) {
	activeLevel.Store(l)
	active.Store(l.mk)
}

func init() {
	if l1, l2 := cacheSizes(); l1 >= 16<<10 && l2 >= 128<<10 {
		l1Size, l2Size = l1, l2
	}
	levels = append(archLevels(), &level{name: "generic", isa: isaGeneric, mk: genericKernel})
	for _, l := range levels {
		l.mk.tune(l1Size, l2Size)
	}
	available = nil
	for _, l := range levels {
		if len(available) == 0 || available[len(available)-1] != l.mk {
			available = append(available, l.mk)
		}
	}
	if err := SelectKernel(os.Getenv(KernelEnv)); err != nil {
		levelErr = err
		setLevel(levels[0])
	}
}
