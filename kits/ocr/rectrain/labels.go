package rectrain

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// RecItem is one line of a recognition label file.
type RecItem struct {
	Path string // image path joined to data_dir
	Text string
}

// ReadLabelLines reads the non-empty lines of several label files and mixes
// them as PaddleOCR's SimpleDataSet does with ratio_list: from file i, a
// seeded random subset of round(n·ratio_i) lines (ratio 1: all lines, in
// order). A ratio above 1 repeats the file's lines (whole copies, then a
// subset), for oversampling a small set. ratios may be empty (all 1), one
// value for every file, or one per file.
func ReadLabelLines(files []string, ratios []float64, seed uint64) ([]string, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("label_file_list is empty")
	}
	switch {
	case len(ratios) == 0:
		ratios = []float64{1}
		fallthrough
	case len(ratios) == 1:
		r := ratios[0]
		ratios = make([]float64, len(files))
		for i := range ratios {
			ratios[i] = r
		}
	case len(ratios) != len(files):
		return nil, fmt.Errorf("ratio_list has %d values for %d label files", len(ratios), len(files))
	}
	var out []string
	for i, f := range files {
		lines, err := readLines(f)
		if err != nil {
			return nil, err
		}
		if ratios[i] < 0 {
			return nil, fmt.Errorf("ratio_list[%d] = %g is negative", i, ratios[i])
		}
		want := int(math.Round(float64(len(lines)) * ratios[i]))
		for want >= len(lines) && len(lines) > 0 {
			out = append(out, lines...)
			want -= len(lines)
		}
		if want > 0 {
			r := rand.New(rand.NewPCG(seed, uint64(i)))
			perm := r.Perm(len(lines))[:want]
			for _, j := range perm {
				out = append(out, lines[j])
			}
		}
	}
	return out, nil
}

func readLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("label file: %w", err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	for sc.Scan() {
		if l := strings.TrimRight(sc.Text(), "\r"); strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("label file %s: %w", path, err)
	}
	return out, nil
}

// ParseRecLine splits a recognition label line `path<delim>text` (the
// text is the second field, as SimpleDataSet takes it) and joins path to dataDir.
func ParseRecLine(line, dataDir, delim string) (RecItem, error) {
	if delim == "" {
		delim = "\t"
	}
	f := strings.Split(line, delim)
	if len(f) < 2 {
		return RecItem{}, fmt.Errorf("want `image%stext`, got %q", strings.ReplaceAll(delim, "\t", "<TAB>"), line)
	}
	return RecItem{Path: filepath.Join(dataDir, f[0]), Text: f[1]}, nil
}

// DetBox is one region of a detection label.
type DetBox struct {
	Text   string       // transcription
	Points [][2]float64 // polygon, usually 4 points clockwise
	Ignore bool         // transcription "###" (or "*"): don't care
}

// DetItem is one line of a detection label file.
type DetItem struct {
	Path  string
	Boxes []DetBox
}

// ParseDetLine reads a detection label line `path<TAB>[{"transcription": ...,
// "points": [[x, y], ...]}, ...]`; "###" and "*" transcriptions mark
// regions to ignore, as DetLabelEncode does.
func ParseDetLine(line, dataDir, delim string) (DetItem, error) {
	if delim == "" {
		delim = "\t"
	}
	path, js, ok := strings.Cut(line, delim)
	if !ok {
		return DetItem{}, fmt.Errorf("want `image%sjson`, got %q", strings.ReplaceAll(delim, "\t", "<TAB>"), line)
	}
	var raw []struct {
		Transcription string      `json:"transcription"`
		Points        [][]float64 `json:"points"`
	}
	if err := json.Unmarshal([]byte(js), &raw); err != nil {
		return DetItem{}, fmt.Errorf("%s: label JSON: %w", path, err)
	}
	it := DetItem{Path: filepath.Join(dataDir, path)}
	for i, b := range raw {
		if len(b.Points) < 3 {
			return DetItem{}, fmt.Errorf("%s: box %d has %d points, want at least 3", path, i, len(b.Points))
		}
		box := DetBox{Text: b.Transcription, Ignore: b.Transcription == "###" || b.Transcription == "*"}
		for j, p := range b.Points {
			if len(p) != 2 {
				return DetItem{}, fmt.Errorf("%s: box %d point %d is %v, want [x, y]", path, i, j, p)
			}
			box.Points = append(box.Points, [2]float64{p[0], p[1]})
		}
		it.Boxes = append(it.Boxes, box)
	}
	return it, nil
}

// ReadDetLabels reads detection label files (mixed by ratios as ReadLabelLines).
func ReadDetLabels(files []string, ratios []float64, dataDir string, seed uint64) ([]DetItem, error) {
	lines, err := ReadLabelLines(files, ratios, seed)
	if err != nil {
		return nil, err
	}
	out := make([]DetItem, 0, len(lines))
	for _, l := range lines {
		it, err := ParseDetLine(l, dataDir, "\t")
		if err != nil {
			return nil, err
		}
		out = append(out, it)
	}
	return out, nil
}

// ratios reads ratio_list: nil, a number, or a list of numbers.
func ratios(v any) ([]float64, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case int:
		return []float64{float64(x)}, nil
	case float64:
		return []float64{x}, nil
	case []any:
		out := make([]float64, len(x))
		for i, e := range x {
			switch n := e.(type) {
			case int:
				out[i] = float64(n)
			case float64:
				out[i] = n
			default:
				return nil, fmt.Errorf("ratio_list[%d] = %v is not a number", i, e)
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("ratio_list %v: want a number or a list of numbers", v)
}
