package ocr

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"paddle/core/cli/clitest"
	"paddle/core/cli/cmdutil"
	"paddle/core/cli/iostreams"
)

// goldenPredict runs `paddle ocr predict args...` with load as the model
// loader and compares its output with testdata/golden/predict_<name>.jsonl
// (go test -run TestPredictGolden -update rewrites them).
func goldenPredict(t *testing.T, name string, load func(context.Context, Sources, Profile) (*System, error), tmp string, args ...string) {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	f := &cmdutil.Factory{IOStreams: ios}
	cmd := NewCmdPredict(f, func(o *PredictOptions) error {
		o.load = load
		return predictRun(context.Background(), o)
	})
	f.Settings.Format = "jsonl"
	for i, a := range args {
		if a == "--format" {
			f.Settings.Format = args[i+1]
			args = append(args[:i:i], args[i+2:]...)
			break
		}
	}
	cmd.SetArgs(args)
	cmd.SetOut(out)
	cmd.SetErr(errOut)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	_ = cmd.Execute() // a broken input fails the run (exit 1); its record is in the golden file
	clitest.Golden(t, filepath.Join("testdata", "golden", "predict_"+name+".jsonl"), out.String(), map[string]string{tmp: "$TMP"})
}

// TestPredictGolden pins the records of `ocr predict`: with stand-in models
// (every flag), and with the PP-OCRv4 models when they are in the cache.
func TestPredictGolden(t *testing.T) {
	img := func(n string) string { return filepath.Join("testdata", "images", n) }
	tmp := t.TempDir()
	bad := filepath.Join(tmp, "broken.png")
	os.WriteFile(bad, []byte("\x89PNG\r\n\x1a\nnot really"), 0o644)
	goldenPredict(t, "fake", fakeLoad, tmp, img("line.png"), bad, img("sample_en.png"))
	goldenPredict(t, "fake_json", fakeLoad, tmp, "--format", "json", img("line.png"), bad)
	goldenPredict(t, "fake_nodet", fakeLoad, tmp, "--det=false", img("line.png"), img("tiny.png"))
	t.Run("ppocrv4", func(t *testing.T) {
		systems := realSystems(t)
		real := func(_ context.Context, src Sources, p Profile) (*System, error) {
			s := *systems[src.UseCls]
			s.Profile = p
			return &s, nil
		}
		goldenPredict(t, "ppocrv4", real, tmp, img("sample_en.png"), img("mix_zh_en.png"), bad)
		goldenPredict(t, "ppocrv4_nodet", real, tmp, "--det=false", img("line.png"))
		goldenPredict(t, "ppocrv4_cls", real, tmp, "--cls", img("rotated.png"))
	})
}
