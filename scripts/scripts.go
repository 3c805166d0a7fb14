// Package scripts carries the fetch scripts (scripts/fetch_*.sh) inside the
// binary, so that `paddle dataset pull` runs the very scripts
// scripts/setup.sh runs, from any folder, with no checkout.
package scripts

import (
	"embed"
	"fmt"
	"io/fs"
	"strings"
)

//go:embed fetch_*.sh
var fetch embed.FS

// Fetch returns the text of scripts/NAME, a fetch_*.sh script.
func Fetch(name string) ([]byte, error) {
	b, err := fetch.ReadFile(name)
	if err != nil {
		names, _ := fs.Glob(fetch, "fetch_*.sh")
		return nil, fmt.Errorf("fetch script %q: not in scripts/ (known: %s)", name, strings.Join(names, ", "))
	}
	return b, nil
}
