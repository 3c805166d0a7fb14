package io

import (
	"bufio"
	"errors"
	"fmt"
	stdio "io"
	"os"
	"path/filepath"
)

// WriteFileAtomic writes data to path so that readers see either the old file
// or the complete new one: it writes a temporary file in the same directory,
// syncs it, renames it over path and syncs the directory.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	return writeAtomic(path, perm, func(w stdio.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// writeAtomic is WriteFileAtomic with the content produced by fill through a
// buffered writer.
func writeAtomic(path string, perm os.FileMode, fill func(w stdio.Writer) error) error {
	tmp, err := writeTemp(path, perm, fill)
	if err != nil {
		return err
	}
	if err := rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	fsStep()
	syncDir(dirOf(path))
	return nil
}

// writeTemp writes a synced temporary file beside path (".<name>.tmp-*")
// with fill's content and returns its name; on error nothing is left.
func writeTemp(path string, perm os.FileMode, fill func(w stdio.Writer) error) (tmp string, err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if err := fsFault("open", path); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	name := f.Name()
	fsStep()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(name)
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<20)
	if err = fill(bw); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	if err = fsFault("write", name); err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	fsStep()
	if err = f.Chmod(perm); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	if err = fsFault("sync", name); err == nil {
		err = f.Sync()
	}
	if err != nil {
		return "", fmt.Errorf("write %s: sync: %w", path, err)
	}
	fsStep()
	if err = f.Close(); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return name, nil
}

// A File is one file of WriteFilesAtomic.
type File struct {
	Name string // in the folder
	Data []byte
	Perm os.FileMode
}

// WriteFilesAtomic writes files into the folder dir (made if missing) so
// that a failure (a full disk, a read-only folder) changes nothing: each
// file is first written and synced beside its place; only when all are
// written are the files already there moved aside and the new ones renamed
// into place, and the old ones are removed last. On error the old files are
// put back, the temporary files removed, and a folder the call made is
// removed again.
func WriteFilesAtomic(dir string, files []File) (err error) {
	_, statErr := os.Stat(dir)
	if err := fsFault("mkdir", dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmps := make([]string, len(files))  // written, not yet in place
	aside := make([]string, len(files)) // an old file moved out of the way
	placed := make([]bool, len(files))  // the new file is in place
	target := func(i int) string { return filepath.Join(dir, files[i].Name) }
	defer func() {
		if err == nil {
			for _, a := range aside {
				if a != "" {
					os.Remove(a)
				}
			}
			return
		}
		for i := range files {
			if placed[i] {
				os.Remove(target(i))
			}
			if aside[i] != "" {
				os.Rename(aside[i], target(i))
			}
			if tmps[i] != "" && !placed[i] {
				os.Remove(tmps[i])
			}
		}
		if errors.Is(statErr, os.ErrNotExist) {
			os.Remove(dir) // only if empty again
		}
	}()
	for i, f := range files {
		data := f.Data
		if tmps[i], err = writeTemp(target(i), f.Perm, func(w stdio.Writer) error {
			_, err := w.Write(data)
			return err
		}); err != nil {
			return err
		}
	}
	for i := range files {
		if _, serr := os.Lstat(target(i)); serr == nil {
			a := filepath.Join(dir, "."+files[i].Name+".old"+filepath.Ext(tmps[i]))
			if err := rename(target(i), a); err != nil {
				return fmt.Errorf("write %s: move the old file aside: %w", target(i), err)
			}
			aside[i] = a
		}
		if err := rename(tmps[i], target(i)); err != nil {
			return fmt.Errorf("write %s: %w", target(i), err)
		}
		placed[i] = true
		fsStep()
	}
	syncDir(dir)
	return nil
}

// rename is os.Rename behind the fault hook.
func rename(from, to string) error {
	if err := fsFault("rename", to); err != nil {
		return err
	}
	return os.Rename(from, to)
}

func dirOf(path string) string {
	if d := filepath.Dir(path); d != "" {
		return d
	}
	return "."
}

// syncDir makes renames and removals in dir durable. Some filesystems
// cannot sync a directory; the data is already safe, so that is not an error.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	fsStep()
}
