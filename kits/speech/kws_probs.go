package speech

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
)

// probDump collects eval clips' per-warp class probabilities for
// Global.save_probs. A nil *probDump ignores add.
type probDump struct {
	paths  []string
	probs  [][][]float64
	labels []int
	groups []int
}

// probLine is one clip of a save_probs file.
type probLine struct {
	File  string      `json:"file"`
	Label int         `json:"label"`
	Group string      `json:"group,omitempty"`
	Warps []float64   `json:"warps"`
	Probs [][]float64 `json:"probs"` // [warp][class]
}

func (d *probDump) add(p [][][]float64, paths []string, labels, groups []int) {
	if d == nil {
		return
	}
	d.probs = append(d.probs, p...)
	d.paths = append(d.paths, paths...)
	d.labels = append(d.labels, labels...)
	d.groups = append(d.groups, groups...)
}

// write stores the clips as JSON lines; warps names the probability rows
// (nil: the one row of unwarped features), names the groups by index.
func (d *probDump) write(path string, warps []float64, names []string) error {
	if len(warps) == 0 {
		warps = []float64{1}
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("Global.save_probs: %w", err)
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for i, p := range d.probs {
		l := probLine{File: d.paths[i], Label: d.labels[i], Warps: warps, Probs: p}
		if g := d.groups[i]; g >= 0 && g < len(names) {
			l.Group = names[g]
		}
		for _, row := range l.Probs {
			for c, v := range row {
				row[c] = float64(float32(v))
			}
		}
		if err := enc.Encode(l); err != nil {
			f.Close()
			return fmt.Errorf("Global.save_probs %s: %w", path, err)
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("Global.save_probs %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("Global.save_probs %s: %w", path, err)
	}
	return nil
}
