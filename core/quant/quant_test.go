package quant

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"paddle/core/graph"
	"paddle/core/io"
	"paddle/core/onnx"
	"paddle/core/runtime"
	"paddle/core/runtime/ortcheck"
	"paddle/core/tensor"
)

// tiny is scripts/ref/pdmodel_ref.py's small conv/bn/relu/pool/fc/softmax
// program (x: 2×3×8×8, softmax over 5 classes).
const tiny = "../pdmodel/testdata/tiny/inference.pdmodel"

func tinyLoad() (*graph.Graph, error) { return runtime.ReadGraph(tiny, "") }

// randomFeed is count calibration inputs drawn like x.npy (uniform in [-1, 1]).
func randomFeed(seed uint64) Feed {
	return func(i int) (map[string]*tensor.Tensor, error) {
		r := rand.New(rand.NewPCG(seed, uint64(i)))
		return map[string]*tensor.Tensor{"x": tensor.Rand(r, tensor.Float32, -1, 1, 2, 3, 8, 8)}, nil
	}
}

// TestQuantizeTiny quantizes the tiny model with each method (and with
// 7-bit weights, reduce-range), writes the QDQ ONNX file, loads it in
// paddle (the qdq pass must fold every quantized node into qconv2d/qgemm)
// and in ONNX Runtime, and compares both with the float model on x.npy
// (not a calibration input). The int8 weights must span exactly
// [-WeightMax, WeightMax] (per channel the largest |w| maps to it).
func TestQuantizeTiny(t *testing.T) {
	x, err := io.ReadNpy("../pdmodel/testdata/tiny/x.npy")
	if err != nil {
		t.Fatal(err)
	}
	in := map[string]*tensor.Tensor{"x": x}
	fp, err := runtime.Load(tiny, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	outName := fp.OutputNames()[0]
	ref, err := fp.Run(in)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]Options{"minmax-reduce-range": {Method: "minmax", PerChannel: true, ReduceRange: true}}
	for _, method := range Methods {
		cases[method] = Options{Method: method, PerChannel: true}
	}
	for name, opts := range cases {
		method := opts.Method
		t.Run(name, func(t *testing.T) {
			q, err := New(tinyLoad, opts)
			if err != nil {
				t.Fatal(err)
			}
			if err := q.Calibrate(randomFeed(3), 16); err != nil {
				t.Fatal(err)
			}
			g, reports, err := q.Quantize(nil)
			if err != nil {
				t.Fatal(err)
			}
			ops := map[string]int{}
			for _, r := range reports {
				ops[r.Op]++
				if !(r.XScale > 0) || !(r.WScaleMin > 0) || r.Channels < 2 || r.Min > 0 || r.Max <= 0 {
					t.Errorf("report %+v: bad scales", r)
				}
			}
			if ops["conv2d"] < 1 || ops["matmul"] < 1 {
				t.Fatalf("quantized %v, want the conv and the fc", ops)
			}
			wmax := 0
			for _, n := range g.Nodes {
				if n.Op.Name != "dequantize_linear" || !n.In[0].IsConst() || n.In[0].Const.DType() != tensor.Int8 {
					continue
				}
				for _, v := range n.In[0].Const.I8() {
					wmax = max(wmax, int(v), -int(v))
				}
			}
			if wmax != opts.WeightMax() {
				t.Errorf("int8 weights reach |%d|, want %d", wmax, opts.WeightMax())
			}
			file := filepath.Join(t.TempDir(), "q.onnx")
			if err := onnx.WriteFile(file, g); err != nil {
				t.Fatal(err)
			}
			p, err := runtime.Load(file, runtime.Options{})
			if err != nil {
				t.Fatal(err)
			}
			folded := map[string]int{}
			for _, n := range p.Graph().Nodes {
				folded[n.Op.Name]++
			}
			if folded["qconv2d"] != ops["conv2d"] || folded["qgemm"] != ops["matmul"] {
				t.Errorf("reloaded graph runs %v: want %d qconv2d and %d qgemm", folded, ops["conv2d"], ops["matmul"])
			}
			got, err := p.Run(in)
			if err != nil {
				t.Fatal(err)
			}
			d, _ := tensor.MaxDiff(got[outName], ref[outName], 0, 0)
			t.Logf("%s: int8 vs float max abs diff %.4f on probabilities; %v", method, d, reports[0])
			if d > 0.02 {
				t.Errorf("int8 output differs from float by %g (tolerance 0.02)", d)
			}
			ortcheck.Compare(t, file, in, ortcheck.Output{Name: outName, Want: ref[outName], Tol: 0.02},
				ortcheck.Output{Name: outName, Want: got[outName], Tol: 0.005})
		})
	}
}

// Sensitivity: quantizing one node alone changes the outputs a little;
// every quantized node gets a number.
func TestSensitivity(t *testing.T) {
	q, err := New(tinyLoad, Options{PerChannel: true})
	if err != nil {
		t.Fatal(err)
	}
	feed := randomFeed(5)
	if err := q.Calibrate(feed, 8); err != nil {
		t.Fatal(err)
	}
	_, reports, err := q.Quantize(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Sensitivity(feed, 2, reports); err != nil {
		t.Fatal(err)
	}
	for _, r := range reports {
		if r.Sensitivity == nil || !(*r.Sensitivity > 0) || *r.Sensitivity > 0.05 {
			t.Errorf("node %s: sensitivity %v, want a small positive error", r.Name, r.Sensitivity)
		} else {
			t.Logf("node %s (%s): relative output error %.2g", r.Name, r.Op, *r.Sensitivity)
		}
	}
}

func TestNewErrors(t *testing.T) {
	if _, err := New(tinyLoad, Options{Method: "entropy"}); err == nil {
		t.Error("unknown method accepted")
	}
	if _, err := New(tinyLoad, Options{Exclude: []string{"no_such_node"}}); err == nil {
		t.Error("unknown --exclude name accepted")
	}
	q, err := New(tinyLoad, Options{})
	if err != nil {
		t.Fatal(err)
	}
	names, err := q.Nodes()
	if err != nil || len(names) < 2 {
		t.Fatalf("nodes %v, %v", names, err)
	}
	q2, err := New(tinyLoad, Options{Exclude: names[:1]})
	if err != nil {
		t.Fatal(err)
	}
	if n2, _ := q2.Nodes(); len(n2) != len(names)-1 {
		t.Errorf("excluding %s left %v of %v", names[0], n2, names)
	}
}

// The range methods on data whose answer is known.
func TestClipRange(t *testing.T) {
	// 1000 values uniform on [0, 1) and one outlier at 100
	s := newStats()
	v := make([]float32, 0, 1001)
	for i := range 1000 {
		v = append(v, float32(i)/1000)
	}
	v = append(v, 100)
	s.observeRange(v)
	s.observeHist(v)
	lo, hi, _ := s.clipRange("minmax", 0)
	if lo != 0 || hi != 100 {
		t.Errorf("minmax: [%g, %g], want [0, 100]", lo, hi)
	}
	// the outlier is dropped: the threshold lands near 1 (the bin width is 100/2048)
	if _, hi, _ := s.clipRange("percentile", 99.9); hi < 0.9 || hi > 1.1 {
		t.Errorf("percentile 99.9: hi %g, want about 1", hi)
	}
	// an exponential tail (200000 values, mean 1, max about 12) and its
	// negation: kl and mse clip the tail but keep the bulk
	r := rand.New(rand.NewPCG(1, 2))
	s = newStats()
	v = v[:0]
	for i := range 200000 {
		x := float32(r.ExpFloat64())
		if i%2 == 1 {
			x = -x
		}
		v = append(v, x)
	}
	s.observeRange(v)
	s.observeHist(v)
	for _, m := range []string{"kl", "mse", "percentile"} {
		lo, hi, err := s.clipRange(m, 99.9)
		if err != nil {
			t.Fatal(err)
		}
		if hi < 3 || hi > 0.95*s.amax() || lo != -hi && lo != s.lo {
			t.Errorf("%s: [%g, %g] of [%g, %g]: want the tail clipped, the bulk kept", m, lo, hi, s.lo, s.hi)
		}
		t.Logf("%s: [%.3g, %.3g] of [%.3g, %.3g]", m, lo, hi, s.lo, s.hi)
	}
	scale, zero := uint8Params(-1, 3)
	if math.Abs(scale-4.0/255) > 1e-12 || zero != 64 {
		t.Errorf("uint8Params(-1, 3) = %g, %d; want %g, 64", scale, zero, 4.0/255)
	}
}
