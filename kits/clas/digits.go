package clas

import (
	"compress/gzip"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"paddle/core/hub"
)

// DigitsFile is where scripts/setup.sh puts sklearn's digits.csv.gz.
func DigitsFile() string { return filepath.Join(hub.CacheDir(), "data", "sklearn", "digits.csv.gz") }

// LoadDigits reads sklearn's 8x8 digits (64 values 0..16 then the label per
// line) and scales pixels to 0..255 (v*255/16, rounded).
func LoadDigits(path string) (*Images, error) {
	if path == "" {
		path = DigitsFile()
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w\nhint: run scripts/setup.sh (it extracts digits.csv.gz from python3-sklearn)", err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		if r, err = gzip.NewReader(f); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	rows, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s := &Images{H: 8, W: 8}
	for i, row := range rows {
		if len(row) != 65 {
			return nil, fmt.Errorf("%s:%d: %d columns, want 65", path, i+1, len(row))
		}
		for _, c := range row[:64] {
			v, err := strconv.ParseFloat(strings.TrimSpace(c), 64)
			if err != nil || v < 0 || v > 16 {
				return nil, fmt.Errorf("%s:%d: pixel %q, want a number in 0..16", path, i+1, c)
			}
			s.Pix = append(s.Pix, uint8(v*255/16+0.5))
		}
		y, err := strconv.ParseFloat(strings.TrimSpace(row[64]), 64)
		if err != nil || y < 0 || y > 9 || y != float64(int(y)) {
			return nil, fmt.Errorf("%s:%d: label %q, want 0..9", path, i+1, row[64])
		}
		s.Labels = append(s.Labels, int(y))
		s.Classes = max(s.Classes, int(y)+1)
	}
	s.N = len(s.Labels)
	return s, nil
}
