package runtime

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"paddle/core/parallel"
	"paddle/core/runtime/ppocrtest"
	"paddle/core/tensor"
)

// BenchmarkPPOCRv4 times the PP-OCRv4 models at the sizes of
// docs/BENCHMARKS.md (scripts/bench_ppocrv4.sh runs it next to ONNX Runtime).
// PADDLE_BENCH_THREADS sets the kernel threads (default: all cores).
func BenchmarkPPOCRv4(b *testing.B) {
	dir := ppocrtest.Dir(b)
	if t, err := strconv.Atoi(os.Getenv("PADDLE_BENCH_THREADS")); err == nil {
		old := parallel.Threads()
		parallel.SetThreads(t)
		defer parallel.SetThreads(old)
	}
	for _, c := range []struct{ name, model, shape string }{
		{"det_1x3x640x640", "ch_PP-OCRv4_det_infer.onnx", "1x3x640x640"},
		{"det_1x3x960x960", "ch_PP-OCRv4_det_infer.onnx", "1x3x960x960"},
		{"rec_1x3x48x320", "ch_PP-OCRv4_rec_infer.onnx", "1x3x48x320"},
		{"rec_6x3x48x320", "ch_PP-OCRv4_rec_infer.onnx", "6x3x48x320"},
		{"cls_6x3x48x192", "ch_ppocr_mobile_v2.0_cls_infer.onnx", "6x3x48x192"},
	} {
		b.Run(c.name, func(b *testing.B) {
			p, err := Load(filepath.Join(dir, c.model), Options{})
			if err != nil {
				b.Fatal(err)
			}
			var shape []int
			for _, d := range strings.Split(c.shape, "x") {
				n, _ := strconv.Atoi(d)
				shape = append(shape, n)
			}
			in := map[string]*tensor.Tensor{"x": tensor.Full(tensor.Float32, 0.1, shape...)}
			if _, err := p.Run(in); err != nil { // warm-up (and the shape plan)
				b.Fatal(err)
			}
			b.ResetTimer()
			for range b.N {
				if _, err := p.Run(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
