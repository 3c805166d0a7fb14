package seg

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"paddle/core/data"
)

// Pair is one line of a PaddleSeg file list: an image and its label (""
// in a test list without labels), both already joined to dataset_root.
type Pair struct {
	Image, Label string
	Line         int // 1-based line in the list file
}

// ListOptions say how to read a file list (PaddleSeg's Dataset arguments).
type ListOptions struct {
	DatasetRoot string // paths in the list are relative to it (absolute ones are kept)
	Separator   string // between image and label; "" means " " (PaddleSeg's default)
	// NeedLabels is true for train and val lists: every line must have exactly
	// two fields. Test lists may have lines with the image alone.
	NeedLabels bool
}

// ReadFileList reads a PaddleSeg file list (`image_path label_path` per
// line, train.txt / val.txt / test.txt) as paddleseg.datasets.Dataset does:
// each line is stripped and split on the separator; blank lines are
// skipped. Errors name the file and line.
func ReadFileList(path string, opts ListOptions) ([]Pair, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sep := opts.Separator
	if sep == "" {
		sep = " "
	}
	var pairs []Pair
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		items := strings.Split(line, sep)
		switch {
		case len(items) == 2 && items[0] != "" && items[1] != "":
			pairs = append(pairs, Pair{Image: join(opts.DatasetRoot, items[0]), Label: join(opts.DatasetRoot, items[1]), Line: n})
		case len(items) == 1 && !opts.NeedLabels:
			pairs = append(pairs, Pair{Image: join(opts.DatasetRoot, items[0]), Line: n})
		case opts.NeedLabels:
			return nil, fmt.Errorf("%s:%d: want \"image_path%slabel_path\", got %d fields in %q", path, n, sep, len(items), line)
		default:
			return nil, fmt.Errorf("%s:%d: want \"image_path\" or \"image_path%slabel_path\", got %d fields in %q",
				path, n, sep, len(items), line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(pairs) == 0 {
		return nil, fmt.Errorf("%s: the file list is empty", path)
	}
	return pairs, nil
}

func join(root, p string) string {
	if filepath.IsAbs(p) || root == "" {
		return p
	}
	return filepath.Join(root, p)
}

// ReadLabelNames reads labels.txt: one class name per line, line k naming
// class k. Trailing blank lines are dropped; a blank line between names
// (which would shift every later class) is an error.
func ReadLabelNames(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n")
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		return nil, fmt.Errorf("%s: no class names", path)
	}
	names := make([]string, len(lines))
	for i, l := range lines {
		names[i] = strings.TrimSpace(l)
		if names[i] == "" {
			return nil, fmt.Errorf("%s:%d: blank line between class names (line k names class k-1)", path, i+1)
		}
	}
	return names, nil
}

// Sample is an image with its label map, checked against the class count.
type Sample struct {
	Image *data.Image // RGB
	Label *LabelMap   // nil for a test-list line without a label
	Pair  Pair
}

// LoadSample decodes p's image (RGB) and label, and checks that both have
// the same size and that every label value is a class in [0, numClasses)
// or the ignore index. Errors name the files, the sizes and the bad value.
func LoadSample(p Pair, numClasses, ignore int) (*Sample, error) {
	img, err := data.DecodeFile(p.Image, data.RGB)
	if err != nil {
		return nil, err
	}
	s := &Sample{Image: img, Pair: p}
	if p.Label == "" {
		return s, nil
	}
	if s.Label, err = ReadLabelMap(p.Label); err != nil {
		return nil, err
	}
	if img.W != s.Label.W || img.H != s.Label.H {
		return nil, &SizeError{AKind: "image", A: p.Image, AW: img.W, AH: img.H,
			BKind: "label", B: p.Label, BW: s.Label.W, BH: s.Label.H}
	}
	if err := s.Label.CheckClasses(p.Label, numClasses, ignore); err != nil {
		return nil, err
	}
	return s, nil
}
