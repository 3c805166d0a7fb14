package speech

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/spf13/cobra"

	"paddle/core/audio"
	"paddle/core/cli/cmdutil"
	"paddle/core/cli/iostreams"
	"paddle/core/config"
	"paddle/core/serve"
	"paddle/core/workflow"
)

// `paddle serve speech` through the kit's Serve hook, from a checkpoint (an
// untrained DS-CNN saved with its config) and from its export: a posted WAV —
// a short one and one longer than the window, at another rate — gets the
// same object `speech kws` prints for the file; concurrent requests agree;
// a body that is not WAV is a 400; no model flag is a usage error.
func TestServeKWS(t *testing.T) {
	dir := t.TempDir()
	labels := filepath.Join(dir, "labels.txt")
	if err := os.WriteFile(labels, []byte("yes\nno\n_unknown_\n_silence_\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load("../../configs/speech/kws_dscnn.yaml", "Global.label_file="+labels, "Arch.channels=16", "Arch.blocks=2")
	if err != nil {
		t.Fatal(err)
	}
	r, err := buildKWS(cfg)
	if err != nil {
		t.Fatal(err)
	}
	model, err := r.(*kwsRunner).newModel()
	if err != nil {
		t.Fatal(err)
	}
	yml, err := cfg.YAML()
	if err != nil {
		t.Fatal(err)
	}
	ckpt, exp := filepath.Join(dir, "ckpt"), filepath.Join(dir, "exp")
	if err := workflow.SaveCheckpoint(ckpt, model, nil, workflow.State{}, yml); err != nil {
		t.Fatal(err)
	}
	if _, err := runSpeech(t, "speech", "export", "--weights", ckpt, "--output", exp); err != nil {
		t.Fatal("export failed")
	}
	// a 0.6 s chirp at 16 kHz and a 2.5 s one at 8 kHz (resampled by both paths)
	var files []string
	for i, c := range []struct{ rate, n int }{{16000, 9600}, {8000, 20000}} {
		x := make([]float32, c.n)
		for j := range x {
			tt := float64(j) / float64(c.rate)
			x[j] = float32(0.3 * math.Sin(2*math.Pi*(200+300*tt)*tt*float64(i+1)))
		}
		p := filepath.Join(dir, []string{"a.wav", "b.wav"}[i])
		if err := audio.WriteWAV(p, &audio.Audio{Rate: c.rate, Channels: [][]float32{x}}, audio.PCM16); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	for _, flag := range []string{"--model=" + exp, "--weights=" + ckpt} {
		name, src, _ := strings.Cut(strings.TrimPrefix(flag, "--"), "=")
		t.Run(name, func(t *testing.T) {
			out, err := runSpeech(t, "speech", "kws", "--"+name, src, "--input", files[0], "--input", files[1])
			if err != nil {
				t.Fatal("kws failed")
			}
			want := readPredictions(t, out)
			if len(want) != 2 || want[1].Start == nil {
				t.Fatalf("kws: %+v", want)
			}
			ios, _, _, _ := iostreams.Test()
			cmd := &cobra.Command{Use: "speech"}
			load := Serve(&cmdutil.Factory{IOStreams: ios}, cmd)
			if err := cmd.ParseFlags([]string{flag}); err != nil {
				t.Fatal(err)
			}
			p, err := load(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(serve.New("speech", p, serve.Options{Concurrency: 4, Queue: 16}))
			defer srv.Close()
			post := func(i int) (KWSPrediction, int, string) {
				body, _ := os.ReadFile(files[i])
				res, err := http.Post(srv.URL+"/v1/speech?name="+files[i], "audio/wav", bytes.NewReader(body))
				if err != nil {
					return KWSPrediction{}, 0, err.Error()
				}
				defer res.Body.Close()
				b, _ := io.ReadAll(res.Body)
				var got KWSPrediction
				_ = json.Unmarshal(b, &got)
				return got, res.StatusCode, string(b)
			}
			same := func(a, b KWSPrediction) bool {
				return a.File == b.File && a.Label == b.Label && a.Score == b.Score && (a.Start == nil) == (b.Start == nil) &&
					(a.Start == nil || *a.Start == *b.Start && *a.End == *b.End)
			}
			for i := range files {
				if got, code, body := post(i); code != http.StatusOK || !same(got, want[i]) {
					t.Errorf("POST %s: %d %s, want %+v", files[i], code, body, want[i])
				}
			}
			var wg sync.WaitGroup
			errs := make(chan string, 8)
			for g := range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if got, code, body := post(g % 2); code != http.StatusOK || !same(got, want[g%2]) {
						errs <- "concurrent: " + body
					}
				}()
			}
			wg.Wait()
			close(errs)
			for e := range errs {
				t.Error(e)
			}
			res, err := http.Post(srv.URL+"/v1/speech", "audio/wav", strings.NewReader("ID3\x04 not a wav file at all"))
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), "not a WAV") {
				t.Errorf("not WAV: %d %s", res.StatusCode, b)
			}
		})
	}
	cmd := &cobra.Command{Use: "speech"}
	if _, err := Serve(&cmdutil.Factory{}, cmd)(context.Background()); err == nil || !strings.Contains(err.Error(), "give one of --model") {
		t.Errorf("no model flag: %v", err)
	}
}
