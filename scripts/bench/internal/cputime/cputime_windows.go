//go:build windows

package cputime

import (
	"time"

	"golang.org/x/sys/windows"
)

// Now is the process's user+kernel CPU time (GetProcessTimes).
func Now() time.Duration {
	var c, e, k, u windows.Filetime
	if err := windows.GetProcessTimes(windows.CurrentProcess(), &c, &e, &k, &u); err != nil {
		return 0
	}
	ft := func(f windows.Filetime) int64 { return int64(f.HighDateTime)<<32 | int64(f.LowDateTime) }
	return time.Duration((ft(k) + ft(u)) * 100) // 100 ns units
}
