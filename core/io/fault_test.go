package io

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"paddle/core/tensor"
)

// injectFault makes the nth fallible filesystem operation from now fail
// with errno (as FaultErrorEnv does), until the test ends.
func injectFault(t *testing.T, n int64, errno syscall.Errno) {
	failAt, failErr = n, errno
	failOps.Store(0)
	t.Cleanup(func() { failAt, failErr = 0, nil })
}

// listDir returns the names in dir, sorted.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// TestSaveCheckpointDiskFullOrReadOnly fails each filesystem operation of a
// save in turn with ENOSPC and with EROFS: every failed save says why and
// what is kept, leaves the previous checkpoint exactly as it was and no
// temporary folder; the same save without a fault succeeds.
func TestSaveCheckpointDiskFullOrReadOnly(t *testing.T) {
	old := map[string]*tensor.Tensor{"w": tensor.FromSlice([]float32{1, 2, 3}, 3)}
	next := map[string]*tensor.Tensor{"w": tensor.FromSlice([]float32{4, 5, 6}, 3)}
	opt := map[string]*tensor.Tensor{"m": tensor.Ones(tensor.Float32, 3)}
	for _, c := range []struct {
		errno syscall.Errno
		why   string
	}{{syscall.ENOSPC, "no space left on device (the disk is full; "}, {syscall.EROFS, "read-only file system (the folder is on a read-only filesystem; "}} {
		for _, previous := range []bool{true, false} {
			faults := 0
			for n := int64(1); ; n++ {
				root := t.TempDir()
				dir := filepath.Join(root, "latest")
				if previous {
					if err := SaveCheckpoint(dir, old, opt, trainState{Step: 1}, []byte("a: 1\n")); err != nil {
						t.Fatal(err)
					}
				}
				injectFault(t, n, c.errno)
				err := SaveCheckpoint(dir, next, opt, trainState{Step: 2}, []byte("a: 2\n"))
				fired := failOps.Load() >= n
				failAt = 0
				if !fired {
					if err != nil {
						t.Fatalf("save without a fault: %v", err)
					}
					if ck, err := LoadCheckpoint(dir); err != nil || ck.Model["w"].F32()[0] != 4 {
						t.Fatalf("save without a fault did not save: %v", err)
					}
					break
				}
				faults++
				kept := "the previous checkpoint " + dir + " is kept unchanged)"
				want := []string{"latest"}
				if !previous {
					kept, want = "no checkpoint was written; "+dir+" is unchanged)", nil
				}
				if err == nil || !strings.HasPrefix(err.Error(), "checkpoint "+dir+" not saved: ") ||
					!strings.Contains(err.Error(), c.why) || !strings.HasSuffix(err.Error(), kept) {
					t.Fatalf("%v at operation %d: err = %v, want it to say %q and %q", c.errno, n, err, c.why, kept)
				}
				if got := listDir(t, root); !slices.Equal(got, want) {
					t.Fatalf("%v at operation %d: %s holds %v, want %v", c.errno, n, root, got, want)
				}
				if previous {
					ck, err := LoadCheckpoint(dir)
					var st trainState
					if err != nil || ck.DecodeState(&st) != nil || st.Step != 1 || ck.Model["w"].F32()[0] != 1 || string(ck.Config) != "a: 1\n" {
						t.Fatalf("%v at operation %d: the previous checkpoint changed (%v)", c.errno, n, err)
					}
				}
			}
			if faults < 15 {
				t.Errorf("%v: only %d operations of a save were failed", c.errno, faults)
			}
		}
	}
}

// TestWriteFilesAtomicFaults fails each operation of WriteFilesAtomic in
// turn, with and without earlier files in the folder: every failure leaves
// the earlier files exactly as they were (or no folder, when there were
// none) and no temporary file.
func TestWriteFilesAtomicFaults(t *testing.T) {
	files := func(v string) []File {
		return []File{{"model.onnx", []byte("model " + v), 0o644}, {"inference.yaml", []byte("inf " + v), 0o644}, {"config.yaml", []byte("cfg " + v), 0o644}}
	}
	for _, previous := range []bool{true, false} {
		faults := 0
		for n := int64(1); ; n++ {
			dir := filepath.Join(t.TempDir(), "out")
			if previous {
				if err := WriteFilesAtomic(dir, files("old")); err != nil {
					t.Fatal(err)
				}
			}
			injectFault(t, n, syscall.ENOSPC)
			err := WriteFilesAtomic(dir, files("new"))
			fired := failOps.Load() >= n
			failAt = 0
			if !fired {
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range files("new") {
					if b, _ := os.ReadFile(filepath.Join(dir, f.Name)); !bytes.Equal(b, f.Data) {
						t.Errorf("%s = %q after a write without a fault", f.Name, b)
					}
				}
				if got := listDir(t, dir); len(got) != 3 {
					t.Errorf("folder holds %v, want the 3 files", got)
				}
				break
			}
			faults++
			if err == nil || !strings.Contains(err.Error(), "no space left on device") {
				t.Fatalf("operation %d: err = %v", n, err)
			}
			if !previous {
				if _, err := os.Stat(dir); !os.IsNotExist(err) {
					t.Fatalf("operation %d: a failed first write left the folder %s: %v", n, dir, listDir(t, dir))
				}
				continue
			}
			for _, f := range files("old") {
				if b, _ := os.ReadFile(filepath.Join(dir, f.Name)); !bytes.Equal(b, f.Data) {
					t.Fatalf("operation %d: %s = %q, want the old %q", n, f.Name, b, f.Data)
				}
			}
			if got := listDir(t, dir); len(got) != 3 {
				t.Fatalf("operation %d: folder holds %v, want the 3 old files", n, got)
			}
		}
		// mkdir; open, write, sync per file; a rename per file (and one to
		// move each earlier file aside).
		want := 1 + 3*3 + 3
		if previous {
			want += 3
		}
		if faults != want {
			t.Errorf("previous %v: %d operations failed in turn, want %d", previous, faults, want)
		}
	}
}

func TestFaultErrorEnv(t *testing.T) {
	for v, want := range map[string]int64{"3:ENOSPC": 3, "12:erofs": 12, "1:EIO": 1, "0:ENOSPC": 0, "3": 0, "x:ENOSPC": 0, "3:EPERM": 0, "": 0} {
		if n, _ := failTarget(v); n != want {
			t.Errorf("failTarget(%q) = %d, want %d", v, n, want)
		}
	}
	if _, errno := failTarget("2:EROFS"); errno != syscall.EROFS {
		t.Errorf("failTarget(2:EROFS) injects %v", errno)
	}
}
