package seg

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/synth"
)

// `seg synth` writes PaddleSeg lists whose pairs load with the kit's own
// readers (sizes equal, labels in 0..8 or 255), and rejects bad flags.
func TestSynthCommand(t *testing.T) {
	stamps, bgs := synth.DefaultPaths()
	if _, err := os.Stat(stamps); err != nil {
		t.Skipf("compositor stamps not found (%v): run scripts/fetch_det_data.sh", err)
	}
	if _, err := os.Stat(bgs); err != nil {
		t.Skipf("compositor photos not found (%v): run scripts/fetch_det_data.sh", err)
	}
	dir := t.TempDir()
	code, out, errOut := runPaddle(t, "seg", "synth", "--output", dir, "--train", "3", "--eval", "2", "--size", "48", "--threads", "1")
	if code != 0 || !strings.Contains(out, "seg_train.txt") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	names, err := ReadLabelNames(filepath.Join(dir, "labels.txt"))
	if err != nil || len(names) != 9 || names[0] != "background" {
		t.Fatalf("labels.txt: %v %v", names, err)
	}
	for list, n := range map[string]int{"seg_train.txt": 3, "seg_eval.txt": 2} {
		pairs, err := ReadFileList(filepath.Join(dir, list), ListOptions{DatasetRoot: dir, NeedLabels: true})
		if err != nil || len(pairs) != n {
			t.Fatalf("%s: %d pairs, %v", list, len(pairs), err)
		}
		for _, p := range pairs {
			s, err := LoadSample(p, 9, 255)
			if err != nil {
				t.Fatal(err)
			}
			if s.Image.W != 48 || s.Label.H != 48 {
				t.Errorf("%s: %dx%d", p.Image, s.Image.W, s.Label.H)
			}
		}
	}
	for _, args := range [][]string{
		{"seg", "synth"},
		{"seg", "synth", "--output", dir, "--size", "8"},
		{"seg", "synth", "--output", dir, "--train", "0", "--eval", "0"},
	} {
		if code, _, _ := runPaddle(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

func TestPredictionLine(t *testing.T) {
	got := predictionLine(Prediction{Image: "a.jpg", LabelMap: "o/a.png", ClassPixels: map[string]int{"bird": 3, "background": 9}})
	if want := "a.jpg\to/a.png\tbackground:9\tbird:3\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// PaddleSeg's palette: class 1 (128,0,0), 2 (0,128,0), 3 (128,128,0)
	for k, want := range [][3]uint8{{0, 0, 0}, {128, 0, 0}, {0, 128, 0}, {128, 128, 0}} {
		r, g, b, _ := colorMap(4)[k].RGBA()
		if uint8(r>>8) != want[0] || uint8(g>>8) != want[1] || uint8(b>>8) != want[2] {
			t.Errorf("colour %d = %d,%d,%d, want %v", k, r>>8, g>>8, b>>8, want)
		}
	}
}
