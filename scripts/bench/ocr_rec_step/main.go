// Command ocr_rec_step times one recognition training step in paddle: the
// CRNN of configs/ocr/rec_crnn_en.yaml (MiniVGG 32-48-64-96 + BiLSTM 64 +
// CTC head, 96 classes; built by kits/ocr/rectrain from the config) on a
// random batch (default 64 × 3×48×320, 80 time steps, labels of 5–20
// classes), forward + CTC loss + backward + the config's optimizer (Adam,
// clip-norm 5). scripts/bench/ocr_rec_step_torch.py is the same step in
// PyTorch; scripts/bench/ocr_rec_step.sh runs both at the same threads.
// Prints one JSON line: {"impl", "threads", "batch", "median_ms", "min_ms", "steps"}.
//
//	go run ./scripts/bench/ocr_rec_step -threads 2 -seconds 10
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"time"

	"paddle/core/ag"
	"paddle/core/backend"
	_ "paddle/core/backend/cpu"
	"paddle/core/config"
	"paddle/core/optim"
	"paddle/core/tensor"
	"paddle/kits/ocr/rectrain"
)

func main() {
	threads := flag.Int("threads", 1, "kernel threads")
	seconds := flag.Float64("seconds", 10, "minimum timed seconds")
	batch := flag.Int("batch", 64, "lines per step")
	height := flag.Int("height", 48, "input height")
	width := flag.Int("width", 320, "input width")
	cfgPath := flag.String("c", "ocr/rec_crnn_en.yaml", "recognition config (its Architecture and Optimizer)")
	flag.Parse()
	if err := run(*cfgPath, *threads, *batch, *height, *width, *seconds); err != nil {
		fmt.Fprintln(os.Stderr, "ocr_rec_step:", err)
		os.Exit(1)
	}
}

func run(cfgPath string, threads, batch, h, w int, seconds float64) error {
	b, err := backend.Get("cpu")
	if err != nil {
		return err
	}
	if err := b.Activate(threads); err != nil {
		return err
	}
	cfg, err := config.Load(cfgPath)
	if err != nil {
		return err
	}
	model, k, err := rectrain.NewRecognizer(cfg)
	if err != nil {
		return err
	}
	var oc optim.Config
	if err := cfg.Decode("Optimizer", &oc); err != nil {
		return err
	}
	opt, _, err := optim.Build(oc, model.Params(), 1, 1000)
	if err != nil {
		return err
	}
	opt.SetLR(1e-3)
	r := rand.New(rand.NewPCG(1, 2))
	x := tensor.Rand(r, tensor.Float32, -1, 1, batch, 3, h, w)
	targets, lens := rectrain.RandomTargets(r, batch, 5, 20, k)
	step := func() {
		opt.ZeroGrad()
		rectrain.CTCLoss(model.Forward(ag.Const(x), true), targets, lens).Backward()
		opt.Step()
	}
	for range 2 {
		step()
	}
	var ms []float64
	start := time.Now()
	for time.Since(start).Seconds() < seconds || len(ms) < 3 {
		t0 := time.Now()
		step()
		ms = append(ms, float64(time.Since(t0).Microseconds())/1000)
	}
	slices.Sort(ms)
	out, _ := json.Marshal(map[string]any{"impl": "paddle", "threads": threads, "batch": batch, "median_ms": ms[len(ms)/2], "min_ms": ms[0], "steps": len(ms)})
	fmt.Println(string(out))
	return nil
}
