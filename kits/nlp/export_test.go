package nlp

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/runtime"
	"paddle/core/runtime/ortcheck"
	"paddle/core/tensor"
	"paddle/core/workflow"
)

func readPredictions(t *testing.T, s string) []TextPrediction {
	t.Helper()
	var out []TextPrediction
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		var p TextPrediction
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		out = append(out, p)
	}
	return out
}

// checkExport compares, on texts padded into one batch (one at a time
// when padded is false), the checkpoint model's probabilities in Go with
// paddle's runtime (≤ 1e-5) and ONNX Runtime (≤ 1e-4) on the export dir.
func checkExport(t *testing.T, cfgFile, ckpt, exp string, texts []string, padded bool) {
	t.Helper()
	cfg, err := config.Load(cfgFile)
	if err != nil {
		t.Fatal(err)
	}
	r, err := build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr := r.(*textRunner)
	model, err := tr.newModel(ckpt)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := workflow.LoadCheckpoint(ckpt, model, nil); err != nil {
		t.Fatal(err)
	}
	var batches []*tensor.Tensor
	if padded {
		b, err := tr.collate(model.MinLen())(examplesOf(texts))
		if err != nil {
			t.Fatal(err)
		}
		batches = append(batches, b.IDs)
	} else {
		for _, s := range texts[:3] {
			b, _ := tr.collate(model.MinLen())(examplesOf([]string{s}))
			batches = append(batches, b.IDs)
		}
	}
	p, err := runtime.Load(filepath.Join(exp, "model.onnx"), runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ids := range batches {
		var want *tensor.Tensor
		ag.NoGrad(func() { want = ag.Softmax(model.Logits(ag.Const(ids), false), -1).T })
		got, err := p.Run(map[string]*tensor.Tensor{"input_ids": ids})
		if err != nil {
			t.Fatal(err)
		}
		d, _ := tensor.MaxDiff(got["probs"], want, 0, 0)
		t.Logf("ids %v: paddle runtime on the export vs Go eval forward: max abs diff %.3g", ids.Shape(), d)
		if d > 1e-5 {
			t.Errorf("paddle runtime on the export differs by %g", d)
		}
		ortcheck.Compare(t, filepath.Join(exp, "model.onnx"), map[string]*tensor.Tensor{"input_ids": ids},
			ortcheck.Output{Name: "probs", Want: want, Tol: 1e-4})
	}
}

func examplesOf(texts []string) []Example {
	ex := make([]Example, len(texts))
	for i, s := range texts {
		ex[i] = Example{Text: s}
	}
	return ex
}

// Every model exports (trained briefly on the toy task), and the export
// computes what the checkpoint does: in paddle's runtime and in ONNX
// Runtime, at a batch size and lengths other than the traced ones
// (recurrent models unpadded, see BiRNN.Logits); predict --model gives
// predict --weights' labels and scores.
func TestExportMatchesCheckpoint(t *testing.T) {
	models := append([]struct{ name, yaml string }{
		{"TextCNN", "{name: TextCNN, embedding_dim: 16, num_filters: 8, widths: [2, 3]}"},
		{"BoE", "{name: BoE, embedding_dim: 16, hidden_dim: 16}"},
	}, seqModels...)
	texts := []string{"the plan was wonderful and happy", "terrible, sad report said that", "happy", "a new plan would be ready by june, terrible"}
	for _, tc := range models {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			train, dev := toyData(t, dir)
			cfg := writeFile(t, dir, "m.yaml", `
Global: {epochs: 2, seed: 1, print_batch_step: 100, min_freq: 1}
Model: `+tc.yaml+`
Optimizer: {name: Adam, lr: {name: Const, learning_rate: 0.01}}
DataLoader:
  Train: {dataset: {name: TSVDataset, data_file: `+train+`}, sampler: {batch_size: 16, shuffle: true}}
  Eval: {dataset: {name: TSVDataset, data_file: `+dev+`}, sampler: {batch_size: 20}}
`)
			out, exp := filepath.Join(dir, "out"), filepath.Join(dir, "exp")
			if code, _, errOut := paddle(t, "", "nlp", "train", "-c", cfg, "--output", out); code != 0 {
				t.Fatalf("train exit %d:\n%s", code, errOut)
			}
			ckpt := filepath.Join(out, "latest")
			code, stdout, errOut := paddle(t, "", "nlp", "export", "--weights", ckpt, "--output", exp)
			if code != 0 || strings.TrimSpace(stdout) != exp {
				t.Fatalf("export exit %d: %q\n%s", code, stdout, errOut)
			}
			inf, err := os.ReadFile(filepath.Join(exp, "inference.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"model_name: " + strings.Fields(strings.Trim(tc.yaml, "{}"))[1], "TextToIds:", "vocab_file: vocab.txt",
				"label_list:", "- neg", "name: input_ids", "shape: [-1, -1]", "dtype: int64"} {
				if !strings.Contains(string(inf), strings.TrimSuffix(want, ",")) {
					t.Errorf("inference.yaml lacks %q:\n%s", want, inf)
				}
			}
			checkExport(t, cfg, ckpt, exp, texts, !strings.HasPrefix(tc.name, "Bi"))

			in := strings.Join(texts, "\n") + "\n"
			code, fromWeights, errOut := paddle(t, in, "nlp", "predict", "--weights", ckpt, "-")
			if code != 0 {
				t.Fatalf("predict --weights: %s", errOut)
			}
			code, fromModel, errOut := paddle(t, in, "nlp", "predict", "--model", exp, "-")
			if code != 0 {
				t.Fatalf("predict --model: %s", errOut)
			}
			pw, pm := readPredictions(t, fromWeights), readPredictions(t, fromModel)
			if len(pw) != len(texts) || len(pm) != len(texts) {
				t.Fatalf("%d and %d predictions for %d texts", len(pw), len(pm), len(texts))
			}
			for i := range pw {
				if pw[i].Label != pm[i].Label || pw[i].Text != texts[i] || pm[i].Text != texts[i] ||
					pw[i].Score-pm[i].Score > 2e-5 || pm[i].Score-pw[i].Score > 2e-5 {
					t.Errorf("--weights %+v, --model %+v", pw[i], pm[i])
				}
			}
		})
	}
}

// An export from a core/tokenizer vocabulary carries the tokenizer file;
// a directory that is not an export is refused with a hint.
func TestExportWithTokenizer(t *testing.T) {
	dir := t.TempDir()
	train, dev := toyData(t, dir)
	cfg := writeFile(t, dir, "boe.yaml", `
Global: {epochs: 1, seed: 1, tokenizer: ../../core/tokenizer/testdata/wordpiece_vocab.txt, print_batch_step: 100}
Model: {name: BoE, embedding_dim: 8, hidden_dim: 8}
Optimizer: {name: Adam, lr: {name: Const, learning_rate: 0.01}}
DataLoader:
  Train: {dataset: {name: TSVDataset, data_file: `+train+`}, sampler: {batch_size: 16, shuffle: true}}
  Eval: {dataset: {name: TSVDataset, data_file: `+dev+`}, sampler: {batch_size: 20}}
`)
	out, exp := filepath.Join(dir, "out"), filepath.Join(dir, "exp")
	if code, _, errOut := paddle(t, "", "nlp", "train", "-c", cfg, "--output", out); code != 0 {
		t.Fatalf("train exit %d:\n%s", code, errOut)
	}
	if code, _, errOut := paddle(t, "", "nlp", "export", "-c", cfg, "--weights", filepath.Join(out, "latest"), "--output", exp); code != 0 {
		t.Fatalf("export exit %d:\n%s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(exp, "tokenizer", "wordpiece_vocab.txt")); err != nil {
		t.Fatal(err)
	}
	in := "the plan was wonderful and happy\n"
	_, fromWeights, _ := paddle(t, in, "nlp", "predict", "-c", cfg, "--weights", filepath.Join(out, "latest"), "-")
	code, fromModel, errOut := paddle(t, in, "nlp", "predict", "--model", exp, "-")
	if code != 0 || fromModel != fromWeights || !strings.Contains(fromModel, `"label"`) {
		t.Fatalf("predict --model exit %d: %q, --weights %q\n%s", code, fromModel, fromWeights, errOut)
	}
	if code, _, errOut := paddle(t, in, "nlp", "predict", "-c", cfg, "--model", filepath.Join(out, "latest"), "-"); code == 0 || !strings.Contains(errOut, "export directory") {
		t.Errorf("--model on a checkpoint: exit %d\n%s", code, errOut)
	}
}
