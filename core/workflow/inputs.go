package workflow

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ExpandInputs turns predict arguments into a list of files, in order:
// files as given, folders walked recursively (sorted) keeping files whose
// extension is in exts (all files when exts is empty), globs expanded
// (sorted), and "-" replaced by the paths read from stdin, one per line.
// A pattern that matches nothing or a missing path is reported as an input
// with an error, so batch commands report it and go on.
func ExpandInputs(args []string, stdin io.Reader, exts []string) ([]Input, error) {
	var out []Input
	keep := func(p string) bool {
		return len(exts) == 0 || slices.Contains(exts, strings.ToLower(filepath.Ext(p)))
	}
	for _, a := range args {
		switch {
		case a == "-":
			sc := bufio.NewScanner(stdin)
			sc.Buffer(make([]byte, 64*1024), 1<<20)
			for sc.Scan() {
				if p := strings.TrimSpace(sc.Text()); p != "" {
					out = append(out, Input{Path: p})
				}
			}
			if err := sc.Err(); err != nil {
				return nil, fmt.Errorf("read paths from stdin: %w", err)
			}
		case strings.ContainsAny(a, "*?["):
			m, err := filepath.Glob(a)
			if err != nil {
				return nil, fmt.Errorf("pattern %q: %w", a, err)
			}
			if len(m) == 0 {
				out = append(out, Input{Path: a, Err: fmt.Errorf("no files match %q", a)})
			}
			for _, p := range m {
				out = append(out, Input{Path: p})
			}
		default:
			fi, err := os.Stat(a)
			if err != nil {
				out = append(out, Input{Path: a, Err: err})
				continue
			}
			if !fi.IsDir() {
				out = append(out, Input{Path: a})
				continue
			}
			var found []string
			err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				if !d.IsDir() && keep(p) {
					found = append(found, p)
				}
				return nil
			})
			if err != nil {
				return nil, fmt.Errorf("walk %s: %w", a, err)
			}
			slices.Sort(found)
			for _, p := range found {
				out = append(out, Input{Path: p})
			}
		}
	}
	return out, nil
}

// Input is one predict input: a path, or the reason it cannot be read.
type Input struct {
	Path string
	Err  error
}

// ImageExts are the image file extensions predict commands pick from folders.
var ImageExts = []string{".png", ".jpg", ".jpeg", ".bmp", ".gif", ".tif", ".tiff", ".webp"}
