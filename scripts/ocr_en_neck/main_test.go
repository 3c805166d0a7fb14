package main

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"paddle/core/ag"
	"paddle/core/graph/module"
	"paddle/core/hub"
	"paddle/core/runtime"
	"paddle/core/tensor"
)

func TestEvalPart(t *testing.T) {
	for _, c := range []struct {
		n, evals int
		want     []int // the batches (from 0) that end a part
	}{
		{10, 1, []int{9}},
		{10, 2, []int{4, 9}},
		{10, 3, []int{3, 6, 9}},
		{3, 5, []int{0, 1, 2}}, // more scorings than batches: after every batch
		{4, 0, []int{3}},       // none asked: once an epoch
	} {
		var got []int
		for k := range c.n {
			if p := evalPart(k, c.n, c.evals); p != 0 {
				if p != len(got)+1 {
					t.Errorf("n=%d evals=%d: batch %d ends part %d, want %d", c.n, c.evals, k, p, len(got)+1)
				}
				got = append(got, k)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("n=%d evals=%d: scored after %v, want %v", c.n, c.evals, got, c.want)
		}
	}
}

func TestHalfFeatures(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	x := tensor.Rand(r, tensor.Float32, -8, 8, 2, 3, 3, 5)
	g := group{feat: x.Clone()}
	g.toHalf()
	if g.feat != nil || len(g.half) != 2*x.Len() || !slices.Equal(g.shape, []int(x.Shape())) {
		t.Fatalf("toHalf: feat %v, %d bytes, shape %v", g.feat != nil, len(g.half), g.shape)
	}
	y := g.features()
	if !slices.Equal([]int(y.Shape()), []int(x.Shape())) {
		t.Fatalf("shape %v, want %v", y.Shape(), x.Shape())
	}
	for i, v := range x.F32() {
		if d := math.Abs(float64(y.F32()[i] - v)); d > math.Abs(float64(v))/2048 {
			t.Fatalf("element %d: %v, want %v within half a float16 step", i, y.F32()[i], v)
		}
	}
}

func TestCacheName(t *testing.T) {
	d := source{labels: "/d/rec_gt.txt"}
	a := cacheName("c", d, "p2o.AveragePool.1", false, 8, 0)
	for _, b := range []string{
		cacheName("c", d, "p2o.Add.215", false, 8, 0),
		cacheName("c", d, "p2o.AveragePool.1", true, 8, 0),
		cacheName("c", d, "p2o.AveragePool.1", false, 4, 0),
		cacheName("c", d, "p2o.AveragePool.1", false, 8, 400),
		cacheName("c", source{labels: "/e/rec_gt.txt"}, "p2o.AveragePool.1", false, 8, 0),
		cacheName("c", source{"/d/rec_gt.txt", 1.3}, "p2o.AveragePool.1", false, 8, 0),
	} {
		if a == b {
			t.Errorf("two feature sets share the cache file %s", a)
		}
	}
	if want := filepath.Join("c", "d_rec_gt.txt-p2o.AveragePool.1-b8-n0.gob"); a != want {
		t.Errorf("cacheName = %s, want %s", a, want)
	}
	if b := cacheName("c", source{"/d/rec_gt.txt", 1}, "p2o.AveragePool.1", false, 8, 0); b != a {
		t.Errorf("stretch 1 is none, but is cached apart: %s", b)
	}
}

func TestParseSource(t *testing.T) {
	for spec, want := range map[string]source{"a/rec_gt.txt": {"a/rec_gt.txt", 0}, "a/rec_gt.txt@1.3": {"a/rec_gt.txt", 1.3}} {
		if got, err := parseSource(spec); err != nil || got != want {
			t.Errorf("parseSource(%q) = %+v, %v; want %+v", spec, got, err, want)
		}
	}
	for _, bad := range []string{"a@", "a@x", "a@-1", "a@0"} {
		if _, err := parseSource(bad); err == nil {
			t.Errorf("parseSource(%q): no error", bad)
		}
	}
}

// TestSplitLastBlock splits PP-OCRv4's recogniser before its backbone's last
// block: the backbone and the trainable part must together compute the whole
// network, and that block's convolutions must be among what trains.
func TestSplitLastBlock(t *testing.T) {
	dir, ok := hub.Path("ppocrv4")
	if !ok {
		t.Skip("no ppocrv4 model in the store (paddle model pull ppocrv4)")
	}
	file := filepath.Join(dir, "ch_PP-OCRv4_rec_infer.onnx")
	const split = "p2o.Add.215"
	back, err := backboneOf(file, split)
	if err != nil {
		t.Fatal(err)
	}
	neck, err := neckOf(file, split)
	if err != nil {
		t.Fatal(err)
	}
	mod, err := module.New(neck)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range mod.Params() {
		names = append(names, p.Name)
	}
	for _, n := range []string{"conv2d_183.w_0", "conv2d_183.b_0", "conv2d_184.w_0", "conv2d_184.b_0", "conv2d_142.w_0"} {
		if !slices.Contains(names, n) {
			t.Errorf("%s does not train; trainable: %v", n, names)
		}
	}
	if slices.Contains(names, "conv2d_182.w_0") {
		t.Errorf("conv2d_182.w_0 (before the split) trains")
	}
	whole, err := runtime.Load(file, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	bp, err := runtime.New(back, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	x := tensor.Rand(rand.New(rand.NewPCG(3, 4)), tensor.Float32, -1, 1, 1, 3, 48, 96)
	want, err := whole.Run(map[string]*tensor.Tensor{"x": x})
	if err != nil {
		t.Fatal(err)
	}
	feat, err := bp.Run(map[string]*tensor.Tensor{"x": x})
	if err != nil {
		t.Fatal(err)
	}
	logits := forward(mod, neck, feat[bp.OutputNames()[0]]).T // (1, T, K)
	prob := ag.Softmax(ag.Const(logits), -1).T.F32()
	w := want[whole.OutputNames()[0]].F32()
	if len(prob) != len(w) {
		t.Fatalf("%d probabilities, the whole network gives %d", len(prob), len(w))
	}
	for i := range w {
		if math.Abs(float64(prob[i]-w[i])) > 1e-4 {
			t.Fatalf("probability %d: backbone + neck %v, whole network %v", i, prob[i], w[i])
		}
	}
}
