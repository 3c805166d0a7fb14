package dettrain

import (
	"fmt"
	"math/rand/v2"

	"paddle/core/config"
	"paddle/core/imgproc"
	"paddle/core/tensor"
)

// NewDetector builds the DB network a detection config describes, with its
// initial weights, and the config's DBLoss: for benchmarks and tools that
// drive a training step themselves (scripts/bench/ocr_det_step).
func NewDetector(cfg *config.Config) (*DBNet, DBLoss, error) {
	wr, err := Build(cfg)
	if err != nil {
		return nil, DBLoss{}, err
	}
	r := wr.(*runner)
	m, err := r.newModel()
	if err != nil {
		return nil, DBLoss{}, fmt.Errorf("%s: %w", cfg.File, err)
	}
	return m, r.loss, nil
}

// RandomLabels draws DB targets for n h×w images, each with k random
// axis-aligned text boxes (16–48 px high, 3–12 times as wide), made with
// MakeShrinkMap and MakeBorderMap at PaddleOCR's defaults.
func RandomLabels(r *rand.Rand, n, h, w, k int) Labels {
	maps := [4]*tensor.Tensor{}
	for i := range maps {
		maps[i] = tensor.New(tensor.Float32, n, h, w)
	}
	for i := range n {
		var polys [][]imgproc.Point
		var ignore []bool
		for range k {
			bh := 16 + r.Float64()*32
			bw := min(bh*(3+9*r.Float64()), float64(w-2))
			x, y := r.Float64()*(float64(w)-bw-1), r.Float64()*(float64(h)-bh-1)
			polys = append(polys, []imgproc.Point{{X: x, Y: y}, {X: x + bw, Y: y}, {X: x + bw, Y: y + bh}, {X: x, Y: y + bh}})
			ignore = append(ignore, false)
		}
		tm, tk := MakeBorderMap(polys, ignore, h, w, BorderMapOpts{ShrinkRatio: 0.4, ThreshMin: 0.3, ThreshMax: 0.7})
		sm, sk := MakeShrinkMap(polys, ignore, h, w, ShrinkMapOpts{ShrinkRatio: 0.4, MinTextSize: 8})
		for j, src := range [][]float32{sm, sk, tm, tk} {
			copy(maps[j].F32()[i*h*w:], src)
		}
	}
	return Labels{ShrinkMap: maps[0], ShrinkMask: maps[1], ThreshMap: maps[2], ThreshMask: maps[3]}
}
