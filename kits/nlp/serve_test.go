package nlp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/cli/iostreams"
	"paddle/core/serve"
)

// `paddle serve nlp` through the kit's Serve hook, from an export and from
// the checkpoint: a posted text gets predict's {text, label, score}, the
// same as predict gives; invalid UTF-8 is a 400, no model flag a usage error.
func TestServeText(t *testing.T) {
	dir := t.TempDir()
	train, dev := toyData(t, dir)
	cfg := writeFile(t, dir, "m.yaml", `
Global: {epochs: 8, seed: 1, print_batch_step: 100, min_freq: 1}
Model: {name: BoE, embedding_dim: 16, hidden_dim: 16}
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
	if code, _, errOut := paddle(t, "", "nlp", "export", "--weights", ckpt, "--output", exp); code != 0 {
		t.Fatalf("export exit %d:\n%s", code, errOut)
	}
	texts := []string{"the plan was wonderful and happy", "terrible, sad report"}
	_, predicted, _ := paddle(t, strings.Join(texts, "\n")+"\n", "nlp", "predict", "--model", exp, "-")
	want := readPredictions(t, predicted)
	if len(want) != 2 || want[0].Label != "pos" || want[1].Label != "neg" {
		t.Fatalf("predict: %+v", want)
	}
	for _, flag := range []string{"--model=" + exp, "--weights=" + ckpt} {
		t.Run(strings.TrimPrefix(strings.SplitN(flag, "=", 2)[0], "--"), func(t *testing.T) {
			ios, _, _, _ := iostreams.Test()
			f := &cmdutil.Factory{IOStreams: ios}
			cmd := &cobra.Command{Use: "nlp"}
			load := Serve(f, cmd)
			if err := cmd.ParseFlags([]string{flag}); err != nil {
				t.Fatal(err)
			}
			p, err := load(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(serve.New("nlp", p, serve.Options{Concurrency: 4, Queue: 16}))
			defer srv.Close()
			for i, text := range texts {
				res, err := http.Post(srv.URL+"/v1/nlp", "text/plain; charset=utf-8", strings.NewReader(text+"\n"))
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(res.Body)
				res.Body.Close()
				var got TextPrediction
				if res.StatusCode != http.StatusOK || json.Unmarshal(body, &got) != nil || got != want[i] {
					t.Errorf("POST %q: %d %s, want %+v", text, res.StatusCode, body, want[i])
				}
			}
			// concurrent requests share the one model and get the same answers
			var wg sync.WaitGroup
			errs := make(chan string, 16)
			for g := range 16 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					res, err := http.Post(srv.URL+"/v1/nlp", "text/plain", strings.NewReader(texts[g%2]))
					if err != nil {
						errs <- err.Error()
						return
					}
					defer res.Body.Close()
					var got TextPrediction
					if err := json.NewDecoder(res.Body).Decode(&got); err != nil || got != want[g%2] {
						errs <- fmt.Sprintf("concurrent request %d: %+v (%v), want %+v", g, got, err, want[g%2])
					}
				}()
			}
			wg.Wait()
			close(errs)
			for e := range errs {
				t.Error(e)
			}
			res, err := http.Post(srv.URL+"/v1/nlp", "text/plain", strings.NewReader("caf\xe9"))
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "not UTF-8") {
				t.Errorf("invalid UTF-8: %d %s", res.StatusCode, body)
			}
		})
	}
	cmd := &cobra.Command{Use: "nlp"}
	if _, err := Serve(&cmdutil.Factory{}, cmd)(context.Background()); err == nil || !strings.Contains(err.Error(), "give one of --model") {
		t.Errorf("no model flag: %v", err)
	}
}
