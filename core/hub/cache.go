// Package hub is the model store: pretrained models cached under the user's
// cache directory, verified by sha256, pulled only when asked or on first use.
package hub

import (
	"os"
	"path/filepath"
)

// CacheDir is where paddle keeps models and fetched data: $PADDLE_CACHE, or
// <user cache dir>/paddle ($XDG_CACHE_HOME/paddle, ~/.cache/paddle on Linux).
func CacheDir() string {
	if d := os.Getenv("PADDLE_CACHE"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "paddle")
	}
	return filepath.Join(os.TempDir(), "paddle-cache")
}

// ModelsDir is the folder of the model store inside CacheDir.
func ModelsDir() string { return filepath.Join(CacheDir(), "models") }
