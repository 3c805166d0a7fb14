package seg

import (
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"paddle/core/cli/clitest"
	"paddle/core/cli/cmdutil"
)

func runPaddle(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	t.Setenv("PADDLE_CONFIG", "")
	return clitest.Run(t, []*cmdutil.Kit{Kit()}, "", args...)
}

// evalRef is what scripts/ref/seg_metrics_ref.py computed with PaddleSeg's
// metrics.py for testdata/eval (labels read by PIL as PaddleSeg reads them).
type evalRef struct {
	MIoU           float64   `json:"miou"`
	Acc            float64   `json:"acc"`
	Kappa          float64   `json:"kappa"`
	MDice          float64   `json:"mdice"`
	ClassIoU       []float64 `json:"class_iou"`
	ClassPrecision []float64 `json:"class_precision"`
	ClassRecall    []float64 `json:"class_recall"`
	ClassDice      []float64 `json:"class_dice"`
	Images         int       `json:"images"`
}

func TestEvalCommand(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "eval_ref.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want evalRef
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	pred, label := filepath.Join("testdata", "eval", "pred"), filepath.Join("testdata", "eval", "label")
	code, out, errOut := runPaddle(t, "seg", "eval", "--pred", pred, "--label", label, "--num-classes", "5", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got evalRef
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	want.Images = 4 // img_0..3; only_pred.png and only_label.png have no partner
	if got.MIoU != want.MIoU || got.Acc != want.Acc || got.Kappa != want.Kappa || got.MDice != want.MDice ||
		!slices.Equal(got.ClassIoU, want.ClassIoU) || !slices.Equal(got.ClassPrecision, want.ClassPrecision) ||
		!slices.Equal(got.ClassRecall, want.ClassRecall) || !slices.Equal(got.ClassDice, want.ClassDice) ||
		got.Images != want.Images {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	for _, w := range []string{"label files without a prediction", "only_label.png", "prediction files without a label", "only_pred.png"} {
		if !strings.Contains(errOut, w) {
			t.Errorf("stderr lacks %q: %s", w, errOut)
		}
	}

	names := filepath.Join(t.TempDir(), "labels.txt")
	if err := os.WriteFile(names, []byte("background\nroad\ncar\nsky\nnever\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runPaddle(t, "seg", "eval", "--pred", pred, "--label", label, "--num-classes", "5", "--labels", names)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, w := range []string{"images  4\n", "mIoU    0.6135\n", "Acc     0.8085\n", "Kappa   0.6961\n", "mDice   0.4885\n",
		"class         IoU     Precision  Recall  Dice    label pixels   pred pixels\n",
		"0 background  0.7685  0.9385     0.8092  0.8691           283           244\n",
		"4 never       1.0000  0.0000     0.0000  0.0000             0             0\n"} {
		if !strings.Contains(out, w) {
			t.Errorf("text output lacks %q:\n%s", w, out)
		}
	}
}

func writePNG(t *testing.T, path string, img image.Image) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
}

func gray(w, h int, pix ...uint8) *image.Gray {
	g := image.NewGray(image.Rect(0, 0, w, h))
	copy(g.Pix, pix)
	return g
}

func TestEvalCommandErrors(t *testing.T) {
	dir := t.TempDir()
	p, l := filepath.Join(dir, "p"), filepath.Join(dir, "l")
	writePNG(t, filepath.Join(p, "a.png"), gray(3, 2, 0, 1, 2, 0, 1, 2))
	writePNG(t, filepath.Join(l, "a.png"), gray(3, 2, 0, 1, 7, 255, 9, 2)) // 7 and 9 are not classes
	writePNG(t, filepath.Join(p, "sub", "b.png"), gray(2, 2, 0, 0, 0, 0))
	writePNG(t, filepath.Join(l, "sub", "b.png"), gray(3, 2, 0, 0, 0, 0, 0, 0))
	writePNG(t, filepath.Join(p, "c.png"), gray(2, 1, 5, 0)) // prediction 5 on a scored pixel
	writePNG(t, filepath.Join(l, "c.png"), gray(2, 1, 1, 0))
	writePNG(t, filepath.Join(p, "d.png"), image.NewRGBA(image.Rect(0, 0, 2, 1)))
	writePNG(t, filepath.Join(l, "d.png"), gray(2, 1, 1, 0))
	ign := filepath.Join(dir, "ign")
	writePNG(t, filepath.Join(ign, "p", "a.png"), gray(2, 1, 1, 0))
	writePNG(t, filepath.Join(ign, "l", "a.png"), gray(2, 1, 255, 255))
	writePNG(t, filepath.Join(dir, "other", "z.png"), gray(2, 1, 1, 0))
	badNames := filepath.Join(dir, "labels.txt")
	_ = os.WriteFile(badNames, []byte("a\nb\n"), 0o644)

	code, _, errOut := runPaddle(t, "seg", "eval", "--pred", p, "--label", l, "--num-classes", "3")
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	for _, w := range []string{
		filepath.Join(l, "a.png") + ": label value 7 at x=2, y=0 (2 such pixels in this file) is not a class (num_classes 3: 0..2) nor the ignore index 255",
		"size mismatch: prediction " + filepath.Join(p, "sub", "b.png") + " is 2x2 but label " + filepath.Join(l, "sub", "b.png") + " is 3x2",
		filepath.Join(p, "c.png") + ": prediction value 5 at x=0, y=0 is not a class (num_classes 3: 0..2)",
		filepath.Join(p, "d.png") + ": colour (RGB) PNG",
		"4 of 4 image pairs could not be scored",
	} {
		if !strings.Contains(errOut, w) {
			t.Errorf("stderr lacks %q:\n%s", w, errOut)
		}
	}

	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"seg", "eval", "--pred", p}, 2, "--pred and --label are both required"},
		{[]string{"seg", "eval", "-c", "x.yaml"}, 2, "seg eval -c needs --weights (a checkpoint directory)"},
		{[]string{"seg", "eval", "--pred", p, "--label", l}, 2, "--num-classes must be between 1 and 256"},
		{[]string{"seg", "eval", "--pred", p, "--label", l, "--num-classes", "3", "--format", "csv"}, 2, `--format "csv"`},
		{[]string{"seg", "eval", "--pred", p, "--label", dir + "/none", "--num-classes", "3"}, 1, "--label: "},
		{[]string{"seg", "eval", "--pred", p, "--label", filepath.Join(dir, "other"), "--num-classes", "3"}, 1, "no PNG file names in common"},
		{[]string{"seg", "eval", "--pred", filepath.Join(ign, "p"), "--label", filepath.Join(ign, "l"), "--num-classes", "3"}, 1,
			"no pixel to score: every label pixel of the 1 images is the ignore index 255"},
		{[]string{"seg", "eval", "--pred", p, "--label", l, "--num-classes", "3", "--labels", badNames}, 2, "names 2 classes but --num-classes is 3"},
	} {
		code, _, errOut := runPaddle(t, tt.args...)
		if code != tt.code || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tt.args, code, errOut, tt.code, tt.want)
		}
	}
}

// A palette PNG's indices are the classes, whatever the colours are; a
// 0/0 Kappa is null in JSON.
func TestEvalPaletteAndNaN(t *testing.T) {
	dir := t.TempDir()
	pal := color.Palette{color.RGBA{200, 0, 0, 255}, color.RGBA{0, 200, 0, 255}}
	pm := image.NewPaletted(image.Rect(0, 0, 2, 2), pal)
	copy(pm.Pix, []uint8{1, 1, 1, 1})
	writePNG(t, filepath.Join(dir, "p", "x.png"), pm)
	writePNG(t, filepath.Join(dir, "l", "x.png"), gray(2, 2, 1, 1, 1, 255))
	code, out, errOut := runPaddle(t, "seg", "eval", "--pred", filepath.Join(dir, "p"), "--label", filepath.Join(dir, "l"),
		"--num-classes", "2", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := `{"miou":1,"acc":1,"kappa":null,"mdice":0.5,"class_iou":[1,1],"class_precision":[0,1],"class_recall":[0,1],"class_dice":[0,1],"images":1}` + "\n"
	if out != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
}
