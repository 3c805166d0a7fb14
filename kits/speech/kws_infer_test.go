package speech

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/ag"
	"paddle/core/audio"
	"paddle/core/hub"
	"paddle/core/nn"
	"paddle/core/workflow"
)

// inferFixture is two small random TCN checkpoints of one config and three
// clips: a/1.wav, a/2.wav and b/3.wav.
type inferFixture struct {
	ckA, ckB string
	clips    []string
	models   []nn.Layer
	z        featurizer
}

func newInferFixture(t *testing.T) inferFixture {
	t.Helper()
	dir := t.TempDir()
	labels := filepath.Join(dir, "labels.txt")
	if err := os.WriteFile(labels, []byte("yes\nno\nup\n_unknown_\n_silence_\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var f inferFixture
	for i, seed := range []string{"1", "2"} {
		k, cfg := loadKWSRunner(t, "../../configs/speech/kws_mdtc_8k.yaml", "Global.label_file="+labels, "Global.seed="+seed, "Arch.channels=8")
		m, err := k.newModel()
		if err != nil {
			t.Fatal(err)
		}
		y, err := cfg.YAML()
		if err != nil {
			t.Fatal(err)
		}
		ck := filepath.Join(dir, "ck"+seed)
		if err := workflow.SaveCheckpoint(ck, m, nil, workflow.State{}, y); err != nil {
			t.Fatal(err)
		}
		f.models = append(f.models, m)
		f.z = k.featurizer()
		if i == 0 {
			f.ckA = ck
		} else {
			f.ckB = ck
		}
	}
	for i, name := range []string{"a/1.wav", "a/2.wav", "b/3.wav"} {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		x := make([]float32, 5000+1000*i)
		for j := range x {
			x[j] = float32(0.2*math.Sin(float64(j)*(0.2+0.15*float64(i))) + 0.1*math.Sin(float64(j*j%977)))
		}
		if err := audio.WriteWAV(p, &audio.Audio{Rate: 8000, Channels: [][]float32{x}}, audio.PCM16); err != nil {
			t.Fatal(err)
		}
		f.clips = append(f.clips, p)
	}
	return f
}

// probs is each clip's [warp][class] probabilities, averaged over the
// models given, computed here from the models' logits (dither seed 0: the
// first window of a file).
func (f inferFixture) probs(t *testing.T, models []nn.Layer, warps []float64) [][][]float64 {
	t.Helper()
	var out [][][]float64
	for _, c := range f.clips {
		x, err := f.z.load(c)
		if err != nil {
			t.Fatal(err)
		}
		rows := make([][]float64, len(warps))
		for j, w := range warps {
			feat, err := f.z.featuresWarped(f.z.fit(x, 0), 0, w, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			s := feat.Shape()
			in := feat.Reshape(1, s[0], s[1], s[2])
			for _, m := range models {
				var l []float32
				ag.NoGrad(func() { l = m.Forward(ag.Const(in), false).T.Contiguous().F32() })
				p := softmax64(l)
				if rows[j] == nil {
					rows[j] = make([]float64, len(p))
				}
				for k, v := range p {
					rows[j][k] += v / float64(len(models))
				}
			}
		}
		out = append(out, rows)
	}
	return out
}

var inferClasses = []string{"yes", "no", "up", "_unknown_", "_silence_"}

// checkAnswers compares predictions with the label and score of rows.
func checkAnswers(t *testing.T, what string, got []KWSPrediction, clips []string, rows [][]float64, tol float64) {
	t.Helper()
	if len(got) != len(clips) {
		t.Fatalf("%s: %d answers for %d clips", what, len(got), len(clips))
	}
	for i, p := range got {
		c := argmax(rows[i])
		if p.Audio != clips[i] || p.Label != inferClasses[c] || math.Abs(p.Score-rows[i][c]) > tol {
			t.Errorf("%s: %s answered %s %.5f, want %s %.5f", what, clips[i], p.Label, p.Score, inferClasses[c], rows[i][c])
		}
	}
}

// kws and predict with Global.ensemble answer with the mean of the two
// models' probabilities; the export of the ensemble (with its Infer warps)
// answers the same; per-speaker warps pick one warp per speaker.
func TestKWSEnsembleAndGroups(t *testing.T) {
	f := newInferFixture(t)
	both := f.probs(t, f.models, []float64{1})
	alone := f.probs(t, f.models[:1], []float64{1})
	mean := make([][]float64, len(both))
	differ := false
	for i := range both {
		mean[i] = both[i][0]
		c := argmax(mean[i])
		differ = differ || math.Abs(mean[i][c]-alone[i][0][c]) > 1e-3
	}
	if !differ {
		t.Fatal("the two models agree to 1e-3: the test cannot tell an ensemble from one model")
	}
	ens := "Global.ensemble=[" + f.ckB + "]"
	out, err := runSpeech(t, append([]string{"speech", "kws", "--weights", f.ckA, "-o", ens, "--input"}, f.clips...)...)
	if err != nil {
		t.Fatal("kws failed")
	}
	checkAnswers(t, "kws ensemble", readPredictions(t, out), f.clips, mean, 1e-5)
	out, err = runSpeech(t, append([]string{"speech", "predict", "--weights", f.ckA, "-o", ens}, f.clips...)...)
	if err != nil {
		t.Fatal("predict failed")
	}
	checkAnswers(t, "predict ensemble", readPredictions(t, out), f.clips, mean, 1e-5)

	// the export holds the ensemble and the Infer warps (mean over 3)
	warps := []float64{0.9, 1, 1.1}
	w3 := f.probs(t, f.models, warps)
	meanW := make([][]float64, len(w3))
	for i, r := range w3 {
		meanW[i] = float64s(combineProbs(r, "mean"))
	}
	exp := filepath.Join(t.TempDir(), "export")
	if _, err := runSpeech(t, "speech", "export", "--weights", f.ckA, "-o", ens, "-o", "Infer.test_warps=[0.9,1,1.1]", "--output", exp); err != nil {
		t.Fatal("export failed")
	}
	for _, cmd := range [][]string{{"speech", "predict", "--model", exp}, {"speech", "kws", "--model", exp}} {
		out, err = runSpeech(t, append(cmd, f.clips...)...)
		if err != nil {
			t.Fatalf("%v failed", cmd)
		}
		checkAnswers(t, strings.Join(cmd, " ")+" (ensemble export, warps)", readPredictions(t, out), f.clips, meanW, 1e-4)
	}

	// per-speaker warps: by folder (a: clips 0, 1; b: clip 2) and by file
	// (s: clips 0, 2; t: clip 1)
	spk := filepath.Join(t.TempDir(), "speakers.tsv")
	os.WriteFile(spk, []byte(f.clips[0]+"\ts\n"+f.clips[1]+"\tt\n"+f.clips[2]+" s\n"), 0o644)
	for _, tt := range []struct {
		flag   []string
		groups []int
	}{{[]string{"--speaker-per-folder"}, []int{0, 0, 1}}, {[]string{"--speakers", spk}, []int{0, 1, 0}}} {
		choice := groupWarps(w3, tt.groups)
		want := make([][]float64, len(w3))
		for i, r := range w3 {
			want[i] = r[choice[tt.groups[i]]]
		}
		args := append([]string{"speech", "kws", "--weights", f.ckA, "-o", ens, "--warps", "0.9,1,1.1", "--warp-combine", "group"}, tt.flag...)
		out, err = runSpeech(t, append(args, f.clips...)...)
		if err != nil {
			t.Fatalf("%v failed", tt.flag)
		}
		checkAnswers(t, "kws group "+tt.flag[0], readPredictions(t, out), f.clips, want, 1e-5)
	}
	// predict reads the same from the Infer section
	out, err = runSpeech(t, append([]string{"speech", "predict", "--weights", f.ckA, "-o", ens, "-o", "Infer.test_warps=[0.9,1,1.1]",
		"-o", "Infer.test_combine=group", "-o", "Infer.group_by_folder=true"}, f.clips...)...)
	if err != nil {
		t.Fatal("predict group failed")
	}
	choice := groupWarps(w3, []int{0, 0, 1})
	want := [][]float64{w3[0][choice[0]], w3[1][choice[0]], w3[2][choice[1]]}
	checkAnswers(t, "predict group", readPredictions(t, out), f.clips, want, 1e-5)

	// group needs speakers for every input
	os.WriteFile(spk, []byte(f.clips[0]+"\ts\n"), 0o644)
	for _, args := range [][]string{
		{"speech", "kws", "--weights", f.ckA, "--warps", "0.9,1", "--warp-combine", "group"},
		{"speech", "kws", "--weights", f.ckA, "--warps", "0.9,1", "--warp-combine", "group", "--speakers", spk},
		{"speech", "kws", "--weights", f.ckA, "--warp-combine", "group", "--speaker-per-folder"},
	} {
		if _, err := runSpeech(t, append(args, f.clips...)...); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}

// kws takes a word of a Sphinx .mfc file (<file>.mfc@<start>-<end>, as
// realwords lists the TIDIGITS words) and answers as the model does on
// that word's features.
func TestKWSMFCInput(t *testing.T) {
	mfc := filepath.Join(hub.CacheDir(), "data", "speech", "pocketsphinx", "tidigits", "man.ah.2934za.mfc")
	if _, err := os.Stat(mfc); err != nil {
		t.Skip("pocketsphinx TIDIGITS .mfc files absent (scripts/setup.sh fetches them)")
	}
	f := newInferFixture(t)
	word := mfc + "@0.47-0.87"
	feat, err := f.z.mfcFeatures(mfc, &mfcSegment{0.47, 0.87}, 5)
	if err != nil {
		t.Fatal(err)
	}
	s := feat.Shape()
	var l []float32
	ag.NoGrad(func() {
		l = f.models[0].Forward(ag.Const(feat.Reshape(1, s[0], s[1], s[2])), false).T.Contiguous().F32()
	})
	out, err := runSpeech(t, "speech", "kws", "--weights", f.ckA, word)
	if err != nil {
		t.Fatal("kws failed")
	}
	checkAnswers(t, "kws .mfc word", readPredictions(t, out), []string{word}, [][]float64{softmax64(l)}, 1e-5)
}

// The Infer section reaches the spotter; kws flags override it.
func TestInferApply(t *testing.T) {
	s := &spotter{warps: []float64{0.9, 1.1}, combine: "max"}
	if err := (KWSInferOpts{TestCombine: "mean"}).apply(s); err != nil || s.combine != "mean" || len(s.warps) != 2 {
		t.Errorf("apply: %v %+v", err, s)
	}
	if err := (KWSInferOpts{TestCombine: "vote"}).apply(s); err == nil {
		t.Error("test_combine vote accepted")
	}
	if err := (KWSInferOpts{TestGroups: "x", GroupByFolder: true}).apply(s); err == nil {
		t.Error("test_groups and group_by_folder together accepted")
	}
	dir := t.TempDir()
	spk := filepath.Join(dir, "speakers.tsv")
	os.WriteFile(spk, []byte("four/a.wav\tcards\nb.mfc@0.10-0.50 man\n"), 0o644)
	of, err := fileSpeakers(spk)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{"four/a.wav": "cards", "./four/a.wav": "cards", filepath.Join(dir, "four", "a.wav"): "cards",
		filepath.Join(dir, "b.mfc@0.10-0.50"): "man"} {
		if got, err := of(path); got != want || err != nil {
			t.Errorf("speaker of %s = %q %v, want %s", path, got, err, want)
		}
	}
	if _, err := of(filepath.Join(dir, "c.wav")); err == nil || !strings.Contains(err.Error(), "no speaker for") {
		t.Errorf("unknown input: %v", err)
	}
	if sp, _ := folderSpeaker("d/e/f.wav"); sp != "d/e" {
		t.Errorf("folder speaker %q", sp)
	}
}
