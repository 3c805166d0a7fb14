package nlp

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddle/configs"
	_ "paddle/core/backend/all"
	"paddle/core/cli/clitest"
	"paddle/core/cli/cmdutil"
	"paddle/core/config"
	"paddle/core/metric"
	"paddle/core/quant"
	"paddle/core/runtime"
	"paddle/core/runtime/ortcheck"
	"paddle/core/tensor"
)

// paddle runs the CLI in-process with the nlp kit, stdin given.
func paddle(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	return clitest.Run(t, []*cmdutil.Kit{Kit()}, stdin, args...)
}

func writeFile(t *testing.T, dir, name, s string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReadTSV(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "a.tsv", "good film\tpos\r\n\nbad\tfilm\tneg\nmeh\tpos\n")
	ex, labels, err := ReadTSV(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	// labels sorted by name; the last tab separates the label
	if strings.Join(labels.Names, ",") != "neg,pos" || len(ex) != 3 ||
		ex[0] != (Example{"good film", 1}) || ex[1] != (Example{"bad\tfilm", 0}) || ex[2].Label != 1 {
		t.Fatalf("labels %v examples %+v", labels.Names, ex)
	}
	for _, c := range []struct{ body, want string }{
		{"ok\tpos\nno tab here\n", "a.tsv:2: want text<TAB>label"},
		{"ok\tpos\n\nx\t \n", "a.tsv:3: empty label"},
		{"ok\tpos\nx\tneutral\n", `a.tsv:2: label "neutral" is not in the label map [neg pos]`},
	} {
		writeFile(t, dir, "a.tsv", c.body)
		lm, _ := NewLabelMap([]string{"neg", "pos"})
		if _, _, err := ReadTSV(p, lm); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err %v, want %q", c.body, err, c.want)
		}
	}
	lf := writeFile(t, dir, "labels.txt", "pos\nneg\npos\n")
	if _, err := ReadLabelFile(lf); err == nil || !strings.Contains(err.Error(), `labels.txt: label map: label "pos" listed twice`) {
		t.Errorf("duplicate label: %v", err)
	}
}

func TestWordVocab(t *testing.T) {
	if got := strings.Join(Words("Héllo, WORLD!! 42x"), "|"); got != "héllo|,|world|!|!|42x" {
		t.Fatalf("Words = %q", got)
	}
	v := BuildWordVocab([]string{"b a b", "c a b"}, 0, 2)
	if strings.Join(v.Words, " ") != "[PAD] [UNK] b a" {
		t.Fatalf("vocab %v", v.Words)
	}
	if got := v.Encode("A b zz b", 3); len(got) != 3 || got[0] != 3 || got[1] != 2 || got[2] != UnkID {
		t.Fatalf("Encode = %v", got)
	}
}

func TestMessageText(t *testing.T) {
	raw := "From x  Thu Aug 22 2002\r\nReceived: from a\r\n\tby b\r\nSubject: Cheap =\r\n  pills\r\n" +
		"Content-Transfer-Encoding: quoted-printable\r\n\r\n<HTML><B>Buy</B> now=\r\n, caf=E9 &nbsp; \r\n\r\nbye</HTML>\r\n"
	if got, want := MessageText([]byte(raw)), "Cheap = pills Buy now, café bye"; got != want {
		t.Fatalf("MessageText = %q, want %q", got, want)
	}
}

// SpamDir is the corpus, or a skip when scripts/fetch_spam.sh has not run.
func spamDir(t *testing.T) string {
	d := defaultSpamDir()
	if _, err := os.Stat(filepath.Join(d, "spam-2")); err != nil {
		t.Skipf("SpamAssassin corpus not found (%v): run scripts/setup.sh", err)
	}
	return d
}

// The split is stratified 80/20 and fixed by the seed.
func TestSpamSplit(t *testing.T) {
	dir := t.TempDir()
	if code, _, errOut := paddle(t, "", "nlp", "dataset", "spam", "--source", spamDir(t), "--output", dir); code != 0 {
		t.Fatalf("dataset: %s", errOut)
	}
	lm, _ := NewLabelMap(spamLabels)
	train, _, err := ReadTSV(filepath.Join(dir, "train.tsv"), lm)
	if err != nil {
		t.Fatal(err)
	}
	dev, _, err := ReadTSV(filepath.Join(dir, "dev.tsv"), lm)
	if err != nil {
		t.Fatal(err)
	}
	count := func(ex []Example) (n [2]int) {
		for _, e := range ex {
			n[e.Label]++
		}
		return
	}
	// ham 2,500 + 1,400 + 250 = 4,150 → 3,320 / 830; spam 500 + 1,396 = 1,896 → 1,516 / 380
	if ct, cd := count(train), count(dev); ct != [2]int{3320, 1516} || cd != [2]int{830, 380} {
		t.Fatalf("train %v dev %v", ct, cd)
	}
	again, _, err := SpamSplit(spamDir(t), 42)
	if err != nil || again[0].Text != train[0].Text || again[len(again)-1].Text != train[len(train)-1].Text {
		t.Fatalf("split not reproducible: %v", err)
	}
}

// spamOverrides point the shipped SpamAssassin config at the TSV files in
// dir, plus more.
func spamOverrides(dir string, more ...string) []string {
	return append([]string{"Global.label_file=" + filepath.Join(dir, "label.txt"),
		"DataLoader.Train.dataset.data_file=" + filepath.Join(dir, "train.tsv"),
		"DataLoader.Eval.dataset.data_file=" + filepath.Join(dir, "dev.tsv")}, more...)
}

// spamArgs are the -c and -o flags of spamOverrides.
func spamArgs(dir string, more ...string) []string {
	a := []string{"-c", "nlp/textcnn_spam.yaml"}
	for _, o := range spamOverrides(dir, more...) {
		a = append(a, "-o", o)
	}
	return a
}

// A short real training must reach a dev macro-F1 a broken engine cannot:
// TextCNN on 1,000 SpamAssassin training messages (every 4.8th line of
// train.tsv), 40 steps of 32 (~10 s on 2 cores), scored on 400 dev
// messages (both sets stratified). Measured 2026-11-30 (TestUntrainedSpam
// and this test's log): untrained macro-F1 0.242, after these 40 steps
// 0.917; the floor 0.58 is halfway (DESIGN §10).
const spamFloor = 0.58

func TestTextCNNLearnsSpam(t *testing.T) {
	if testing.Short() {
		t.Skip("trains for ~10 s")
	}
	data := t.TempDir()
	if code, _, errOut := paddle(t, "", "nlp", "dataset", "spam", "--source", spamDir(t), "--output", data); code != 0 {
		t.Fatalf("dataset: %s", errOut)
	}
	small := []string{"DataLoader.Train.dataset.limit=1000", "DataLoader.Eval.dataset.limit=400"}
	out := t.TempDir()
	args := append([]string{"nlp", "train", "--output", out}, spamArgs(data, append(small, "Global.max_steps=40", "Global.epochs=2")...)...)
	if code, _, errOut := paddle(t, "", args...); code != 0 {
		t.Fatalf("train exit %d:\n%s", code, errOut)
	}
	args = append([]string{"nlp", "eval", "--weights", filepath.Join(out, "latest"), "--format", "json"}, spamArgs(data, small...)...)
	code, stdout, errOut := paddle(t, "", args...)
	if code != 0 {
		t.Fatalf("eval exit %d:\n%s", code, errOut)
	}
	var rep struct {
		Metrics map[string]float64 `json:"metrics"`
		Samples int                `json:"samples"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("eval output %q: %v", stdout, err)
	}
	t.Logf("dev after 40 steps: %v", rep.Metrics)
	if rep.Samples != 400 || rep.Metrics["macro_f1"] < spamFloor {
		t.Fatalf("eval %+v: want macro_f1 >= %v on 400 samples", rep, spamFloor)
	}

	// predict: text lines from stdin, jsonl out
	args = append(append([]string{"nlp", "predict", "--weights", filepath.Join(out, "latest")}, spamArgs(data)...), "-")
	in := "Re: the patch to the kernel build, see the diff below\nFREE!!! Make $$$ fast, click here to claim your prize now\n"
	code, stdout, errOut = paddle(t, in, args...)
	if code != 0 {
		t.Fatalf("predict exit %d:\n%s", code, errOut)
	}
	var preds []TextPrediction
	sc := bufio.NewScanner(strings.NewReader(stdout))
	for sc.Scan() {
		var p TextPrediction
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		preds = append(preds, p)
	}
	if len(preds) != 2 || !strings.HasPrefix(preds[1].Text, "FREE!!!") || preds[1].Label != "spam" || preds[0].Score < 0.5 || preds[0].Score > 1 ||
		(preds[0].Label != "ham" && preds[0].Label != "spam") {
		t.Fatalf("predictions %+v", preds)
	}
	t.Logf("predictions %+v", preds)
	checkQuantizedExport(t, data, filepath.Join(out, "latest"))
}

// checkQuantizedExport exports the spam TextCNN as float and with
// --quantize, calibrated on 64 training texts (a text file), and scores
// both exports on the whole dev set: int8 keeps macro-F1 and accuracy
// within 0.5 pt of float (issue 21's goal) and the label of nearly every
// message; ONNX Runtime's probabilities on the QDQ file equal paddle's.
func checkQuantizedExport(t *testing.T, data, ckpt string) {
	train, _, err := ReadTSV(filepath.Join(data, "train.tsv"), nil)
	if err != nil {
		t.Fatal(err)
	}
	var cal []string
	for _, e := range train[:64] {
		cal = append(cal, e.Text)
	}
	dir := t.TempDir()
	calFile := writeFile(t, dir, "calib.txt", strings.Join(cal, "\n")+"\n")
	exp, qexp := filepath.Join(dir, "exp"), filepath.Join(dir, "qexp")
	if code, _, errOut := paddle(t, "", "nlp", "export", "--weights", ckpt, "--output", exp); code != 0 {
		t.Fatalf("export: %s", errOut)
	}
	if code, _, errOut := paddle(t, "", "nlp", "export", "--weights", ckpt, "--output", filepath.Join(dir, "bad"), "--quantize", "--calib", dir); code != 2 ||
		!strings.Contains(errOut, "text file") || !strings.Contains(errOut, "not quantized") {
		t.Errorf("--calib a folder: exit %d, %s", code, errOut)
	}
	if code, _, errOut := paddle(t, "", "nlp", "export", "--weights", ckpt, "--output", qexp, "--quantize", "--calib", calFile); code != 0 {
		t.Fatalf("export --quantize: %s", errOut)
	}
	fs, err := loadExportScorer(exp, 0)
	if err != nil {
		t.Fatal(err)
	}
	qs, err := loadExportScorer(qexp, 0)
	if err != nil {
		t.Fatal(err)
	}
	p, err := runtime.Load(filepath.Join(qexp, "model.onnx"), runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	nq := quant.Int8Nodes(p.Graph())
	if nq == 0 {
		t.Fatal("the quantized export runs no int8 conv or gemm")
	}
	dev, labels, err := ReadTSV(filepath.Join(data, "dev.tsv"), nil)
	if err != nil {
		t.Fatal(err)
	}
	fm, qm := metric.NewClassMetric(labels.Names), metric.NewClassMetric(labels.Names)
	same := 0
	for _, e := range dev {
		a, err := fs.probs(fs.ids(e.Text))
		if err != nil {
			t.Fatal(err)
		}
		b, err := qs.probs(qs.ids(e.Text))
		if err != nil {
			t.Fatal(err)
		}
		fm.Add(e.Label, metric.Argmax(a))
		qm.Add(e.Label, metric.Argmax(b))
		if metric.Argmax(a) == metric.Argmax(b) {
			same++
		}
	}
	fr, qr := fm.Result().Values, qm.Result().Values
	t.Logf("int8 export: %d int8 nodes; dev (%d messages): macro-F1 %.4f → %.4f, accuracy %.4f → %.4f; same label on %d",
		nq, len(dev), fr["macro_f1"], qr["macro_f1"], fr["accuracy"], qr["accuracy"], same)
	if math.Abs(fr["macro_f1"]-qr["macro_f1"]) > 0.005 || math.Abs(fr["accuracy"]-qr["accuracy"]) > 0.005 || same < len(dev)*99/100 {
		t.Errorf("int8 moves dev macro-F1 %.4f → %.4f, accuracy %.4f → %.4f (want within 0.005), same label on %d of %d",
			fr["macro_f1"], qr["macro_f1"], fr["accuracy"], qr["accuracy"], same, len(dev))
	}
	ids := qs.ids(dev[0].Text)
	got, err := p.Run(map[string]*tensor.Tensor{"input_ids": ids})
	if err != nil {
		t.Fatal(err)
	}
	ortcheck.Compare(t, filepath.Join(qexp, "model.onnx"), map[string]*tensor.Tensor{"input_ids": ids},
		ortcheck.Output{Name: "probs", Want: got["probs"], Tol: 1e-4})
}

// untrainedSpamF1 is the dev macro-F1 of a fresh model on the test's subset
// (for measuring the floor; run with -run UntrainedSpam -v).
func TestUntrainedSpam(t *testing.T) {
	needMeasure(t)
	data := t.TempDir()
	if code, _, errOut := paddle(t, "", "nlp", "dataset", "spam", "--source", spamDir(t), "--output", data); code != 0 {
		t.Fatalf("dataset: %s", errOut)
	}
	cfg, err := config.Load("nlp/textcnn_spam.yaml", spamOverrides(data, "DataLoader.Train.dataset.limit=1000", "DataLoader.Eval.dataset.limit=400")...)
	if err != nil {
		t.Fatal(err)
	}
	r, err := build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr := r.(*textRunner)
	rep := untrainedReport(t, tr.newModel, tr.task)
	t.Logf("untrained: %v (%d samples)", rep.Values, rep.Count)
}

// Every shipped nlp config must load and validate.
func TestAllConfigsBuild(t *testing.T) {
	n := 0
	for _, name := range config.Names(configs.FS) {
		if !strings.HasPrefix(name, "nlp/") {
			continue
		}
		n++
		cfg, err := config.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Kit().Build(cfg); err != nil { // the kit's Build: taggers too
			t.Errorf("%s: %v", name, err)
		}
	}
	if n == 0 {
		t.Fatal("no nlp configs")
	}
}

// BoE over the core/tokenizer WordPiece vocabulary (Global.tokenizer) learns
// a toy task whose class is given by one of two word sets: dev accuracy 1
// (with learning rate 0 it scores 0.5, measured), and the model's table has the
// vocabulary's 8,000 rows + 1 for padding.
func TestBoEWithTokenizer(t *testing.T) {
	dir := t.TempDir()
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
	writeFile(t, dir, "train.tsv", gen(64, 0))
	writeFile(t, dir, "dev.tsv", gen(20, 5))
	cfg := writeFile(t, dir, "boe.yaml", `
Global: {epochs: 15, seed: 1, tokenizer: ../../core/tokenizer/testdata/wordpiece_vocab.txt, print_batch_step: 100}
Model: {name: BoE, embedding_dim: 16, hidden_dim: 16}
Optimizer: {name: Adam, lr: {name: Const, learning_rate: 0.01}}
DataLoader:
  Train: {dataset: {name: TSVDataset, data_file: `+filepath.Join(dir, "train.tsv")+`}, sampler: {batch_size: 16, shuffle: true}}
  Eval: {dataset: {name: TSVDataset, data_file: `+filepath.Join(dir, "dev.tsv")+`}, sampler: {batch_size: 20}}
`)
	out := filepath.Join(dir, "out")
	if code, _, errOut := paddle(t, "", "nlp", "train", "-c", cfg, "--output", out); code != 0 {
		t.Fatalf("train exit %d:\n%s", code, errOut)
	}
	code, stdout, errOut := paddle(t, "", "nlp", "eval", "-c", cfg, "--weights", filepath.Join(out, "latest"), "--format", "json")
	if code != 0 {
		t.Fatalf("eval exit %d:\n%s", code, errOut)
	}
	if !strings.Contains(stdout, `"accuracy": 1`) && !strings.Contains(stdout, `"accuracy":1`) {
		t.Fatalf("eval: %s", stdout)
	}
	// predict reads text lines from files, in order
	in := writeFile(t, dir, "in.txt", "the plan was wonderful and happy\nterrible, sad report\n")
	code, stdout, errOut = paddle(t, "", "nlp", "predict", "-c", cfg, "--weights", filepath.Join(out, "latest"), in, in)
	if code != 0 {
		t.Fatalf("predict exit %d:\n%s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	want := []string{"pos", "neg", "pos", "neg"}
	if len(lines) != 4 {
		t.Fatalf("predict: %q", stdout)
	}
	for i, l := range lines {
		var p TextPrediction
		if err := json.Unmarshal([]byte(l), &p); err != nil || p.Label != want[i] || p.Score <= 0.5 {
			t.Errorf("line %d %q: %v, want label %s", i, l, err, want[i])
		}
	}
	c, err := config.Load(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r, err := build(c)
	if err != nil {
		t.Fatal(err)
	}
	m, err := r.(*textRunner).newModel("")
	if err != nil {
		t.Fatal(err)
	}
	if rows := m.(*BoE).Embed.Weight.T.Shape()[0]; rows != 8001 {
		t.Fatalf("embedding rows %d, want 8001", rows)
	}
}
