package quant

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// ImageExts are the image files Files lists (.npy files are tensors).
var ImageExts = []string{".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff"}

// Files lists the calibration files (images, .npy tensors) of a directory,
// sorted, or of a list file (one per line, relative to the list; blank lines
// and # comments skipped), as --calib names them.
func Files(path string) ([]string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("--calib: %w", err)
	}
	ok := func(name string) bool {
		ext := strings.ToLower(filepath.Ext(name))
		return ext == ".npy" || slices.Contains(ImageExts, ext)
	}
	var files []string
	if st.IsDir() {
		ents, err := os.ReadDir(path)
		if err != nil {
			return nil, err
		}
		for _, e := range ents {
			if !e.IsDir() && ok(e.Name()) {
				files = append(files, filepath.Join(path, e.Name()))
			}
		}
		sort.Strings(files)
	} else {
		fh, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer fh.Close()
		sc := bufio.NewScanner(fh)
		for line := 1; sc.Scan(); line++ {
			s := strings.TrimSpace(sc.Text())
			if s == "" || strings.HasPrefix(s, "#") {
				continue
			}
			if !ok(s) {
				return nil, fmt.Errorf("%s:%d: %q is neither an image (%s) nor a .npy file", path, line, s, strings.Join(ImageExts, " "))
			}
			if !filepath.IsAbs(s) {
				s = filepath.Join(filepath.Dir(path), s)
			}
			files = append(files, s)
		}
		if err := sc.Err(); err != nil {
			return nil, err
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("--calib %s: no images or .npy files", path)
	}
	return files, nil
}
