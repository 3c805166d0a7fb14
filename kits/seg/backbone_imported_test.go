package seg

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"paddle/core/config"
	"paddle/core/hub"
	pio "paddle/core/io"
	"paddle/core/zoo"
)

// PP-LiteSeg on PP-OCRv4's imported PP-LCNetV3 (stride 8, 16, 32 maps)
// trains through the command for 2 iterations: freeze_at 1 keeps the stem,
// blocks2 and blocks3 exactly at the imported weights while blocks4..6
// move; the trained model exports (paddle's runtime and ONNX Runtime, when
// installed, match the Go forward).
func TestTrainImportedBackbone(t *testing.T) {
	if _, ok := hub.Path("ppocrv4"); !ok {
		t.Skip("model store: ppocrv4 is not pulled (paddle model pull ppocrv4)")
	}
	dir := t.TempDir()
	ds := filepath.Join(dir, "ds")
	makeSynth(t, ds, 8, 2, 64)
	y := strings.Replace(tinyConfig(ds, 2), "backbone: {type: STDC1, base: 16, layers: [1, 1, 1]}",
		"backbone: {type: PPLCNetV3, model_file: "+zoo.DefaultImportedModel+", feature_maps: [3, 4, 5], freeze_at: 1, lr_mult_list: [1, 1, 1, 0.5, 1, 1]}", 1)
	cfgPath := filepath.Join(dir, "tiny.yaml")
	if err := os.WriteFile(cfgPath, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if code, _, errOut := runPaddle(t, "seg", "train", "-c", cfgPath, "--output", out); code != 0 {
		t.Fatalf("train: %s", errOut)
	}
	ck, err := pio.LoadCheckpoint(filepath.Join(out, "latest"))
	if err != nil {
		t.Fatal(err)
	}
	orig, err := zoo.NewImported(zoo.ImportedOptions{}, "PPLCNetV3") // as the config imports it (BGR stem reversed)
	if err != nil {
		t.Fatal(err)
	}
	moved := make([]float64, 6)
	for _, p := range orig.Params() {
		got, ok := ck.Model[backbonePrefix+p.Name]
		if !ok {
			t.Fatalf("checkpoint has no %s%s", backbonePrefix, p.Name)
		}
		a, b := p.V.T.Float64s(), got.Float64s()
		for i := range a {
			moved[orig.Stage(p.Name)] += max(a[i]-b[i], b[i]-a[i])
		}
	}
	t.Logf("sum |Δ| per stage: %v", moved)
	for s, d := range moved {
		if frozen := s <= 2; frozen != (d == 0) {
			t.Errorf("stage %d: sum |Δ| %g, frozen %v", s, d, frozen)
		}
	}
	// The trained model exports; the runtime on the export matches the Go forward.
	exp := filepath.Join(dir, "export")
	if code, _, errOut := runPaddle(t, "seg", "export", "--weights", filepath.Join(out, "latest"), "--output", exp); code != 0 {
		t.Fatalf("export: %s", errOut)
	}
	checkExportNumerics(t, cfgPath, filepath.Join(out, "latest"), exp)
}

// The shipped config builds PP-LiteSeg on the imported backbone, whose
// frozen-or-not multipliers reach the optimizer through LRMult.
func TestShippedImportedConfigBuilds(t *testing.T) {
	if _, ok := hub.Path("ppocrv4"); !ok {
		t.Skip("model store: ppocrv4 is not pulled (paddle model pull ppocrv4)")
	}
	c, err := config.Load(filepath.Join("..", "..", "configs", "seg", "pp_liteseg_synth_ppocrv4.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var model config.Component
	if err := c.Decode("model", &model); err != nil {
		t.Fatal(err)
	}
	m, err := buildModel(model, 9, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	pl := m.(*PPLiteSeg)
	if _, ok := pl.Backbone.(*zoo.ImportedBackbone); !ok {
		t.Fatalf("backbone %T, want the imported PP-LCNetV3", pl.Backbone)
	}
	if got := pl.Backbone.Channels(); !slices.Equal(got, []int{96, 192, 384}) {
		t.Errorf("channels %v, want [96 192 384]", got)
	}
	if pl.LRMult("backbone.conv2d_0.w_0") != 1 || pl.LRMult("heads.0.cls.weight") != 1 {
		t.Error("lr_mult_list all 1: want multiplier 1")
	}
}
