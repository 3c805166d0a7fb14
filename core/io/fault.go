package io

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
)

// FaultEnv names the fault-injection hook of the atomic writers: when it
// holds a positive N, the process kills itself (SIGKILL: no deferred code,
// no flush) at the Nth filesystem step of WriteFileAtomic, the safetensors
// writers and SaveCheckpoint, counted from the start of the process. Tests
// use it to crash a training run at every point inside its saves; it is
// not meant for anything else.
const FaultEnv = "PADDLE_FAULT_KILL_AT_FS_STEP"

// FaultErrorEnv names the second hook: "N:ENOSPC" (or N:EROFS, N:EIO) makes
// the Nth fallible filesystem operation of the same writers (make a folder
// or file, write, sync, rename), counted from the start of the process,
// fail with that error instead of running, as a full disk or a read-only
// folder would. Test use only.
const FaultErrorEnv = "PADDLE_FAULT_FS_ERROR"

var (
	faultAt    = faultTarget()
	faultSteps atomic.Int64

	failAt, failErr = failTarget(os.Getenv(FaultErrorEnv))
	failOps         atomic.Int64
)

func faultTarget() int64 {
	n, err := strconv.ParseInt(os.Getenv(FaultEnv), 10, 64)
	if err != nil || n <= 0 {
		return 0
	}
	return n
}

// faultErrnos are the errors FaultErrorEnv can inject.
var faultErrnos = map[string]syscall.Errno{"ENOSPC": syscall.ENOSPC, "EROFS": syscall.EROFS, "EIO": syscall.EIO}

// failTarget parses FaultErrorEnv's value; anything else disables the hook.
func failTarget(v string) (int64, error) {
	ns, name, _ := strings.Cut(v, ":")
	n, err := strconv.ParseInt(ns, 10, 64)
	errno, ok := faultErrnos[strings.ToUpper(name)]
	if err != nil || n <= 0 || !ok {
		return 0, nil
	}
	return n, errno
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

// fsFault comes before each fallible filesystem operation (op on path) of
// the writers: it returns the error FaultErrorEnv injects there, else nil.
func fsFault(op, path string) error {
	if failAt > 0 && failOps.Add(1) == failAt {
		return &os.PathError{Op: op, Path: path, Err: failErr}
	}
	return nil
}

// Why says in words why a write failed when the cause is the disk or the
// folder rather than the data: "the disk is full", "the folder is
// read-only", "no permission to write there"; "" otherwise.
func Why(err error) string {
	switch {
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return "the disk is full"
	case errors.Is(err, syscall.EROFS):
		return "the folder is on a read-only filesystem"
	case errors.Is(err, os.ErrPermission):
		return "no permission to write there"
	case errors.Is(err, syscall.EIO):
		return "the disk reported an I/O error"
	}
	return ""
}

// explained is err followed by Why(err) and what is left, in parentheses.
func explained(err error, left string) error {
	if why := Why(err); why != "" {
		return fmt.Errorf("%w (%s; %s)", err, why, left)
	}
	return fmt.Errorf("%w (%s)", err, left)
}
