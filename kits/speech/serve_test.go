package speech

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/spf13/cobra"

	"paddle/core/audio"
	"paddle/core/cli/cmdutil"
	"paddle/core/cli/iostreams"
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
	k, cfg := loadKWSRunner(t, "../../configs/speech/kws_dscnn.yaml", "Global.label_file="+labels, "Arch.channels=16", "Arch.blocks=2")
	model, err := k.newModel()
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
				return a.Audio == b.Audio && a.Label == b.Label && a.Score == b.Score && (a.Start == nil) == (b.Start == nil) &&
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

// `paddle serve speech` with a CTC recogniser (an untrained 2-conv, 1-layer
// BiGRU saved with its config) from its export and from its checkpoint: a
// real recording (pocketsphinx-testdata cards/001 at 44.1 kHz, resampled to
// the model's 16 kHz by both paths) posted as the raw body and as JSON
// {"audio": base64} gets exactly the text `speech asr` prints for the file,
// also with concurrent requests; a body that is not audio is a 400.
func TestServeASR(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "asr.yaml")
	if err := os.WriteFile(cfgPath, []byte(`
data: {train_manifest: train.list, dev_manifest: val.list}
feature: {sample_rate: 16000, n_mels: 20}
model: {num_conv_layers: 2, conv_channels: 32, num_rnn_layers: 1, rnn_layer_size: 32, use_gru: true}
training: {n_epoch: 1, batch_size: 4, seed: 2, optim: {name: Adam, lr: {name: Const, learning_rate: 0.001}}}
decoding: {decoding_method: ctc_prefix_beam_search, beam_size: 4}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := loadASRConfig(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	m, err := newASRModel(c)
	if err != nil {
		t.Fatal(err)
	}
	yml, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	ckpt, exp := filepath.Join(dir, "ckpt"), filepath.Join(dir, "exp")
	if err := workflow.SaveCheckpoint(ckpt, m, nil, workflow.State{}, yml); err != nil {
		t.Fatal(err)
	}
	if _, err := runSpeech(t, "speech", "export", "--weights", ckpt, "--output", exp); err != nil {
		t.Fatal("export failed")
	}
	clip := "../../core/audio/testdata/cards001_44k.wav"
	body, err := os.ReadFile(clip)
	if err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{"--model=" + exp, "--weights=" + ckpt} {
		name, src, _ := strings.Cut(strings.TrimPrefix(flag, "--"), "=")
		t.Run(name, func(t *testing.T) {
			out, err := runSpeech(t, "speech", "asr", "--"+name, src, "--input", clip)
			if err != nil {
				t.Fatal("asr failed")
			}
			var want ASRResult
			if err := json.Unmarshal([]byte(out), &want); err != nil || want.Text == "" {
				t.Fatalf("asr printed %q (%v): want a non-empty text", out, err)
			}
			t.Logf("asr --%s: %q", name, want.Text)
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
			if _, ok := p.(*ASRPredictor); !ok {
				t.Fatalf("Serve made a %T, want *ASRPredictor", p)
			}
			srv := httptest.NewServer(serve.New("speech", p, serve.Options{Concurrency: 4, Queue: 16}))
			defer srv.Close()
			post := func(asJSON bool) (ASRResult, int, string) {
				var res *http.Response
				var err error
				if asJSON {
					b, _ := json.Marshal(map[string]string{"audio": base64.StdEncoding.EncodeToString(body), "name": clip})
					res, err = http.Post(srv.URL+"/v1/speech", "application/json", bytes.NewReader(b))
				} else {
					res, err = http.Post(srv.URL+"/v1/speech?name="+clip, "audio/wav", bytes.NewReader(body))
				}
				if err != nil {
					return ASRResult{}, 0, err.Error()
				}
				defer res.Body.Close()
				b, _ := io.ReadAll(res.Body)
				var got ASRResult
				_ = json.Unmarshal(b, &got)
				return got, res.StatusCode, string(b)
			}
			for _, asJSON := range []bool{false, true} {
				if got, code, b := post(asJSON); code != http.StatusOK || got != want {
					t.Errorf("POST (json %v): %d %s, want %+v", asJSON, code, b, want)
				}
			}
			// the texts depend on the audio (this seed's untrained model
			// answers "gdxdydxdgud"), so a wrong resampling or feature on one
			// path shows: the recording played backwards reads otherwise
			a, err := audio.DecodeWAV(bytes.NewReader(body), clip)
			if err != nil {
				t.Fatal(err)
			}
			slices.Reverse(a.Channels[0])
			var rev bytes.Buffer
			if err := audio.EncodeWAV(&rev, a, audio.PCM16); err != nil {
				t.Fatal(err)
			}
			res, err := http.Post(srv.URL+"/v1/speech", "audio/wav", &rev)
			if err != nil {
				t.Fatal(err)
			}
			var back ASRResult
			err = json.NewDecoder(res.Body).Decode(&back)
			res.Body.Close()
			if err != nil || back.Text == want.Text {
				t.Errorf("reversed recording: %+v (%v), want a text other than %q", back, err, want.Text)
			}
			var wg sync.WaitGroup
			errs := make(chan string, 4)
			for g := range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if got, code, b := post(g%2 == 1); code != http.StatusOK || got != want {
						errs <- "concurrent: " + b
					}
				}()
			}
			wg.Wait()
			close(errs)
			for e := range errs {
				t.Error(e)
			}
			res, err = http.Post(srv.URL+"/v1/speech", "audio/wav", strings.NewReader("ID3\x04 not a wav file at all"))
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), "not a WAV") {
				t.Errorf("not audio: %d %s", res.StatusCode, b)
			}
		})
	}
}
