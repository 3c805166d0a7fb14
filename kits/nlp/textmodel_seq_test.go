package nlp

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/tensor"
)

// seqModels are the sequence classifiers' Model sections under test.
var seqModels = []struct{ name, yaml string }{
	{"BiLSTM", "{name: BiLSTM, embedding_dim: 16, hidden_size: 16}"},
	{"BiGRU-max", "{name: BiGRU, embedding_dim: 16, hidden_size: 16, pooling: max}"},
	{"Transformer-learned", "{name: Transformer, d_model: 16, nhead: 2, num_layers: 2, dropout: 0}"},
	{"Transformer-sinusoidal-attention", "{name: Transformer, d_model: 16, nhead: 4, num_layers: 1, positions: sinusoidal, pooling: attention, dropout: 0}"},
}

// A text's logits must not depend on the padding its batch adds: the
// recurrent models run each row for its own length, the Transformer and
// the poolings mask padding out. Each text alone vs in a batch padded to
// 9 ids.
func TestSeqModelsIgnorePadding(t *testing.T) {
	texts := [][]int64{{5, 3, 9, 2, 7, 7, 4, 8, 6}, {4, 2}, {9, 9, 9, 1, 3}}
	for _, tc := range seqModels {
		t.Run(tc.name, func(t *testing.T) {
			c := modelComponent(t, tc.yaml)
			m, err := buildModel(c, 10, 3, 16, rand.New(rand.NewPCG(1, 2)))
			if err != nil {
				t.Fatal(err)
			}
			batch := tensor.New(tensor.Int64, len(texts), 9)
			for i, ids := range texts {
				copy(batch.I64()[i*9:], ids)
			}
			var all []float32
			ag.NoGrad(func() { all = m.Logits(ag.Const(batch), false).T.Contiguous().F32() })
			for i, ids := range texts {
				var one []float32
				ag.NoGrad(func() {
					one = m.Logits(ag.Const(tensor.FromSlice(ids, 1, len(ids))), false).T.Contiguous().F32()
				})
				for j := range one {
					if d := one[j] - all[i*3+j]; d > 1e-5 || d < -1e-5 {
						t.Fatalf("text %d: alone %v, padded in a batch %v", i, one, all[i*3:i*3+3])
					}
				}
			}
		})
	}
}

func modelComponent(t *testing.T, y string) config.Component {
	t.Helper()
	cfg, err := config.Parse("", "model.yaml", []byte("Model: "+y+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	var c config.Component
	if err := cfg.Decode("Model", &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// toyData writes a two-class task whose class shows in one of two word
// sets, in word orders that vary.
func toyData(t *testing.T, dir string) (train, dev string) {
	fill := []string{"the", "report", "said", "that", "a", "new", "plan", "would", "be", "ready", "by", "june"}
	gen := func(n int, seed int) string {
		var b strings.Builder
		for i := range n {
			w := fill[(i*7+seed)%len(fill)] + " " + fill[(i*5+seed+3)%len(fill)]
			if i%2 == 0 {
				b.WriteString(w + " wonderful and happy " + fill[i%len(fill)] + "\tpos\n")
			} else {
				b.WriteString(fill[i%len(fill)] + " terrible, sad " + w + "\tneg\n")
			}
		}
		return b.String()
	}
	return writeFile(t, dir, "train.tsv", gen(64, 0)), writeFile(t, dir, "dev.tsv", gen(20, 5))
}

// Each sequence model learns the toy task through the CLI (train, eval
// --format json): dev accuracy 1 after 12 epochs of 4 steps (chance is
// 0.5). BiLSTM and Transformer take their vocabulary from the words.
func TestSeqModelsLearnToy(t *testing.T) {
	for _, tc := range seqModels {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			train, dev := toyData(t, dir)
			cfg := writeFile(t, dir, "m.yaml", fmt.Sprintf(`
Global: {epochs: 12, seed: 1, print_batch_step: 100, min_freq: 1}
Model: %s
Optimizer: {name: Adam, lr: {name: Const, learning_rate: 0.01}}
DataLoader:
  Train: {dataset: {name: TSVDataset, data_file: %s}, sampler: {batch_size: 16, shuffle: true}}
  Eval: {dataset: {name: TSVDataset, data_file: %s}, sampler: {batch_size: 20}}
`, tc.yaml, train, dev))
			out := filepath.Join(dir, "out")
			if code, _, errOut := paddle(t, "", "nlp", "train", "-c", cfg, "--output", out); code != 0 {
				t.Fatalf("train exit %d:\n%s", code, errOut)
			}
			code, stdout, errOut := paddle(t, "", "nlp", "eval", "-c", cfg, "--weights", filepath.Join(out, "latest"), "--format", "json")
			if code != 0 {
				t.Fatalf("eval exit %d:\n%s", code, errOut)
			}
			var rep struct {
				Metrics map[string]float64 `json:"metrics"`
			}
			if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
				t.Fatal(err)
			}
			if rep.Metrics["accuracy"] != 1 {
				t.Fatalf("dev %v, want accuracy 1", rep.Metrics)
			}
		})
	}
}

func TestSeqModelConfigErrors(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"{name: BiLSTM, pooling: last}", `pooling "last": want attention, max or mean`},
		{"{name: Transformer, d_model: 10, nhead: 4}", "nhead dividing d_model"},
		{"{name: Transformer, positions: rotary}", `positions "rotary": want learned or sinusoidal`},
		{"{name: BiGRU, hidden: 3}", "hidden"},
		{"{name: RNN}", "unknown model \"RNN\" (known: BiGRU, BiLSTM, BoE, TextCNN, Transformer)"},
	} {
		_, err := buildModel(modelComponent(t, c.yaml), 10, 2, 8, rand.New(rand.NewPCG(1, 1)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", c.yaml, err, c.want)
		}
	}
}
