package ocr

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/cli/cmdutil"
	"paddle/core/cli/iostreams"
	"paddle/core/data"
	"paddle/core/tensor"
	"paddle/kits/ocr/rectrain"
)

// blockDet answers every detection with one text block: rows 25-60 %, columns 10-80 %.
type blockDet struct{}

func (blockDet) Run(in map[string]*tensor.Tensor) (map[string]*tensor.Tensor, error) {
	_, _, h, w := in["x"].Dims4()
	y := tensor.New(tensor.Float32, 1, 1, h, w)
	for r := h / 4; r < h*6/10; r++ {
		for c := w / 10; c < w*8/10; c++ {
			y.F32()[r*w+c] = 0.9
		}
	}
	return map[string]*tensor.Tensor{"y": y}, nil
}

// abRec reads "ab" in every crop (steps a, a, blank, b), score 0.75.
type abRec struct{}

func (abRec) Run(in map[string]*tensor.Tensor) (map[string]*tensor.Tensor, error) {
	n := in["x"].Dim(0)
	y := tensor.New(tensor.Float32, n, 4, 4)
	for i := 0; i < n; i++ {
		d := y.F32()[i*16:]
		d[0*4+1], d[1*4+1], d[2*4+0], d[3*4+2] = 0.7, 0.7, 1, 0.8
	}
	return map[string]*tensor.Tensor{"y": y}, nil
}

func fakeLoad(_ context.Context, src Sources, p Profile) (*System, error) {
	return &System{Det: blockDet{}, Rec: abRec{}, Chars: []string{"blank", "a", "b", " "}, Profile: p}, nil
}

func runPredict(t *testing.T, format, stdin string, args ...string) (string, string, error) {
	t.Helper()
	ios, in, out, errOut := iostreams.Test()
	in.WriteString(stdin)
	f := &cmdutil.Factory{IOStreams: ios}
	f.Settings.Format = format
	cmd := NewCmdPredict(f, func(o *PredictOptions) error {
		o.load = fakeLoad
		return predictRun(context.Background(), o)
	})
	cmd.SetArgs(args)
	cmd.SetOut(out)
	cmd.SetErr(errOut)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.Execute()
	return out.String(), errOut.String(), err
}

func TestPredictJSONL(t *testing.T) {
	a, b := filepath.Join("testdata", "images", "line.png"), filepath.Join("testdata", "images", "sample_en.png")
	bad := filepath.Join(t.TempDir(), "broken.png")
	os.WriteFile(bad, []byte("\x89PNG\r\n\x1a\nnot really"), 0o644)
	out, errOut, err := runPredict(t, "jsonl", "", a, bad, b)
	if !errors.Is(err, cmdutil.ErrSilent) {
		t.Errorf("err = %v, want ErrSilent (exit 1)", err)
	}
	if !strings.Contains(errOut, "broken.png") || !strings.Contains(errOut, "1 of the inputs failed") {
		t.Errorf("stderr %q", errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines: %q", len(lines), out)
	}
	var first struct {
		Image   string
		Results []map[string]any
		Width   int
		Height  int
		Ms      *float64
	}
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatal(err)
	}
	if first.Image != a || first.Width != 300 || first.Height != 48 || first.Ms == nil || len(first.Results) != 1 {
		t.Errorf("first object %s", lines[0])
	}
	r := first.Results[0]
	if r["text"] != "ab" || r["score"] != 0.75 {
		t.Errorf("result %v", r)
	}
	if pts, ok := r["points"].([]any); !ok || len(pts) != 4 {
		t.Errorf("points %v", r["points"])
	}
	// key order as documented
	if !strings.HasPrefix(lines[0], `{"image":`) || !strings.Contains(lines[0], `"results":[{"text":"ab","score":0.75,"points":[[`) {
		t.Errorf("layout %s", lines[0])
	}
	var e map[string]string
	if err := json.Unmarshal([]byte(lines[1]), &e); err != nil || e["image"] != bad || e["error"] == "" || len(e) != 2 {
		t.Errorf("error object %s (%v)", lines[1], err)
	}
}

// An image whose header declares more than --max-pixels is refused before
// it is decoded, and the inputs around it are answered (issue 24).
func TestPredictMaxPixels(t *testing.T) {
	a := filepath.Join("testdata", "images", "line.png") // 300×48
	huge := filepath.Join("..", "..", "core", "data", "testdata", "huge_100000x100000.png")
	out, errOut, err := runPredict(t, "jsonl", "", a, huge, a)
	if !errors.Is(err, cmdutil.ErrSilent) {
		t.Errorf("err = %v, want ErrSilent (exit 1)", err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], `"text":"ab"`) || !strings.Contains(lines[2], `"text":"ab"`) {
		t.Fatalf("output %q: want the two good inputs answered around the huge one", out)
	}
	if !strings.Contains(lines[1], huge) || !strings.Contains(lines[1], "more than the limit of 100000000") {
		t.Errorf("huge input: %s", lines[1])
	}
	if !strings.Contains(errOut, "--max-pixels") {
		t.Errorf("stderr %q does not name the flag", errOut)
	}
	// the flag sets the limit: 300×48 = 14400 pixels
	out, _, err = runPredict(t, "jsonl", "", "--max-pixels", "14399", a)
	if !errors.Is(err, cmdutil.ErrSilent) || !strings.Contains(out, "more than the limit of 14399") {
		t.Errorf("--max-pixels 14399: %q %v", out, err)
	}
	if _, _, err := runPredict(t, "jsonl", "", "--max-pixels", "14400", a); err != nil {
		t.Errorf("--max-pixels 14400: %v", err)
	}
}

func TestPredictTextAndJSON(t *testing.T) {
	a, b := filepath.Join("testdata", "images", "line.png"), filepath.Join("testdata", "images", "tiny.png")
	out, _, err := runPredict(t, "text", "", a)
	if err != nil || out != "ab\n" {
		t.Errorf("one input: %q %v", out, err)
	}
	// several inputs (here from stdin): a header per file
	out, _, err = runPredict(t, "text", a+"\n"+b+"\n", "-")
	want := "==> " + a + " <==\nab\n\n==> " + b + " <==\nab\n"
	if err != nil || out != want {
		t.Errorf("two inputs: %q, want %q (%v)", out, want, err)
	}
	out, _, err = runPredict(t, "json", "", a, b, "--det=false")
	var arr []map[string]any
	if err != nil || json.Unmarshal([]byte(out), &arr) != nil || len(arr) != 2 {
		t.Fatalf("json: %q %v", out, err)
	}
	res := arr[1]["results"].([]any)[0].(map[string]any)
	if _, has := res["points"]; has || res["text"] != "ab" {
		t.Errorf("--det=false result %v", res)
	}
}

func TestPredictDrawAndPDF(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := runPredict(t, "text", "", "--draw", dir, filepath.Join("testdata", "images", "line.png")); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "line.png"))
	if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Errorf("draw output: %v", err)
	}
	t.Setenv("PATH", t.TempDir())
	pdf := filepath.Join(dir, "doc.pdf")
	os.WriteFile(pdf, []byte("%PDF-1.4"), 0o644)
	_, errOut, err := runPredict(t, "text", "", pdf)
	if !errors.Is(err, cmdutil.ErrSilent) || !strings.Contains(errOut, "pdftoppm") {
		t.Errorf("pdf without pdftoppm: %q %v", errOut, err)
	}
	if got := drawName("doc", "a/doc.pdf#page=2"); got != "doc_page2.png" {
		t.Errorf("drawName %q", got)
	}
}

// Two inputs of the same base name get two drawings, each of its own input
// (issue 24: the second overwrote the first).
func TestPredictDrawSameBaseName(t *testing.T) {
	src, draw := t.TempDir(), t.TempDir()
	var paths []string
	for _, c := range []struct{ dir, img string }{{"a", "line.png"}, {"b", "sample_en.png"}} {
		b, err := os.ReadFile(filepath.Join("testdata", "images", c.img))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(src, c.dir, "same.png")
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, b, 0o644)
		paths = append(paths, p)
	}
	if _, errOut, err := runPredict(t, "jsonl", strings.Join(paths, "\n")+"\n", "--draw", draw, "-"); err != nil {
		t.Fatalf("%v: %s", err, errOut)
	}
	for i, name := range []string{"same.png", "same_2.png"} {
		want, _ := data.DecodeFile(paths[i], data.RGB)
		got, err := data.DecodeFile(filepath.Join(draw, name), data.RGB)
		// a drawing is the page and its text side by side
		if err != nil || want == nil || got.W != 2*want.W || got.H != want.H {
			t.Errorf("%s: %v, want the %d×%d drawing of %s", name, err, 2*want.W, want.H, paths[i])
		}
	}
	if ents, _ := os.ReadDir(draw); len(ents) != 2 {
		t.Errorf("draw folder holds %d files, want 2", len(ents))
	}
}

func TestPredictFlags(t *testing.T) {
	for _, args := range [][]string{{}, {"--profile", "v9", "x.png"}, {"--batch", "0", "x.png"}, {"--max-pixels", "0", "x.png"}, {"--precision", "int4", "x.png"}} {
		_, _, err := runPredict(t, "text", "", args...)
		var fe *cmdutil.FlagError
		if !errors.As(err, &fe) {
			t.Errorf("%v: err %v, want a flag error", args, err)
		}
	}
}

// --format paddleocr writes PaddleOCR's detection label lines, which the
// project's own PaddleOCR det label reader reads back: the same paths,
// transcriptions and boxes as the jsonl records. A failed input is only on
// stderr (a label file has no place for it).
func TestPredictPaddleOCRFormat(t *testing.T) {
	a, b := filepath.Join("testdata", "images", "line.png"), filepath.Join("testdata", "images", "sample_en.png")
	bad := filepath.Join(t.TempDir(), "broken.png")
	os.WriteFile(bad, []byte("not a png"), 0o644)
	labels, errOut, err := runPredict(t, "paddleocr", "", a, bad, b)
	if !errors.Is(err, cmdutil.ErrSilent) || !strings.Contains(errOut, "broken.png") {
		t.Errorf("err = %v, stderr %q; want exit 1 naming broken.png", err, errOut)
	}
	jsonl, _, _ := runPredict(t, "jsonl", "", a, b)
	lines := strings.Split(strings.TrimSuffix(labels, "\n"), "\n")
	recs := strings.Split(strings.TrimSuffix(jsonl, "\n"), "\n")
	if len(lines) != 2 || len(recs) != 2 {
		t.Fatalf("label lines %q, records %q", labels, jsonl)
	}
	// PaddleOCR's layout exactly: json.dumps spacing, integer points.
	if want := a + "\t" + `[{"transcription": "ab", "points": [[15, 2], [253, 2], [253, 38], [15, 38]]}]`; lines[0] != want {
		t.Errorf("line\n%q\nwant\n%q", lines[0], want)
	}
	for i, line := range lines {
		it, err := rectrain.ParseDetLine(line, "", "\t")
		if err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		var o Output
		if err := json.Unmarshal([]byte(recs[i]), &o); err != nil {
			t.Fatal(err)
		}
		if it.Path != o.Image || len(it.Boxes) != len(o.Results) {
			t.Fatalf("line %d read back as %+v; record %s", i, it, recs[i])
		}
		for j, box := range it.Boxes {
			r := o.Results[j]
			if box.Text != r.Text || len(box.Points) != len(r.Points) {
				t.Errorf("box %d: %+v, record %+v", j, box, r)
				continue
			}
			for k, p := range box.Points {
				if p != [2]float64{float64(r.Points[k][0]), float64(r.Points[k][1])} {
					t.Errorf("box %d point %d: %v, record %v", j, k, p, r.Points[k])
				}
			}
		}
	}
	if _, _, err := runPredict(t, "paddleocr", "", "--det=false", a); err == nil || !strings.Contains(err.Error(), "needs --det") {
		t.Errorf("--det=false: err %v", err)
	}
}
