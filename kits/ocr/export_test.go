package ocr

import (
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/cli/cmdutil"
	"paddle/core/cli/iostreams"
	"paddle/core/config"
	"paddle/core/imgproc"
	"paddle/core/workflow"
	"paddle/kits/ocr/rectrain"
	"paddle/kits/ocr/synth"
)

// exportShippedRec exports the CRNN kits/ocr/rectrain ships (trained on DejaVu,
// FreeFont and Go fonts at 3×32×128) into a temporary folder.
func exportShippedRec(t *testing.T) string {
	t.Helper()
	ckpt := filepath.Join("rectrain", "testdata", "rec_crnn_en")
	cfg, err := config.Load(filepath.Join(ckpt, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := rectrain.Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ios, _, _, _ := iostreams.Test()
	if err := r.(workflow.Exporter).Export(context.Background(), workflow.Env{IO: workflow.IO{In: ios.In, Out: ios.Out}, Weights: ckpt}, dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// renderPage renders text cleanly in DejaVu Sans and pastes it on a white page
// with a margin; it returns the page (BGR) and the line alone.
func renderPage(t *testing.T, text string) (page, line imgproc.Mat8) {
	t.Helper()
	const font = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
	fonts, err := synth.LoadFonts(font)
	if err != nil {
		t.Skipf("font missing (scripts/setup.sh installs fonts-dejavu-core): %v", err)
	}
	img, err := synth.RenderLine(text, fonts[0], synth.LineOptions{MinSize: 32, MaxSize: 32}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	line = imgproc.Mat8{H: img.H, W: img.W, C: 3, Pix: make([]uint8, len(img.Pix))}
	for i := 0; i < len(img.Pix); i += 3 { // RGB → BGR
		line.Pix[i], line.Pix[i+1], line.Pix[i+2] = img.Pix[i+2], img.Pix[i+1], img.Pix[i]
	}
	const m = 48
	page = imgproc.Mat8{H: img.H + 2*m, W: img.W + 2*m, C: 3}
	page.Pix = make([]uint8, page.H*page.W*3)
	for i := range page.Pix {
		page.Pix[i] = 255
	}
	for y := range line.H {
		copy(page.Pix[((y+m)*page.W+m)*3:], line.Pix[y*line.W*3:(y+1)*line.W*3])
	}
	return page, line
}

func writePNG(t *testing.T, path string, m imgproc.Mat8) {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, m.W, m.H))
	for y := range m.H {
		for x := range m.W {
			p := m.Pix[(y*m.W+x)*3:]
			img.Set(x, y, color.RGBA{p[2], p[1], p[0], 255})
		}
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

// The exported CRNN loads as --rec-model: LoadSystem takes its dictionary and
// its 32×128 input shape from inference.yaml, and it reads a rendered line,
// alone (System.PredictLine and `paddle ocr predict --det=false`); with the stock
// PP-OCRv4 detector, `paddle ocr predict` finds the line on a page.
func TestPredictWithExportedRec(t *testing.T) {
	const text = "Recognise 42 lines"
	pg, line := renderPage(t, text)
	exp := exportShippedRec(t)
	sys, err := LoadSystem(context.Background(), Sources{Rec: exp, Offline: true}, ProfileV2())
	if err != nil {
		t.Fatal(err)
	}
	if sys.RecIn != (RecShape{H: 32, W: 128}) || len(sys.Chars) != 96 || sys.Chars[95] != " " {
		t.Fatalf("system from the export: input %+v, %d classes (last %q); want 32×128, 96 ending in a space", sys.RecIn, len(sys.Chars), sys.Chars[len(sys.Chars)-1])
	}
	res, err := sys.PredictLine(line)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("--det=false: %q (%.3f)", res.Text, res.Score)
	if res.Text != text {
		t.Errorf("exported CRNN reads %q, want %q", res.Text, text)
	}

	tmp := t.TempDir()
	lineImg, pageImg := filepath.Join(tmp, "line.png"), filepath.Join(tmp, "page.png")
	writePNG(t, lineImg, line)
	writePNG(t, pageImg, pg)
	o := predictJSONL(t, "--offline", "--det=false", "--rec-model", exp, lineImg)
	if len(o.Results) != 1 || o.Results[0].Text != text {
		t.Errorf("predict --det=false --rec-model EXPORT: %+v, want %q", o.Results, text)
	}
	dir := storeDir()
	if dir == "" {
		t.Skip("ppocrv4 models not found (scripts/fetch_ppocrv4.sh): page with the stock detector not run")
	}
	// The stock detector's boxes hug the ink more tightly than the synthetic lines
	// the CRNN trained on (font ascent + descent plus 5-25 % margins), so the text
	// it reads there is not checked, only that the page gives one line.
	o = predictJSONL(t, "--offline", "--det-model", filepath.Join(dir, storeDet), "--rec-model", exp, pageImg)
	t.Logf("page with the stock PP-OCRv4 detector: %+v", o.Results)
	if len(o.Results) != 1 || len(o.Results[0].Points) != 4 {
		t.Errorf("predict with the stock detector and the exported CRNN: %+v, want one line", o.Results)
	}
}

// predictJSONL runs `paddle ocr predict --format jsonl args...` on one image.
func predictJSONL(t *testing.T, args ...string) Output {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	f := &cmdutil.Factory{IOStreams: ios}
	f.Settings.Format = "jsonl"
	cmd := NewCmdPredict(f, nil)
	cmd.SetArgs(args)
	cmd.SetOut(out)
	cmd.SetErr(errOut)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatalf("predict %v: %v\n%s", args, err, errOut)
	}
	var o Output
	if err := json.Unmarshal([]byte(strings.TrimSpace(out.String())), &o); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return o
}
