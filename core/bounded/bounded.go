// Package bounded reads whole files of user input under a size limit that is
// checked before anything is allocated (issue 24): a multi-gigabyte "config"
// or annotation file is refused with an error that names the file and the
// limit instead of exhausting memory.
package bounded

import (
	"fmt"
	"io"
	"os"
)

// Limits for the whole-file inputs this project reads (variables for tests).
var (
	// ConfigBytes bounds a YAML config file (and each _BASE_ it inherits).
	ConfigBytes int64 = 16 << 20
	// AnnotationBytes bounds a JSON or XML annotation file (COCO ground
	// truth and results, Pascal VOC); COCO 2017's largest is 470 MB.
	AnnotationBytes int64 = 2 << 30
)

// ReadFile reads path whole when it holds at most limit bytes; what names
// the kind of file in the error ("config", "COCO annotation file").
func ReadFile(path string, limit int64, what string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Mode().IsRegular() && fi.Size() > limit {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d-byte limit for a %s", path, fi.Size(), limit, what)
	}
	// Not a regular file (a pipe), or one that grew: read at most limit+1 bytes.
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: more than the %d-byte limit for a %s", path, limit, what)
	}
	return b, nil
}
