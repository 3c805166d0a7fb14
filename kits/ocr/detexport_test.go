package ocr

import (
	"os"
	"path/filepath"
	"testing"
)

// A det export folder's DBPostProcess thresholds replace the profile's; a
// bare .onnx path or a folder without them keeps the profile.
func TestDetExportPost(t *testing.T) {
	dir := t.TempDir()
	yml := "PostProcess:\n  name: DBPostProcess\n  thresh: 0.25\n  box_thresh: 0.45\n  unclip_ratio: 1.65\n  max_candidates: 500\n"
	if err := os.WriteFile(filepath.Join(dir, "inference.yaml"), []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := detExportPost(dir, ProfileV2())
	if err != nil {
		t.Fatal(err)
	}
	if p.Thresh != 0.25 || p.BoxThresh != 0.45 || p.UnclipRatio != 1.65 || p.MaxCandidates != 500 || p.LimitSideLen != 960 {
		t.Errorf("profile %+v", p)
	}
	for _, path := range []string{filepath.Join(dir, "model.onnx"), t.TempDir()} {
		if q, err := detExportPost(path, ProfileV2()); err != nil || q != ProfileV2() {
			t.Errorf("%s: %+v, %v; want the profile unchanged", path, q, err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "inference.yaml"), []byte("PostProcess: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := detExportPost(dir, ProfileV2()); err == nil {
		t.Error("a broken inference.yaml: want an error")
	}
}
