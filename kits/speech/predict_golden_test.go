package speech

import (
	"os"
	"path/filepath"
	"testing"

	"paddle/core/cli/clitest"
	"paddle/core/cli/cmdutil"
	"paddle/core/config"
	"paddle/core/hub"
	"paddle/core/nn"
	"paddle/core/workflow"
)

// TestPredictGolden pins the records of `speech predict` for a keyword
// spotter, an audio classifier and a recogniser (untrained, seeded models
// saved as checkpoints) on real recordings (pocketsphinx-testdata's cards)
// and a broken file, in testdata/golden/predict_{kws,cls,asr}.jsonl
// (-update rewrites them).
func TestPredictGolden(t *testing.T) {
	cards := filepath.Join(hub.CacheDir(), "data", "speech", "pocketsphinx", "cards")
	if _, err := os.Stat(filepath.Join(cards, "001.wav")); err != nil {
		t.Skip("pocketsphinx-testdata not in the cache (scripts/setup.sh)")
	}
	dir := t.TempDir()
	labels := filepath.Join(dir, "labels.txt")
	os.WriteFile(labels, []byte("yes\nno\nup\n_unknown_\n_silence_\n"), 0o644)
	bad := filepath.Join(dir, "broken.wav")
	os.WriteFile(bad, []byte("RIFF not really"), 0o644)
	save := func(name string, cfg *config.Config, m nn.Module) string {
		t.Helper()
		y, err := cfg.YAML()
		if err != nil {
			t.Fatal(err)
		}
		ck := filepath.Join(dir, name)
		if err := workflow.SaveCheckpoint(ck, m, nil, workflow.State{}, y); err != nil {
			t.Fatal(err)
		}
		return ck
	}
	load := func(path string, overrides ...string) (workflow.Runner, *config.Config) {
		t.Helper()
		cfg, err := config.Load(path, overrides...)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Kit().Build(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return r, cfg
	}
	ck := map[string]string{}
	r, cfg := load("../../configs/speech/kws_mdtc_8k.yaml", "Global.label_file="+labels, "Global.seed=1", "Arch.channels=8")
	km, err := r.(*kwsRunner).newModel()
	if err != nil {
		t.Fatal(err)
	}
	ck["kws"] = save("kws", cfg, km)
	r, cfg = load("../../configs/speech/cls_langid.yaml", "Global.label_file="+labels, "Arch.channels=[8,16,16]")
	cm, err := r.(*clsRunner).newModel()
	if err != nil {
		t.Fatal(err)
	}
	ck["cls"] = save("cls", cfg, cm)
	r, cfg = load("../../configs/speech/asr_gru.yaml")
	am, err := newASRModel(r.(*asrRunner).c)
	if err != nil {
		t.Fatal(err)
	}
	ck["asr"] = save("asr", cfg, am)
	for _, task := range []string{"kws", "cls", "asr"} {
		code, out, errOut := clitest.Run(t, []*cmdutil.Kit{Kit()}, "", "speech", "predict", "--weights", ck[task], "--format", "jsonl",
			filepath.Join(cards, "001.wav"), bad, filepath.Join(cards, "002.wav"))
		if code != 1 {
			t.Errorf("%s: exit %d, want 1 (one broken input):\n%s", task, code, errOut)
		}
		clitest.Golden(t, filepath.Join("testdata", "golden", "predict_"+task+".jsonl"), out, map[string]string{dir: "$TMP", cards: "$CARDS"})
	}
}
