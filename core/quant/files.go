package quant

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"paddle/core/graph"
	"paddle/core/tensor"
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

// FileFeed is the Feed of a kit's `export --quantize` (workflow.Calibrator):
// the first count files (0: all) of calib as Files lists them, each made
// into the model's inputs by prepare (the kit's predict preprocessing);
// errors name the file. It returns the feed and how many inputs it has.
func FileFeed(calib string, count int, prepare func(path string) (map[string]*tensor.Tensor, error)) (Feed, int, error) {
	files, err := Files(calib)
	if err != nil {
		return nil, 0, err
	}
	if count > 0 && len(files) > count {
		files = files[:count]
	}
	return func(i int) (map[string]*tensor.Tensor, error) {
		in, err := prepare(files[i])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", files[i], err)
		}
		return in, nil
	}, len(files), nil
}

// Batch1 returns x with a batch axis of 1 in front, as the input map of a
// model whose one input is called name.
func Batch1(name string, x *tensor.Tensor) map[string]*tensor.Tensor {
	return map[string]*tensor.Tensor{name: x.Reshape(append([]int{1}, x.Shape()...)...)}
}

// Int8Nodes counts the nodes of g (loaded and optimised by core/runtime)
// that run in int8: qconv2d and qgemm, what the qdq pass folds a
// quantized conv or matmul into.
func Int8Nodes(g *graph.Graph) int {
	n := 0
	for _, nd := range g.Nodes {
		if nd.Op.Name == "qconv2d" || nd.Op.Name == "qgemm" {
			n++
		}
	}
	return n
}
