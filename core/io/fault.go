package io

import (
	"os"
	"strconv"
	"sync/atomic"
)

// FaultEnv names the fault-injection hook of the atomic writers: when it
// holds a positive N, the process kills itself (SIGKILL: no deferred code,
// no flush) at the Nth filesystem step of WriteFileAtomic, the safetensors
// writers and SaveCheckpoint, counted from the start of the process. Tests
// use it to crash a training run at every point inside its saves; it is
// not meant for anything else.
const FaultEnv = "PADDLE_FAULT_KILL_AT_FS_STEP"

var (
	faultAt    = faultTarget()
	faultSteps atomic.Int64
)

func faultTarget() int64 {
	n, err := strconv.ParseInt(os.Getenv(FaultEnv), 10, 64)
	if err != nil || n <= 0 {
		return 0
	}
	return n
}

// fsStep marks that one filesystem step of a write is done: the point where
// FaultEnv may kill the process.
func fsStep() {
	if faultAt > 0 && faultSteps.Add(1) == faultAt {
		if p, err := os.FindProcess(os.Getpid()); err == nil {
			p.Kill()
		}
		select {} // the kill is asynchronous: take no further step
	}
}
