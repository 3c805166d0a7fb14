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
	dir := storeDir()
	if dir == "" {
		t.Skip("ppocrv4 models not found: run `paddle model pull ppocrv4`")
	}
	store := t.TempDir()
	b, err := os.ReadFile(filepath.Join(dir, storeCls))
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(store, storeCls)
	if err := os.WriteFile(src, b, 0o644); err != nil {
		t.Fatal(err)
	}
	steps := 0
	progress := func(total int, _ string) iostreams.Progress { return countBar{&steps} }
	load := func() (*graph.Graph, error) { return onnx.ReadFile(src) }
	get := func() string {
		t.Helper()
		p, err := int8Model(store, "cls", storeCls, storeSHA256(storeCls), load, ProfileV2(), progress)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	// The cache is tested on the classifier, the smallest model, whatever
	// its plan for predict is (docs/int8.md: it stays float there).
	plan := int8Plan{Quantize: true, Method: "percentile", Count: 48}
	saved := int8Plans["cls"]
	int8Plans["cls"] = plan
	defer func() { int8Plans["cls"] = saved }()
	q := get()
	if want := plan.Count * 2; steps != want { // percentile: two passes
		t.Fatalf("first use: %d calibration steps, want %d", steps, want)
	}
	if filepath.Base(q) != "ch_ppocr_mobile_v2.0_cls_infer.int8.onnx" || !fileExists(q+".json") {
		t.Fatalf("cached file %s (or its sidecar) missing", q)
	}
	fi, _ := os.Stat(q)
	time.Sleep(10 * time.Millisecond)
	steps = 0
	if get() != q || steps != 0 {
		t.Fatalf("second use calibrated again (%d steps)", steps)
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
	ins, err := CalibrationInputs("cls", plan.Count+12, ProfileV2())
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
		a, err := runOne(fp, x)
		if err != nil {
			t.Fatal(err)
		}
		c, err := runOne(qp, x)
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
	steps = 0
	if get() != q || steps == 0 {
		t.Fatal("a corrupted cached file was used instead of being made again")
	}
	if nb, _ := os.ReadFile(q); slices.Equal(nb, cb) {
		t.Fatal("the corrupted file is still there")
	}
}

func absDiff(a, b float32) float32 {
	if a > b {
		return a - b
	}
	return b - a
}
