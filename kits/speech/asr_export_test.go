package speech

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"paddle/core/ag"
	"paddle/core/runtime"
	"paddle/core/runtime/ortcheck"
	"paddle/core/tensor"
	"paddle/core/workflow"
)

// TestASRExport exports a freshly initialised recogniser (2 convolutions,
// a 2-layer BiGRU; and an LSTM variant) through `paddle speech export` and
// checks the graph at two lengths and batch sizes against the Go model,
// on paddle's runtime and on ONNX Runtime.
func TestASRExport(t *testing.T) {
	for _, rnn := range []string{"true", "false"} {
		dir := t.TempDir()
		cfgPath := filepath.Join(dir, "asr.yaml")
		if err := os.WriteFile(cfgPath, []byte(`
data: {train_manifest: train.list, dev_manifest: val.list}
feature: {sample_rate: 16000, n_mels: 20}
model: {num_conv_layers: 2, conv_channels: 16, num_rnn_layers: 2, rnn_layer_size: 12, use_gru: `+rnn+`}
training: {n_epoch: 1, batch_size: 4, seed: 3, optim: {name: Adam, lr: {name: Const, learning_rate: 0.001}}}
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
		weights := filepath.Join(dir, "latest")
		if err := workflow.SaveCheckpoint(weights, m, nil, workflow.State{}, yml); err != nil {
			t.Fatal(err)
		}
		exp := filepath.Join(dir, "export")
		if _, err := runSpeech(t, "speech", "export", "--weights", weights, "--output", exp); err != nil {
			t.Fatal("export failed")
		}
		checkASRExport(t, weights, exp)
	}
}

// checkASRExport compares the export's log-probabilities with the
// checkpoint's Go model on random features of (1, 53) and (2, 120) frames:
// paddle's runtime and ONNX Runtime within 1e-4; and the export's
// recogniser decodes them as the checkpoint's does.
func checkASRExport(t *testing.T, weights, exp string) {
	t.Helper()
	c, err := loadASRConfig(filepath.Join(weights, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := newASRModel(c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := workflow.LoadCheckpoint(weights, m, nil); err != nil {
		t.Fatal(err)
	}
	p, _, err := workflow.ReadExport(exp, asrInferenceSchema(), runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := loadExportRecognizer(exp)
	if err != nil {
		t.Fatal(err)
	}
	goRec := &recognizer{feat: c.Feature, dec: c.Decoding, logProbs: modelLogProbs(m)}
	r := rand.New(rand.NewPCG(7, 7))
	for _, sz := range [][2]int{{1, 53}, {2, 120}} {
		x := tensor.Rand(r, tensor.Float32, -2, 2, sz[0], sz[1], c.Feature.NMels)
		var want *tensor.Tensor
		ag.NoGrad(func() {
			lp, _ := m.forward(ag.Const(x), nil, false)
			want = ag.Transpose(lp, 1, 0, 2).T.Contiguous()
		})
		if wt := (sz[1] + 3) / 4; want.Shape()[1] != wt || m.outLen(sz[1]) != wt { // two stride-2 convs
			t.Errorf("%v: %d output frames, want %d", sz, want.Shape()[1], wt)
		}
		got, err := p.Run(map[string]*tensor.Tensor{"x": x})
		if err != nil {
			t.Fatal(err)
		}
		d, _ := tensor.MaxDiff(got["log_probs"], want, 0, 0)
		if !got["log_probs"].Shape().Equal(want.Shape()) || d > 1e-4 {
			t.Errorf("%v: paddle runtime %v differs from the Go model %v by %g", sz, got["log_probs"].Shape(), want.Shape(), d)
		}
		t.Logf("%v frames: paddle runtime vs Go max abs diff %.3g", sz, d)
		ortcheck.Compare(t, filepath.Join(exp, "model.onnx"), map[string]*tensor.Tensor{"x": x},
			ortcheck.Output{Name: "log_probs", Want: want, Tol: 1e-4})
		// Decoding one utterance at a time from the export and in a batch
		// from the checkpoint gives the same texts.
		feats := make([][][]float32, sz[0])
		xv := x.F32()
		for i := range feats {
			feats[i] = make([][]float32, sz[1])
			for tt := range feats[i] {
				off := (i*sz[1] + tt) * c.Feature.NMels
				feats[i][tt] = xv[off : off+c.Feature.NMels]
			}
		}
		a, err1 := rec.decode(feats)
		b, err2 := goRec.decode(feats)
		if err1 != nil || err2 != nil || len(a) != sz[0] {
			t.Fatal(err1, err2)
		}
		for i := range a {
			if a[i] != b[i] {
				t.Errorf("%v item %d: export decodes %q, checkpoint %q", sz, i, a[i], b[i])
			}
		}
	}
}
