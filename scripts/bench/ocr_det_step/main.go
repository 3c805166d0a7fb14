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
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"slices"
	"time"

	"paddle/core/ag"
	"paddle/core/backend"
	_ "paddle/core/backend/cpu"
	"paddle/core/config"
	"paddle/core/optim"
	"paddle/core/tensor"
	"paddle/kits/ocr/dettrain"
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
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "ocr_det_step:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if err := run(*cfgPath, *overrides, *threads, *batch, *size, *seconds); err != nil {
		fmt.Fprintln(os.Stderr, "ocr_det_step:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

func run(cfgPath, override string, threads, batch, size int, seconds float64) error {
	b, err := backend.Get("cpu")
	if err != nil {
		return err
	}
	if err := b.Activate(threads); err != nil {
		return err
	}
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
	x := tensor.Rand(r, tensor.Float32, -2, 2, batch, 3, size, size)
	y := dettrain.RandomLabels(r, batch, size, size, 8)
	step := func() {
		opt.ZeroGrad()
		l, _ := loss.Loss(model.Forward(ag.Const(x), true), y)
		l.Backward()
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
	out, _ := json.Marshal(map[string]any{"impl": "paddle", "threads": threads, "batch": batch, "size": size,
		"median_ms": ms[len(ms)/2], "min_ms": ms[0], "steps": len(ms)})
	fmt.Println(string(out))
	return nil
}
