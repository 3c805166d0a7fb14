package ocr

import (
	"fmt"
	"os"
	"path/filepath"

	"gopkg.in/yaml.v3"
)

// detExportPost applies the DBPostProcess thresholds of a det export
// folder's inference.yaml (`paddle ocr export` of a DB model writes them)
// to p: thresh, box_thresh, unclip_ratio and max_candidates, each where
// given. A path that is not such a folder leaves p as it is.
func detExportPost(dir string, p Profile) (Profile, error) {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return p, nil
	}
	var doc struct {
		PostProcess struct {
			Name          string   `yaml:"name"`
			Thresh        *float64 `yaml:"thresh"`
			BoxThresh     *float64 `yaml:"box_thresh"`
			UnclipRatio   *float64 `yaml:"unclip_ratio"`
			MaxCandidates *int     `yaml:"max_candidates"`
		} `yaml:"PostProcess"`
	}
	for _, name := range []string{"inference.yaml", "inference.yml"} {
		file := filepath.Join(dir, name)
		b, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		if err := yaml.Unmarshal(b, &doc); err != nil {
			return p, fmt.Errorf("detection model: %s: %w", file, err)
		}
		pp := doc.PostProcess
		if pp.Name != "DBPostProcess" {
			return p, nil
		}
		if pp.Thresh != nil {
			p.Thresh = float32(*pp.Thresh)
		}
		if pp.BoxThresh != nil {
			p.BoxThresh = *pp.BoxThresh
		}
		if pp.UnclipRatio != nil {
			p.UnclipRatio = *pp.UnclipRatio
		}
		if pp.MaxCandidates != nil {
			p.MaxCandidates = *pp.MaxCandidates
		}
		return p, nil
	}
	return p, nil
}
