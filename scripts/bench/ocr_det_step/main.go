// Command ocr_det_step times one detection training step in paddle: the DB
// network of configs/ocr/det_db_lcnet.yaml (PP-LCNet x0.25 backbone, DBFPN
// 48, DBHead k 50; built by kits/ocr/dettrain from the config) on a random
// batch (default 8 × 3×640×640, 8 random text boxes per image turned into
// shrink and threshold maps), forward + DBLoss (balanced BCE with OHEM 3:1,
// masked L1 on the threshold map, dice on the binary map) + backward + the
// config's optimizer (Adam, clip-norm 5). scripts/bench/ocr_det_step_torch.py
// is the same step in PyTorch; scripts/bench/ocr_det_step.sh runs both at
// the same threads. Prints one JSON line: {"impl", "threads", "batch",
// "size", "median_ms", "min_ms", "steps"}.
//
//	go run ./scripts/bench/ocr_det_step -threads 2 -seconds 10
package main

import (
	"flag"
	"math/rand/v2"

	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/tensor"
	"paddle/kits/ocr/dettrain"
	"paddle/scripts/bench/internal/stepbench"
)

func main() {
	threads := flag.Int("threads", 1, "kernel threads")
	seconds := flag.Float64("seconds", 10, "minimum timed seconds")
	batch := flag.Int("batch", 8, "images per step")
	size := flag.Int("size", 640, "image height and width (a multiple of 32)")
	cfgPath := flag.String("c", "ocr/det_db_lcnet.yaml", "detection config (its Architecture, Loss and Optimizer)")
	overrides := flag.String("o", "", "a config override such as Architecture.Neck.out_channels=96")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	flag.Parse()
	stop, err := stepbench.Start(*threads, *cpuprofile)
	if err == nil {
		err = run(*cfgPath, *overrides, *threads, *batch, *size, *seconds)
		stop()
	}
	if err != nil {
		stepbench.Fail("ocr_det_step", err)
	}
}

func run(cfgPath, override string, threads, batch, size int, seconds float64) error {
	var ov []string
	if override != "" {
		ov = append(ov, override)
	}
	cfg, err := config.Load(cfgPath, ov...)
	if err != nil {
		return err
	}
	model, loss, err := dettrain.NewDetector(cfg)
	if err != nil {
		return err
	}
	opt, err := stepbench.Optimizer(cfg, model.Params())
	if err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(1, 2))
	x := tensor.Rand(r, tensor.Float32, -2, 2, batch, 3, size, size)
	y := dettrain.RandomLabels(r, batch, size, size, 8)
	stepbench.Time(func() {
		opt.ZeroGrad()
		l, _ := loss.Loss(model.Forward(ag.Const(x), true), y)
		l.Backward()
		opt.Step()
	}, 2, seconds, map[string]any{"impl": "paddle", "threads": threads, "batch": batch, "size": size})
	return nil
}
