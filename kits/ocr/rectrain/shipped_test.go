package rectrain

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"paddle/core/cli/iostreams"
	"paddle/core/config"
	"paddle/core/workflow"
	"paddle/kits/ocr/synth"
)

// shippedCorpus is text the shipped model never trained on (it trained on fortunes).
const shippedCorpus = `Go is an open source programming language that makes it simple to build secure, scalable systems.
The quick brown fox jumps over the lazy dog while 42 zebras watch from the hill (at 7:30 pm).
Optical character recognition converts images of typed, handwritten or printed text into machine-encoded text.
PaddleOCR trains detection and recognition models; this binary re-builds them in Go, version 1.26.
Send the 3 reports to Alice and Bob by Friday, then call 555-0199 for the next steps.`

// The recogniser scripts/train_rec_en.sh trained (testdata/rec_crnn_en: 0.904
// line accuracy on held-out Liberation fonts, see docs/ocr.md) loads from its
// checkpoint and reads 200 new lines rendered in DejaVu Sans (a training
// font family, new texts and seeds). Measured (2026-11-30): shipped acc
// 0.915 / norm_edit_dis 0.981; untrained acc 0.000 / norm_edit_dis 0.002.
// The floor (acc ≥ 0.46) is halfway.
func TestShippedModel(t *testing.T) {
	if _, err := os.Stat(heldOutFont); err != nil {
		t.Skipf("font missing (scripts/setup.sh installs fonts-dejavu-core): %v", err)
	}
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus.txt")
	os.WriteFile(corpus, []byte(shippedCorpus), 0o644)
	lines, _ := synth.ReadCorpus(corpus)
	texts, err := synth.NewTexts(lines, "en", 1, 12)
	if err != nil {
		t.Fatal(err)
	}
	fonts, _ := synth.LoadFonts(heldOutFont)
	if _, err := synth.Generate(context.Background(), synth.Options{Out: dir, Count: 200, Texts: texts, Fonts: fonts, Seed: 11,
		Workers: 2, Line: synth.LineOptions{MinSize: 24, MaxSize: 40, Augment: synth.DefaultAugment()}}); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load("ocr/rec_crnn_en.yaml", "Eval.dataset.data_dir="+dir, "Eval.dataset.label_file_list=["+filepath.Join(dir, "rec_gt.txt")+"]")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ios, _, _, _ := iostreams.Test()
	rep, err := r.Eval(context.Background(), workflow.Env{IO: workflow.IO{In: ios.In, Out: ios.Out}, Weights: "testdata/rec_crnn_en"})
	if err != nil {
		t.Fatal(err)
	}
	ru := r.(*runner)
	fresh, _ := ru.newModel()
	task, _ := ru.task(fresh, false)
	before, err := task.Eval(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("new DejaVu Sans lines: shipped model %v; untrained %v", rep, before)
	if rep.Count != 200 || rep.Values["acc"] < 0.46 {
		t.Fatalf("%v over %d lines", rep, rep.Count)
	}
}
