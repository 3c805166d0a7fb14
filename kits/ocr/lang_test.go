package ocr

import (
	"bytes"
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/cli/cmdutil"
	"paddle/core/cli/iostreams"
	"paddle/core/hub"
	"paddle/core/imgproc"
	pio "paddle/core/io"
	"paddle/core/onnx"
	"paddle/core/onnx/onnxpb"
	"paddle/core/runtime"
	"paddle/core/tensor"
)

// gapRec reads a, blank (space class 0.3), b in every crop: "ab" under ctc, "a b" under gaps.
type gapRec struct{}

func (gapRec) Run(in map[string]*tensor.Tensor) (map[string]*tensor.Tensor, error) {
	n := in["x"].Dim(0)
	y := tensor.New(tensor.Float32, n, 3, 4)
	for i := 0; i < n; i++ {
		d := y.F32()[i*12:]
		d[0*4+1], d[1*4+0], d[1*4+3], d[2*4+2] = 0.9, 0.7, 0.3, 0.9
	}
	return map[string]*tensor.Tensor{"y": y}, nil
}

// runLang runs predict with a fake system and returns its text output and the
// Sources the loader was given.
func runLang(t *testing.T, stdin string, args ...string) (string, Sources, error) {
	t.Helper()
	ios, in, out, _ := iostreams.Test()
	in.WriteString(stdin)
	f := &cmdutil.Factory{IOStreams: ios}
	var got Sources
	cmd := NewCmdPredict(f, func(o *PredictOptions) error {
		o.load = func(_ context.Context, src Sources, p Profile) (*System, error) {
			got = src
			return &System{Det: blockDet{}, Rec: gapRec{}, Chars: []string{"blank", "a", "b", " "}, Profile: p}, nil
		}
		return predictRun(context.Background(), o)
	})
	cmd.SetArgs(args)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.Execute()
	return out.String(), got, err
}

func TestPredictLang(t *testing.T) {
	line := filepath.Join("testdata", "images", "line.png")
	for _, c := range []struct {
		args []string
		want string
		lang string
	}{
		{[]string{line}, "ab\n", ""},
		{[]string{"--lang", "ch", line}, "ab\n", "ch"},
		{[]string{"--lang", "en", line}, "a b\n", "en"},
		{[]string{"--lang", "en", "--space-mode", "ctc", line}, "ab\n", "en"},
		{[]string{"--space-mode", "gaps", "--det=false", line}, "a b\n", ""},
		{[]string{"--lang", "en", "--det=false", "-"}, "a b\n", "en"}, // paths on stdin
	} {
		out, src, err := runLang(t, line+"\n", c.args...)
		if err != nil || out != c.want || src.Lang != map[string]string{"": "ch"}[c.lang]+c.lang {
			t.Errorf("%v: %q %v (lang %q), want %q", c.args, out, err, src.Lang, c.want)
		}
	}
	_, _, err := runLang(t, "", "--lang", "fr", line)
	if err == nil || !strings.Contains(err.Error(), `--lang: unknown language "fr"`) {
		t.Errorf("--lang fr: %v", err)
	}
}

// headModel is Softmax(MatMul(x, W) + b) with W and b as Constant nodes: x [1, T, D].
func headModel(w []float32, b []float32, D, C int) *onnxpb.Model {
	konst := func(name string, t *onnxpb.Tensor) *onnxpb.Node {
		return &onnxpb.Node{OpType: "Constant", Output: []string{name}, Attribute: []*onnxpb.Attribute{{Name: "value", Type: onnxpb.AttrTensor, T: t}}}
	}
	vi := func(name string, dims ...int64) *onnxpb.ValueInfo {
		sh := &onnxpb.Shape{}
		for _, d := range dims {
			sh.Dim = append(sh.Dim, onnxpb.Dim{Value: d, HasValue: true})
		}
		return &onnxpb.ValueInfo{Name: name, Type: &onnxpb.TypeProto{TensorType: &onnxpb.TensorType{ElemType: onnxpb.Float, Shape: sh}}}
	}
	return &onnxpb.Model{IRVersion: 8, OpsetImport: []onnxpb.OpsetID{{Version: 13}}, Graph: &onnxpb.Graph{
		Node: []*onnxpb.Node{
			konst("w", onnxpb.FromFloat32s("w", []int64{int64(D), int64(C)}, w)),
			konst("b", onnxpb.FromFloat32s("b", []int64{int64(C)}, b)),
			{OpType: "MatMul", Input: []string{"x", "w"}, Output: []string{"mm"}},
			{OpType: "Add", Input: []string{"mm", "b"}, Output: []string{"logits"}},
			{OpType: "Softmax", Input: []string{"logits"}, Output: []string{"y"}, Attribute: []*onnxpb.Attribute{{Name: "axis", Type: onnxpb.AttrInt, I: 2}}},
		},
		Input:  []*onnxpb.ValueInfo{vi("x", 1, 2, int64(D))},
		Output: []*onnxpb.ValueInfo{vi("y", 1, 2, int64(C))},
	}}
}

func runHead(t *testing.T, m *onnxpb.Model, x []float32, D int) []float32 {
	t.Helper()
	g, err := onnx.Import(m)
	if err != nil {
		t.Fatal(err)
	}
	p, err := runtime.New(g, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	in := tensor.New(tensor.Float32, 1, 2, D)
	copy(in.F32(), x)
	out, _, err := runOne(p, in)
	if err != nil {
		t.Fatal(err)
	}
	return f32Data(out)
}

// A small head for the head tests: x (1, 2, headD) through W [headD, headC] and b.
const headD, headC = 3, 5

var (
	headW = []float32{0.1, -0.4, 0.3, 0.9, -0.2, 0.5, 0.2, -0.7, 0.1, 0.4, -0.3, 0.8, 0.6, -0.1, 0.2}
	headB = []float32{0.05, -0.1, 0.2, 0, 0.3}
	headX = []float32{1, 0.5, -0.5, -1, 2, 0.25}
)

// The sliced head's softmax is the full head's, renormalised over the kept classes.
func TestSliceRecHead(t *testing.T) {
	const D, C = headD, headC
	w, b, x := headW, headB, headX
	full := runHead(t, headModel(w, b, D, C), x, D)
	keep := []int{0, 4, 2}
	m := headModel(w, b, D, C)
	if err := SliceRecHead(m, keep); err != nil {
		t.Fatal(err)
	}
	if d := m.Graph.Output[0].Type.TensorType.Shape.Dim; d[2].Value != 3 {
		t.Errorf("output dims %v", d)
	}
	got := runHead(t, m, x, D)
	for s := 0; s < 2; s++ {
		var sum float32
		for _, k := range keep {
			sum += full[s*C+k]
		}
		for j, k := range keep {
			want := full[s*C+k] / sum
			if d := got[s*3+j] - want; d > 1e-6 || d < -1e-6 {
				t.Errorf("step %d class %d: %v, want %v", s, j, got[s*3+j], want)
			}
		}
	}
	if err := SliceRecHead(headModel(w, b, D, C), []int{0, 5}); err == nil || !strings.Contains(err.Error(), "class 5 out of range") {
		t.Errorf("class out of range: %v", err)
	}
	bad := headModel(w, b, D, C)
	bad.Graph.Node = bad.Graph.Node[:4]
	if err := SliceRecHead(bad, keep); err == nil || !strings.Contains(err.Error(), "MatMul → Add → Softmax") {
		t.Errorf("no softmax: %v", err)
	}
}

// An upsampled head repeats each step's probabilities f times (so greedy CTC
// reads the same text); its weights then train per output step.
func TestUpsampleRecHead(t *testing.T) {
	const D, C = headD, headC
	w, b, x := headW, headB, headX
	base := runHead(t, headModel(w, b, D, C), x, D) // (1, 2, C)
	if s := RecSteps(headModel(w, b, D, C)); s != 1 {
		t.Errorf("RecSteps of a plain head: %d", s)
	}
	for _, f := range []int{2, 3} {
		m := headModel(w, b, D, C)
		if err := UpsampleRecHead(m, f); err != nil {
			t.Fatal(err)
		}
		if s := RecSteps(m); s != f {
			t.Errorf("RecSteps after upsampling by %d: %d", f, s)
		}
		if d := m.Graph.Output[0].Type.TensorType.Shape.Dim; d[1].Value != int64(2*f) || d[2].Value != C {
			t.Errorf("f=%d: output dims %v", f, d)
		}
		got := runHead(t, m, x, D)
		if len(got) != 2*f*C {
			t.Fatalf("f=%d: %d outputs, want %d", f, len(got), 2*f*C)
		}
		for s := range 2 * f {
			for c := range C {
				if got[s*C+c] != base[s/f*C+c] {
					t.Errorf("f=%d step %d class %d: %v, want step %d's %v", f, s, c, got[s*C+c], s/f, base[s/f*C+c])
				}
			}
		}
		chars := []string{"blank", "a", "b", "c", "d"}
		if a, b := greedy(got, 2*f, C, chars), greedy(base, 2, C, chars); a != b {
			t.Errorf("f=%d: reads %q, the head before %q", f, a, b)
		}
	}
	m := headModel(w, b, D, C)
	if err := UpsampleRecHead(m, 1); err == nil {
		t.Error("factor 1 accepted")
	}
	bad := headModel(w, b, D, C)
	bad.Graph.Node = bad.Graph.Node[:4]
	if err := UpsampleRecHead(bad, 2); err == nil || !strings.Contains(err.Error(), "MatMul → Add → Softmax") {
		t.Errorf("no softmax: %v", err)
	}
}

// Weights trained on an upsampled head (a [D, f·C] head weight) upsample the
// model they are applied to; others must match its shapes.
func TestApplyRecWeights(t *testing.T) {
	const D, C = headD, headC
	w, b, x := headW, headB, headX
	w2 := make([]float32, D*2*C) // the second step's classes reversed
	for d := range D {
		for c := range C {
			w2[d*2*C+c], w2[d*2*C+C+c] = w[d*C+c], w[d*C+C-1-c]
		}
	}
	file := func(name string, v []float32, shape ...int) []byte {
		var buf bytes.Buffer
		if err := pio.EncodeSafetensors(&buf, []pio.Named{{Name: name, T: tensor.FromSlice(v, shape...)}}, nil); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	m := headModel(w, b, D, C)
	if err := ApplyRecWeights(m, file("w", w2, D, 2*C), "up.safetensors"); err != nil {
		t.Fatal(err)
	}
	if s := RecSteps(m); s != 2 {
		t.Fatalf("RecSteps %d, want 2", s)
	}
	got := runHead(t, m, x, D) // steps 0, 1 from x's first row; 2, 3 from its second
	logits := func(row, s int) []float32 {
		out := make([]float32, C)
		for c := range C {
			out[c] = b[c]
			for d := range D {
				out[c] += x[row*D+d] * w2[d*2*C+s*C+c]
			}
		}
		return out
	}
	for step := range 4 {
		l := logits(step/2, step%2)
		var sum float64
		for _, v := range l {
			sum += math.Exp(float64(v))
		}
		for c := range C {
			if want := math.Exp(float64(l[c])) / sum; math.Abs(float64(got[step*C+c])-want) > 1e-6 {
				t.Errorf("step %d class %d: %v, want %v", step, c, got[step*C+c], want)
			}
		}
	}
	if err := ApplyRecWeights(headModel(w, b, D, C), file("w", w2[:D*4], D, 4), "bad.safetensors"); err == nil || !strings.Contains(err.Error(), "bad.safetensors") {
		t.Errorf("a head weight of 4 columns on 5 classes: %v", err)
	}
}

func greedy(p []float32, T, C int, chars []string) string {
	s, _ := CTCDecode(p, T, C, chars)
	return s
}

func TestEnglishChars(t *testing.T) {
	en, err := EnglishChars()
	if err != nil {
		t.Fatal(err)
	}
	if len(en) != 96 || en[0] != "blank" || en[1] != "0" || en[95] != " " || en[94] != "/" {
		t.Errorf("%d classes: %q", len(en), en)
	}
}

// With the store's PP-OCRv4 files, the English recogniser reads the sample
// line with spaces (skipped without them).
func TestEnglishRecOnSample(t *testing.T) {
	dir, ok := hub.Path("ppocrv4")
	if !ok {
		t.Skip("no ppocrv4 model in the store (paddle model pull ppocrv4)")
	}
	rec, chars, steps, err := loadEnglishRec(dir, 0, false, Profile{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	img := loadBGR(t, filepath.Join("images", "line.png"))
	for _, stretch := range []float64{0, EnglishStretch} {
		res, err := RecShape{Stretch: stretch}.RecognizeWith(rec, []imgproc.Mat8{img}, chars, 1, DecoderFor(SpaceGaps, steps))
		if err != nil {
			t.Fatal(err)
		}
		// read exactly, with a score predict keeps (PaddleOCR's drop_score 0.5)
		if res[0].Text != "Hello World 123" || res[0].Score < 0.5 {
			t.Errorf("stretch %v: %q %.3f, want \"Hello World 123\" at 0.5 or more", stretch, res[0].Text, res[0].Score)
		}
	}
	// the system --lang en loads reads whole-image lines with the English
	// stretch and detector crops without; --lang ch reads both without
	for lang, want := range map[string]float64{LangEn: EnglishStretch, LangCh: 0} {
		s, err := LoadSystem(context.Background(), Sources{Lang: lang, Offline: true}, Profile{})
		if err != nil {
			t.Fatal(err)
		}
		if s.LineStretch != want || s.RecIn.Stretch != 0 {
			t.Errorf("--lang %s: line stretch %v, crop stretch %v; want %v, 0", lang, s.LineStretch, s.RecIn.Stretch, want)
		}
	}
}

// --lang en's model is the sliced base with the embedded trained neck and
// head: every embedded tensor lands in the model, and changes it.
func TestEnglishWeightsApplied(t *testing.T) {
	dir, ok := hub.Path("ppocrv4")
	if !ok {
		t.Skip("no ppocrv4 model in the store (paddle model pull ppocrv4)")
	}
	if err := hub.Verify(englishModel); err != nil {
		t.Fatal(err)
	}
	base, _, err := EnglishRecBase(dir)
	if err != nil {
		t.Fatal(err)
	}
	trained, _, err := EnglishRecModel(dir)
	if err != nil {
		t.Fatal(err)
	}
	// weights trained with f steps per column: compare with the base's head repeated
	if f := RecSteps(trained); f > 1 {
		if err := UpsampleRecHead(base, f); err != nil {
			t.Fatal(err)
		}
	}
	s, err := LoadSystem(context.Background(), Sources{Lang: LangEn, UseDet: false, Offline: true}, Profile{})
	if err != nil {
		t.Fatal(err)
	}
	if s.RecSteps != RecSteps(trained) {
		t.Errorf("--lang en's system: %d steps per column, its model %d", s.RecSteps, RecSteps(trained))
	}
	for _, name := range []string{"linear_85.w_0", "conv2d_142.w_0"} {
		a, errA := constTensor(base.Graph, name)
		b, errB := constTensor(trained.Graph, name)
		if errA != nil || errB != nil {
			t.Fatalf("%s: %v %v", name, errA, errB)
		}
		av, _ := a.Float32s()
		bv, _ := b.Float32s()
		if len(av) != len(bv) || len(av) == 0 {
			t.Fatalf("%s: %d and %d values", name, len(av), len(bv))
		}
		same := true
		for i := range av {
			if av[i] != bv[i] {
				same = false
				break
			}
		}
		if same {
			t.Errorf("%s: the trained weights did not change the base model", name)
		}
	}
}
