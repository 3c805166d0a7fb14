// Command ocr_det_crops turns detection pages with known text (a PaddleOCR
// det label file, e.g. from `paddle ocr synth --det`) into recognition
// training lines cut as `paddle ocr predict` cuts them: the stock PP-OCRv4
// detector runs on each page, each detected box is matched to the label box
// it overlaps most (polygon IoU at least -iou, one to one), and its crop
// (GetRotateCropImage, as predict_system.py) is written with that label's
// text. Detected boxes without a match are left out, and so are label boxes
// the detector missed.
//
//	go run ./scripts/ocr_det_crops -gt pages/det_gt.txt -o crops
//
// writes crops/images/*.png and crops/rec_gt.txt (path<TAB>text).
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"image/png"
	"log/slog"
	"os"
	"path/filepath"
	"sort"

	"paddle/core/data"
	"paddle/core/imgproc"
	pio "paddle/core/io"
	"paddle/core/parallel"
	"paddle/kits/ocr"
	"paddle/kits/ocr/dettrain"
	"paddle/kits/ocr/rectrain"
)

func main() {
	gt := flag.String("gt", "", "detection label file (image<TAB>json per line, paths relative to its folder)")
	out := flag.String("o", "", "output folder: images/ and rec_gt.txt")
	minIoU := flag.Float64("iou", 0.7, "least polygon IoU between a detected box and its label box")
	threads := flag.Int("threads", 2, "kernel threads")
	flag.Parse()
	if *gt == "" || *out == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*gt, *out, *minIoU, *threads); err != nil {
		fmt.Fprintln(os.Stderr, "ocr_det_crops:", err)
		os.Exit(1)
	}
}

func run(gtPath, out string, minIoU float64, threads int) error {
	parallel.SetThreads(threads)
	items, err := rectrain.ReadDetLabels([]string{gtPath}, nil, filepath.Dir(gtPath), 0)
	if err != nil {
		return err
	}
	sys, err := ocr.LoadSystem(context.Background(), ocr.Sources{UseDet: true, Offline: true}, ocr.ProfileV2())
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(out, "images"), 0o755); err != nil {
		return err
	}
	var w bytes.Buffer
	var labelled, kept int
	for pi, it := range items {
		m, err := data.DecodeFile(it.Path, data.BGR)
		if err != nil {
			return err
		}
		img := imgproc.Mat8{H: m.H, W: m.W, C: m.C, Pix: m.Pix}
		boxes, err := ocr.Detect(sys.Det, img, sys.Profile)
		if err != nil {
			return fmt.Errorf("%s: %w", it.Path, err)
		}
		for k, p := range match(it.Boxes, boxes, minIoU) {
			crop, ok := imgproc.GetRotateCropImage(img, boxes[p.det])
			if !ok {
				continue
			}
			name := fmt.Sprintf("images/%05d_%02d.png", pi, k)
			if err := writePNG(filepath.Join(out, name), crop); err != nil {
				return err
			}
			fmt.Fprintf(&w, "%s\t%s\n", name, it.Boxes[p.label].Text)
			kept++
		}
		for _, b := range it.Boxes {
			if !b.Ignore {
				labelled++
			}
		}
	}
	slog.Info("crops", "pages", len(items), "label_boxes", labelled, "kept", kept)
	return pio.WriteFileAtomic(filepath.Join(out, "rec_gt.txt"), w.Bytes(), 0o644)
}

// pair is a label box matched to a detected box.
type pair struct {
	label, det int
	iou        float64
}

// match pairs label boxes (not ignored) with detected boxes one to one,
// greedily by descending IoU, keeping pairs of IoU ≥ minIoU; the result is in
// label order.
func match(labels []rectrain.DetBox, dets []ocr.Box, minIoU float64) []pair {
	var pairs []pair
	for i, l := range labels {
		if l.Ignore {
			continue
		}
		lp := make([]imgproc.Point, len(l.Points))
		for j, p := range l.Points {
			lp[j] = imgproc.Point{X: p[0], Y: p[1]}
		}
		for j, d := range dets {
			if v := dettrain.IoU(lp, d[:]); v >= minIoU {
				pairs = append(pairs, pair{i, j, v})
			}
		}
	}
	sort.SliceStable(pairs, func(a, b int) bool { return pairs[a].iou > pairs[b].iou })
	usedL, usedD := map[int]bool{}, map[int]bool{}
	var out []pair
	for _, p := range pairs {
		if !usedL[p.label] && !usedD[p.det] {
			usedL[p.label], usedD[p.det] = true, true
			out = append(out, p)
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].label < out[b].label })
	return out
}

// writePNG writes a BGR crop as an RGB PNG, atomically.
func writePNG(path string, m imgproc.Mat8) error {
	img := &data.Image{H: m.H, W: m.W, C: m.C, Pix: append([]uint8(nil), m.Pix...)}
	data.SwapRB(img)
	var b bytes.Buffer
	if err := png.Encode(&b, img.ToStd()); err != nil {
		return err
	}
	return pio.WriteFileAtomic(path, b.Bytes(), 0o644)
}
