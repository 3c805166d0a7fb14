package ocr

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"paddle/core/cli/iostreams"
	"paddle/core/graph"
	"paddle/core/onnx"
	"paddle/core/runtime"
	"paddle/core/tensor"
)

// countBar counts the steps a calibration reports.
type countBar struct{ n *int }

func (b countBar) Add(n int)     { *b.n += n }
func (countBar) Describe(string) {}
func (countBar) Finish()         {}

// TestInt8ModelCache quantizes the store's angle classifier (the smallest
// model) the way --precision int8 does: the first use calibrates (progress
// reported for every input of both passes) and writes the cached file with
// its sidecar; the second reuses it without calibrating (no progress, file
// untouched); a corrupted cached file is detected by its sha256 and made
// again. The int8 classifier answers as the float one on lines it was not
// calibrated on.
func TestInt8ModelCache(t *testing.T) {
	plan := int8Plan{Quantize: true, Method: "percentile", Count: 48}
	// Kernels that prefer 7-bit weights, but a plan without Weights7:
	// full-range weights, the .int8.onnx file.
	src, get, steps := int8ClsStore(t, plan, true)
	q := get()
	if want := plan.Count * 2; *steps != want { // percentile: two passes
		t.Fatalf("first use: %d calibration steps, want %d", *steps, want)
	}
	if filepath.Base(q) != "ch_ppocr_mobile_v2.0_cls_infer.int8.onnx" || !fileExists(q+".json") {
		t.Fatalf("cached file %s (or its sidecar) missing", q)
	}
	fi, _ := os.Stat(q)
	time.Sleep(10 * time.Millisecond)
	*steps = 0
	if get() != q || *steps != 0 {
		t.Fatalf("second use calibrated again (%d steps)", *steps)
	}
	if fi2, _ := os.Stat(q); !fi2.ModTime().Equal(fi.ModTime()) {
		t.Fatal("second use rewrote the cached file")
	}

	// The int8 classifier agrees with the float one on other lines (the
	// same label where the float one is clear; probabilities within 0.15:
	// measured up to 0.08, which is why predict keeps it float).
	fp, err := runtime.Load(src, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	qp, err := runtime.Load(q, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ins, err := CalibrationInputs("cls", plan.Count+12, ProfileV2(), nil)
	if err != nil {
		t.Fatal(err)
	}
	nq := 0
	for _, op := range qp.Graph().Nodes {
		if strings.HasPrefix(op.Op.Name, "q") {
			nq++
		}
	}
	if nq == 0 {
		t.Fatal("the cached classifier runs no int8 op")
	}
	for i, x := range ins[plan.Count:] {
		a, _, err := runOne(fp, x)
		if err != nil {
			t.Fatal(err)
		}
		c, _, err := runOne(qp, x)
		if err != nil {
			t.Fatal(err)
		}
		av, cv := f32Data(a), f32Data(c)
		if absDiff(av[0], av[1]) > 0.2 && (av[1] > av[0]) != (cv[1] > cv[0]) || absDiff(av[1], cv[1]) > 0.15 {
			t.Errorf("line %d: float %v, int8 %v", i, av, cv)
		}
	}

	// Corruption: one byte changed, same size.
	cb, _ := os.ReadFile(q)
	cb[len(cb)/2] ^= 0xff
	if err := os.WriteFile(q, cb, 0o644); err != nil {
		t.Fatal(err)
	}
	*steps = 0
	if get() != q || *steps == 0 {
		t.Fatal("a corrupted cached file was used instead of being made again")
	}
	if nb, _ := os.ReadFile(q); slices.Equal(nb, cb) {
		t.Fatal("the corrupted file is still there")
	}
}

// int8ClsStore copies the store's angle classifier (the smallest model)
// into a temporary store and returns its path and a function that gets its
// int8 model as predict does, under plan (whatever the classifier's plan
// for predict is: docs/int8.md keeps it float), with 7-bit weights when
// w7 (int8Weights7; *w7 may be changed between calls), counting the
// calibration steps into *steps.
func int8ClsStore(t *testing.T, plan int8Plan, w7 bool) (src string, get func() string, steps *int) {
	t.Helper()
	dir := storeDir()
	if dir == "" {
		t.Skip("ppocrv4 models not found: run `paddle model pull ppocrv4`")
	}
	store := t.TempDir()
	b, err := os.ReadFile(filepath.Join(dir, storeCls))
	if err != nil {
		t.Fatal(err)
	}
	src = filepath.Join(store, storeCls)
	if err := os.WriteFile(src, b, 0o644); err != nil {
		t.Fatal(err)
	}
	steps = new(int)
	progress := func(total int, _ string) iostreams.Progress { return countBar{steps} }
	load := func() (*graph.Graph, error) { return onnx.ReadFile(src) }
	saved, savedW7 := int8Plans["cls"], int8Weights7
	int8Plans["cls"] = plan
	int8Weights7 = func() bool { return w7 }
	t.Cleanup(func() { int8Plans["cls"], int8Weights7 = saved, savedW7 })
	get = func() string {
		t.Helper()
		p, err := int8Model(store, "cls", storeCls, storeSHA256(storeCls), load, ProfileV2(), progress)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	return src, get, steps
}

// With a plan that asks for them (Weights7; no predict plan does yet),
// where the kernels prefer 7-bit weights (AVX2 without VNNI) the int8
// model is quantized with reduce-range and cached under its own name:
// its weights span [-63, 63] (the full-range one's [-127, 127]); both
// stay cached, so switching levels back and forth never recalibrates.
func TestInt8ModelWeights7(t *testing.T) {
	_, get, steps := int8ClsStore(t, int8Plan{Quantize: true, Method: "minmax", Count: 8, Weights7: true}, false)
	wmax := func(file string) int {
		t.Helper()
		g, err := onnx.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		m := 0
		for _, v := range g.Consts() {
			if v.Const.DType() == tensor.Int8 {
				for _, w := range v.Const.I8() {
					m = max(m, int(w), -int(w))
				}
			}
		}
		return m
	}
	full := get()
	int8Weights7 = func() bool { return true }
	w7 := get()
	if filepath.Base(w7) != "ch_ppocr_mobile_v2.0_cls_infer.int8-w7.onnx" || w7 == full || !fileExists(w7+".json") {
		t.Fatalf("7-bit model cached as %s (full range: %s)", w7, full)
	}
	if a, b := wmax(full), wmax(w7); a != 127 || b != 63 {
		t.Errorf("int8 weights reach |%d| (full range) and |%d| (7-bit), want 127 and 63", a, b)
	}
	*steps = 0
	int8Weights7 = func() bool { return false }
	if get() != full || *steps != 0 {
		t.Fatalf("full-range model made again after the 7-bit one (%d steps)", *steps)
	}
	int8Weights7 = func() bool { return true }
	if get() != w7 || *steps != 0 {
		t.Fatalf("7-bit model made again (%d steps)", *steps)
	}
}

func absDiff(a, b float32) float32 {
	if a > b {
		return a - b
	}
	return b - a
}

// The recogniser's Chinese calibration lines: drawn in the first installed
// cjkCalibFonts font (never a held-out set's), over the dictionary's
// non-ASCII characters that font has; they follow the English lines, and
// only the rec model takes them. The font is part of the cache key.
func TestCJKCalibration(t *testing.T) {
	dir := storeDir()
	if dir == "" {
		t.Skip("ppocrv4 models not found: run `paddle model pull ppocrv4`")
	}
	font, key := cjkCalibFont()
	if font == "" {
		if key != "cjk=none" {
			t.Fatalf("no font, key %q", key)
		}
		t.Skip("no CJK calibration font installed (fonts-wqy-microhei)")
	}
	if !strings.HasPrefix(key, "cjk="+filepath.Base(font)+":") {
		t.Errorf("key %q does not name %s", key, font)
	}
	for _, held := range []string{"DroidSansFallbackFull.ttf", "gbsn00lp.ttf"} {
		if filepath.Base(font) == held {
			t.Fatalf("%s renders a held-out set: not for calibration", font)
		}
	}
	cjk, err := loadCJKCalib(font, filepath.Join(dir, storeDict), 3)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range cjk.Chars {
		if r < 0x80 || !cjk.Font.HasAll(string(r)) {
			t.Fatalf("calibration character %q: ASCII or not in the font", r)
		}
		n++
	}
	t.Logf("%s: %d of the dictionary's characters", font, n)
	if n < 5000 {
		t.Errorf("only %d characters to draw from", n)
	}
	ins, err := CalibrationInputs("rec", 2, ProfileV2(), cjk)
	if err != nil {
		t.Fatal(err)
	}
	en, err := CalibrationInputs("rec", 2, ProfileV2(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(ins) != 5 || len(en) != 2 {
		t.Fatalf("%d inputs with 3 CJK lines after 2 English ones, %d without", len(ins), len(en))
	}
	for i := range en {
		if d, _ := tensor.MaxDiff(ins[i], en[i], 0, 0); d != 0 {
			t.Errorf("English line %d changed by adding CJK lines", i)
		}
	}
	if _, err := CalibrationInputs("det", 1, ProfileV2(), cjk); err == nil {
		t.Error("CJK lines for the detector: want an error")
	}
	if _, err := loadCJKCalib(font, filepath.Join(t.TempDir(), "none.txt"), 1); err == nil {
		t.Error("a missing dictionary: want an error")
	}
}
