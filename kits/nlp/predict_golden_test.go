package nlp

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/cli/clitest"
)

// TestPredictGolden pins the records of `nlp predict` for a classifier and
// a span tagger (toy data, two epochs, seeded) on lines from a file and
// stdin, an empty line and a missing file, in
// testdata/golden/predict_{cls,tag}.jsonl (-update rewrites them).
func TestPredictGolden(t *testing.T) {
	dir := t.TempDir()
	var tsv strings.Builder
	for i := range 32 {
		if i%2 == 0 {
			fmt.Fprintf(&tsv, "item %d wonderful and happy\tpos\n", i)
		} else {
			fmt.Fprintf(&tsv, "terrible, sad item %d\tneg\n", i)
		}
	}
	data := writeFile(t, dir, "train.tsv", tsv.String())
	ner := toyNER(t, dir)
	cfgs := map[string]string{
		"cls": `Global: {epochs: 2, seed: 1, tokenizer: ../../core/tokenizer/testdata/wordpiece_vocab.txt, print_batch_step: 100}
Model: {name: BoE, embedding_dim: 16, hidden_dim: 16}
Optimizer: {name: Adam, lr: {name: Const, learning_rate: 0.01}}
DataLoader:
  Train: {dataset: {name: TSVDataset, data_file: ` + data + `}, sampler: {batch_size: 16, shuffle: true}}
`,
		"tag": `Global: {epochs: 2, seed: 3, min_freq: 1, print_batch_step: 100}
Model: {name: BiLSTMCRF, embedding_dim: 16, char_dim: 8, char_filters: 8, max_word_len: 8, hidden_size: 16}
Optimizer: {name: Adam, lr: {name: Const, learning_rate: 0.02}}
DataLoader:
  Train: {dataset: {name: CoNLLDataset, data_file: ` + ner + `, scheme: BIO}, sampler: {batch_size: 16, shuffle: true}}
`,
	}
	in := writeFile(t, dir, "in.txt", "the plan was wonderful and happy\n\nWe met Dan Hart today.\n")
	for _, task := range []string{"cls", "tag"} {
		cfg := writeFile(t, dir, task+".yaml", cfgs[task])
		out := filepath.Join(dir, task)
		if code, _, errOut := paddle(t, "", "nlp", "train", "-c", cfg, "--output", out); code != 0 {
			t.Fatalf("%s: train exit %d:\n%s", task, code, errOut)
		}
		_, stdout, _ := paddle(t, "terrible, sad report\n", "nlp", "predict", "--weights", filepath.Join(out, "latest"), "--format", "jsonl",
			in, "-", filepath.Join(dir, "missing.txt"))
		clitest.Golden(t, filepath.Join("testdata", "golden", "predict_"+task+".jsonl"), stdout, map[string]string{dir: "$TMP"})
	}
}
