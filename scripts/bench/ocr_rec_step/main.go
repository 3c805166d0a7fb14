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
	"flag"
	"math/rand/v2"

	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/tensor"
	"paddle/kits/ocr/rectrain"
	"paddle/scripts/bench/internal/stepbench"
)

func main() {
	threads := flag.Int("threads", 1, "kernel threads")
	seconds := flag.Float64("seconds", 10, "minimum timed seconds")
	batch := flag.Int("batch", 64, "lines per step")
	height := flag.Int("height", 48, "input height")
	width := flag.Int("width", 320, "input width")
	cfgPath := flag.String("c", "ocr/rec_crnn_en.yaml", "recognition config (its Architecture and Optimizer)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	flag.Parse()
	stop, err := stepbench.Start(*threads, *cpuprofile)
	if err == nil {
		err = run(*cfgPath, *threads, *batch, *height, *width, *seconds)
		stop()
	}
	if err != nil {
		stepbench.Fail("ocr_rec_step", err)
	}
}

func run(cfgPath string, threads, batch, h, w int, seconds float64) error {
	cfg, err := config.Load(cfgPath)
	if err != nil {
		return err
	}
	model, k, err := rectrain.NewRecognizer(cfg)
	if err != nil {
		return err
	}
	opt, err := stepbench.Optimizer(cfg, model.Params())
	if err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(1, 2))
	x := tensor.Rand(r, tensor.Float32, -1, 1, batch, 3, h, w)
	targets, lens := rectrain.RandomTargets(r, batch, 5, 20, k)
	stepbench.Time(func() {
		opt.ZeroGrad()
		rectrain.CTCLoss(model.Forward(ag.Const(x), true), targets, lens).Backward()
		opt.Step()
	}, 2, seconds, map[string]any{"impl": "paddle", "threads": threads, "batch": batch})
	return nil
}
