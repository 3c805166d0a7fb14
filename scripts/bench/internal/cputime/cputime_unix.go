//go:build unix

// Package cputime reads the process's CPU time (user + system), what the
// benchmarks under scripts/bench report next to wall time on a loaded machine.
package cputime

import (
	"syscall"
	"time"
)

// Now is the process's user+sys CPU time (getrusage).
func Now() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
