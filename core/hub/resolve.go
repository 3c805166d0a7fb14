package hub

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
)

// storeRef matches "<store model>:<file>".
var storeRef = regexp.MustCompile(`^([a-z][a-z0-9_-]+):([^/\\].*)$`)

// ResolveFile maps "<store model>:<file>" (ppocrv4:ch_PP-OCRv4_det_infer.onnx)
// to that file in the model store, pulling the model on first use; other
// paths are returned unchanged.
func ResolveFile(p string) (string, error) {
	m := storeRef.FindStringSubmatch(p)
	if m == nil {
		return p, nil
	}
	dir, ok := Path(m[1])
	if !ok {
		var err error
		if dir, err = Ensure(context.Background(), m[1], false); err != nil {
			return "", fmt.Errorf("%s: %w", p, err)
		}
	}
	return filepath.Join(dir, m[2]), nil
}
