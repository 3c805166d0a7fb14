package rectrain

import (
	"encoding/json"
	"io/fs"
	"math"
	"os"
	"paddle/core/editdist"
	"path/filepath"
	"strings"
	"testing"

	"paddle/configs"
	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/data"
	"paddle/core/tensor"
)

type recRef struct {
	Pairs  [][2]string `json:"pairs"`
	Metric struct {
		Acc         float64   `json:"acc"`
		NormEditDis float64   `json:"norm_edit_dis"`
		PerPair     []float64 `json:"per_pair"`
	} `json:"metric"`
	Resize []struct {
		H, W       int
		Pix        []uint8   `json:"pix"`
		Shape      []int     `json:"shape"`
		EvalMode   bool      `json:"eval_mode"`
		OutShape   []int     `json:"out_shape"`
		Out        []float64 `json:"out"`
		ValidRatio float64   `json:"valid_ratio"`
	} `json:"resize"`
}

func loadRef(t *testing.T) recRef {
	t.Helper()
	b, err := os.ReadFile("testdata/rec_ref.json")
	if err != nil {
		t.Fatal(err)
	}
	var r recRef
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// RecMetric against PaddleOCR's formula with python-Levenshtein distances
// (scripts/ref/ocr_rec_ref.py).
func TestRecMetricMatchesReference(t *testing.T) {
	ref := loadRef(t)
	m := &RecMetric{IgnoreSpace: true}
	var preds, targets []string
	for i, p := range ref.Pairs {
		preds, targets = append(preds, p[0]), append(targets, p[1])
		got := editdist.Normalized(strings.ReplaceAll(p[0], " ", ""), strings.ReplaceAll(p[1], " ", ""))
		if math.Abs(got-ref.Metric.PerPair[i]) > 1e-12 {
			t.Errorf("%q vs %q: distance %v, want %v", p[0], p[1], got, ref.Metric.PerPair[i])
		}
	}
	m.Update(preds[:4], targets[:4]) // two batches
	m.Update(preds[4:], targets[4:])
	rep := m.Result()
	if rep.Main != "acc" || rep.Count != 10 || math.Abs(rep.Values["acc"]-ref.Metric.Acc) > 1e-12 || math.Abs(rep.Values["norm_edit_dis"]-ref.Metric.NormEditDis) > 1e-12 {
		t.Fatalf("got %v, want acc %v norm_edit_dis %v", rep, ref.Metric.Acc, ref.Metric.NormEditDis)
	}
}

// A worked example by hand: preds "ab c", "abd", "" against "abc", "abc", "x".
// Spaces ignored: "abc"=="abc" ✓; "abd" vs "abc": 1 substitution / 3; "" vs
// "x": 1/1. acc = 1/(3+1e-5) = 0.333332222; norm_edit_dis = 1 − (0 + 1/3 +
// 1)/(3+1e-5) = 0.555557037. Without ignore_space "ab c" vs "abc" is 1/4.
func TestRecMetricWorkedExample(t *testing.T) {
	m := &RecMetric{IgnoreSpace: true}
	m.Update([]string{"ab c", "abd", ""}, []string{"abc", "abc", "x"})
	r := m.Result().Values
	if math.Abs(r["acc"]-1/(3+1e-5)) > 1e-12 || math.Abs(r["norm_edit_dis"]-(1-(4.0/3)/(3+1e-5))) > 1e-12 {
		t.Fatalf("%v", r)
	}
	if math.Abs(r["acc"]-0.333332222) > 1e-9 || math.Abs(r["norm_edit_dis"]-0.555557037) > 1e-9 {
		t.Fatalf("%v", r)
	}
	m = &RecMetric{}
	m.Update([]string{"ab c"}, []string{"abc"})
	if r := m.Result().Values; r["acc"] != 0 || math.Abs(r["norm_edit_dis"]-(1-0.25/(1+1e-5))) > 1e-12 {
		t.Fatalf("spaces kept: %v", r)
	}
	m = &RecMetric{IsFilter: true, IgnoreSpace: true}
	m.Update([]string{"A-b.1"}, []string{"ab1"})
	if m.Result().Values["acc"] < 0.99 {
		t.Fatal("is_filter: A-b.1 should equal ab1")
	}
	m.Reset()
	if r := m.Result(); r.Count != 0 || r.Values["acc"] != 0 || r.Values["norm_edit_dis"] != 1 {
		t.Fatalf("after Reset: %v", r)
	}
}

// resize_norm_img and resize_norm_img_chinese against cv2 (bit-exact resize; values within 1e-6).
func TestResizeNormImgMatchesReference(t *testing.T) {
	for i, c := range loadRef(t).Resize {
		img := &data.Image{H: c.H, W: c.W, C: 3, Pix: c.Pix}
		x, vr, err := ResizeNormImg(img, c.Shape, true, c.EvalMode)
		if err != nil {
			t.Fatal(err)
		}
		if !x.Shape().Equal(c.OutShape) || math.Abs(vr-c.ValidRatio) > 1e-12 {
			t.Fatalf("case %d: shape %v ratio %v, want %v %v", i, x.Shape(), vr, c.OutShape, c.ValidRatio)
		}
		for j, v := range x.F32() {
			if math.Abs(float64(v)-c.Out[j]) > 1e-6 {
				t.Fatalf("case %d: value %d = %v, want %v", i, j, v, c.Out[j])
			}
		}
	}
}

func TestDictEncodeDecode(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "dict.txt")
	os.WriteFile(p, []byte("a\r\nb\nc\n"), 0o644)
	d, err := LoadDict(p, true)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(d.Chars, "|") != "blank|a|b|c| " || d.NumClasses() != 5 {
		t.Fatalf("chars %q", d.Chars)
	}
	if got := d.Encode("ab xc", 10); len(got) != 4 || got[0] != 1 || got[2] != 4 || got[3] != 3 {
		t.Fatalf("encode %v, want [1 2 4 3] (x dropped)", got)
	}
	if d.Encode("abcabcabcab", 10) != nil || d.Encode("", 10) != nil || d.Encode("xyz", 10) != nil {
		t.Fatal("too long, empty or all-unknown text must give nil")
	}
	def, _ := LoadDict("", false)
	if def.NumClasses() != 37 || !def.Lower || len(def.Encode("AB1", 25)) != 3 {
		t.Fatalf("default dictionary: %d classes", def.NumClasses())
	}
	// greedy CTC: steps b b _ b c c → "bbc"
	seq := []float32{}
	for _, k := range []int{2, 2, 0, 2, 3, 3} {
		row := make([]float32, 5)
		row[k] = 1
		seq = append(seq, row...)
	}
	if text, kept := d.Decode(seq, 6, 5); text != "bbc" || len(kept) != 3 || kept[2][1] != 4 {
		t.Fatalf("decode %q %v", text, kept)
	}
	emb, err := LoadDict("configs/ocr/en_dict.txt", true)
	if err != nil || emb.NumClasses() != 96 {
		t.Fatalf("embedded en_dict: %v", err)
	}
}

func TestReadLabelLinesRatios(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	var la, lb []string
	for i := range 10 {
		la = append(la, "img/a"+string(rune('0'+i))+".jpg\tA")
		lb = append(lb, "img/b"+string(rune('0'+i))+".jpg\tB")
	}
	os.WriteFile(a, []byte(strings.Join(la, "\n")+"\n\n"), 0o644)
	os.WriteFile(b, []byte(strings.Join(lb, "\r\n")), 0o644)
	lines, err := ReadLabelLines([]string{a, b}, []float64{1, 0.3}, 1)
	if err != nil {
		t.Fatal(err)
	}
	nb := 0
	for _, l := range lines {
		if strings.HasSuffix(l, "\tB") {
			nb++
		}
	}
	if len(lines) != 13 || nb != 3 || lines[0] != la[0] {
		t.Fatalf("%d lines, %d from b: %q", len(lines), nb, lines)
	}
	if lines, _ := ReadLabelLines([]string{a}, []float64{2.5}, 1); len(lines) != 25 {
		t.Fatalf("ratio 2.5: %d lines", len(lines))
	}
	if _, err := ReadLabelLines([]string{a, b}, []float64{1, 1, 1}, 1); err == nil {
		t.Fatal("3 ratios for 2 files")
	}
	it, err := ParseRecLine("x/1.jpg\thello world", "/data", "")
	if err != nil || it.Path != "/data/x/1.jpg" || it.Text != "hello world" {
		t.Fatalf("%+v %v", it, err)
	}
	if _, err := ParseRecLine("no-tab", "", ""); err == nil {
		t.Fatal("a line without a tab")
	}
}

func TestParseDetLine(t *testing.T) {
	it, err := ParseDetLine(`imgs/1.jpg	[{"transcription": "MASA", "points": [[1, 2], [30, 2], [30, 12], [1, 12]]}, {"transcription": "###", "points": [[0, 0], [5, 0], [5, 5], [0, 5]]}]`, "data", "")
	if err != nil {
		t.Fatal(err)
	}
	if it.Path != "data/imgs/1.jpg" || len(it.Boxes) != 2 || it.Boxes[0].Ignore || !it.Boxes[1].Ignore || it.Boxes[0].Points[1] != [2]float64{30, 2} {
		t.Fatalf("%+v", it)
	}
	if _, err := ParseDetLine("a.jpg\t[{\"transcription\": \"x\", \"points\": [[1, 2]]}]", "", ""); err == nil {
		t.Fatal("a one-point box")
	}
}

// Config errors name the key and list what is known.
func TestBuildConfigErrors(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"Architecture: {model_type: rec, algorithm: CRNN, Backbone: {name: ResNet}, Neck: {name: SequenceEncoder}, Head: {name: CTCHead}}\nOptimizer: {name: Adam}", `unknown "ResNet" (known: MiniVGG, MobileNetV3, ONNXModel, SVTRNet)`},
		{"Architecture: {model_type: rec, algorithm: CRNN, Backbone: {name: MiniVGG, depth: 3}, Neck: {name: SequenceEncoder}, Head: {name: CTCHead}}\nOptimizer: {name: Adam}", "depth"},
		{"Global: {epoch_nums: 3}\nOptimizer: {name: Adam}", "epoch_nums"},
		{"Loss: {name: AttentionLoss}", `unknown "AttentionLoss"`},
	} {
		cfg, err := config.Parse("ocr", "bad.yaml", []byte(c.yaml))
		if err == nil {
			_, err = Build(cfg)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s\n→ %v, want an error with %q", c.yaml, err, c.want)
		}
	}
}

// The shipped config builds (its data folders need not exist to build).
func TestShippedConfigBuilds(t *testing.T) {
	cfg, err := config.Load("ocr/rec_crnn_en.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	m, err := r.(*runner).newModel()
	if err != nil {
		t.Fatal(err)
	}
	if c := m.(*CRNN).Classes; c != 96 {
		t.Fatalf("%d classes, want 96 (blank + 94 en_dict + space)", c)
	}
}

// Every configs/ocr/rec_*.yaml builds its model (the fine-tuning one needs the
// ppocrv4 model in the store).
func TestAllRecConfigsBuild(t *testing.T) {
	names, err := fs.Glob(configs.FS, "ocr/rec_*.yaml")
	if err != nil || len(names) < 3 {
		t.Fatalf("configs %v: %v", names, err)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			var overrides []string
			if strings.Contains(name, "ppocrv4") {
				// the model store, or the npm copy scripts/setup.sh fetches
				dir := ppocrv4Dir()
				if dir == "" {
					t.Skip("ppocrv4 models not found: run `paddle model pull ppocrv4` or scripts/fetch_ppocrv4.sh")
				}
				overrides = []string{
					"Architecture.Backbone.model_file=" + filepath.Join(dir, "ch_PP-OCRv4_rec_infer.onnx"),
					"Global.character_dict_path=" + filepath.Join(dir, "ppocr_keys_v1.txt"),
				}
			}
			cfg, err := config.Load(name, overrides...)
			if err != nil {
				t.Fatal(err)
			}
			m, k, err := NewRecognizer(cfg)
			if err != nil {
				t.Fatal(err)
			}
			h, w := 48, 160
			if fh, fw, fixed := fixedInput(m); fixed {
				h, w = fh, fw
			}
			var logits *tensor.Tensor
			ag.NoGrad(func() { logits = m.Forward(ag.Const(tensor.New(tensor.Float32, 1, 3, h, w)), false).T })
			if s := logits.Shape(); s[1] != 1 || s[2] != k {
				t.Errorf("logits %v for 1×3×%d×%d, want (T, 1, %d)", s, h, w, k)
			}
		})
	}
}
