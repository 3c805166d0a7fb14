package op_test

import (
	"encoding/json"
	"os"
	"testing"

	"paddle/core/op"
	"paddle/core/tensor"
)

func TestIndexForward(t *testing.T) {
	x32 := floats([]float64{1, 2, 3, 4, 5, 6}, 3, 2)
	onnx := floats([]float64{1, 1.2, 1.9, 2.3, 3.4, 3.9, 4.5, 5.7, 5.9}, 3, 3)
	w := arangeOf(4, 2)
	data := floats([]float64{1, 2, 3, 4, 5, 6, 7, 8}, 4, 2)
	unsorted := longs([]int64{2, 0, 2, 0}, 4)
	pad0 := 0
	checkMoveForward(t, []moveCase{
		// the first two are the ONNX Gather examples
		{"gather axis 0", func() *tensor.Tensor { return op.Gather(x32, longs([]int64{0, 1, 1, 2}, 2, 2), 0) },
			[]int{2, 2, 2}, []float64{1, 2, 3, 4, 3, 4, 5, 6}},
		{"gather axis 1", func() *tensor.Tensor { return op.Gather(onnx, longs([]int64{0, 2}, 1, 2), 1) },
			[]int{3, 1, 2}, []float64{1, 1.9, 2.3, 3.9, 4.5, 5.9}},
		{"gather negative", func() *tensor.Tensor { return op.Gather(x32, longs([]int64{-1}, 1), 0) },
			[]int{1, 2}, []float64{5, 6}},
		{"gather scalar index drops the axis", func() *tensor.Tensor { return op.Gather(x32, tensor.Scalar(int64(1)), 0) },
			[]int{2}, []float64{3, 4}},
		{"gather int32 indices on int64 data", func() *tensor.Tensor {
			return op.Gather(longs([]int64{10, 20, 30}, 3), tensor.FromSlice([]int32{2, -3}, 2), 0)
		}, []int{2}, []float64{30, 10}},
		{"index_select", func() *tensor.Tensor { return op.IndexSelect(x32, longs([]int64{1, 1, 0}, 3), -1) },
			[]int{3, 3}, []float64{2, 2, 1, 4, 4, 3, 6, 6, 5}},
		// ONNX GatherElements examples
		{"gather_elements axis 1", func() *tensor.Tensor {
			return op.GatherElements(floats([]float64{1, 2, 3, 4}, 2, 2), longs([]int64{0, 0, 1, 0}, 2, 2), 1)
		}, []int{2, 2}, []float64{1, 1, 4, 3}},
		{"gather_elements axis 0", func() *tensor.Tensor {
			return op.GatherElements(arangeOf(3, 3), longs([]int64{1, 2, 0, 2, 0, 0}, 2, 3), 0)
		}, []int{2, 3}, []float64{3, 7, 2, 6, 1, 2}},
		// ONNX ScatterElements(reduction=add) example
		{"scatter_add axis 1", func() *tensor.Tensor {
			return op.ScatterAdd(floats([]float64{1, 2, 3, 4, 5}, 1, 5), longs([]int64{1, 3}, 1, 2), floats([]float64{1.5, 2.25}, 1, 2), 1)
		}, []int{1, 5}, []float64{1, 3.5, 3, 6.25, 5}},
		{"scatter_add duplicates", func() *tensor.Tensor {
			return op.ScatterAdd(floats([]float64{0, 0, 0}, 3), longs([]int64{0, 0, -1}, 3), floats([]float64{1, 2, 3}, 3), 0)
		}, []int{3}, []float64{3, 0, 3}},
		{"scatter_add int64", func() *tensor.Tensor {
			return op.ScatterAdd(longs([]int64{1, 1}, 2), longs([]int64{1, 1}, 2), longs([]int64{5, 6}, 2), 0)
		}, []int{2}, []float64{1, 12}},
		{"segment_sum unsorted", func() *tensor.Tensor { return op.SegmentSum(data, unsorted, 3) },
			[]int{3, 2}, []float64{10, 12, 0, 0, 6, 8}},
		{"segment_sum drops bad ids", func() *tensor.Tensor { return op.SegmentSum(data, longs([]int64{0, 0, 2, -1}, 4), 2) },
			[]int{2, 2}, []float64{4, 6, 0, 0}},
		{"segment_mean", func() *tensor.Tensor { return op.SegmentMean(data, unsorted, 3) },
			[]int{3, 2}, []float64{5, 6, 0, 0, 3, 4}},
		{"segment_max", func() *tensor.Tensor {
			m, _ := op.SegmentMax(floats([]float64{1, 8, 3, 4, 5, 6, 7, 2}, 4, 2), unsorted, 3)
			return m
		}, []int{3, 2}, []float64{7, 4, 0, 0, 5, 8}},
		{"segment_max argmax", func() *tensor.Tensor {
			_, a := op.SegmentMax(floats([]float64{1, 8, 3, 4, 5, 6, 7, 2}, 4, 2), unsorted, 3)
			return a
		}, []int{3, 2}, []float64{3, 1, -1, -1, 2, 0}},
		{"segment_max ties go to the first row", func() *tensor.Tensor {
			_, a := op.SegmentMax(floats([]float64{2, 1, 2}, 3), longs([]int64{0, 0, 0}, 3), 1)
			return a
		}, []int{1}, []float64{0}},
		{"segment_max negative values", func() *tensor.Tensor {
			m, _ := op.SegmentMax(floats([]float64{-3, -1, -2}, 3), longs([]int64{0, 0, 0}, 3), 1)
			return m
		}, []int{1}, []float64{-1}},
		{"embedding", func() *tensor.Tensor { return op.Embedding(longs([]int64{3, 0, -1, 1}, 2, 2), w, nil) },
			[]int{2, 2, 2}, []float64{6, 7, 0, 1, 6, 7, 2, 3}},
		{"embedding padding_idx", func() *tensor.Tensor {
			return op.Embedding(longs([]int64{3, 0, -1, 1}, 2, 2), op.Add(w, op.ScalarLike(w, 1)), &pad0)
		},
			[]int{2, 2, 2}, []float64{7, 8, 0, 0, 7, 8, 3, 4}},
		{"one_hot", func() *tensor.Tensor { return op.OneHot(longs([]int64{1, -1, 5}, 3), 3, tensor.Float32) },
			[]int{3, 3}, []float64{0, 1, 0, 0, 0, 1, 0, 0, 0}},
		{"shape", func() *tensor.Tensor { return op.ShapeOf(arangeOf(2, 3, 4)) }, []int{3}, []float64{2, 3, 4}},
		{"shape start", func() *tensor.Tensor { return op.Call(op.Lookup("shape"), op.Attrs{"start": 1}, arangeOf(2, 3, 4))[0] },
			[]int{2}, []float64{3, 4}},
		{"shape end -1", func() *tensor.Tensor { return op.Call(op.Lookup("shape"), op.Attrs{"end": -1}, arangeOf(2, 3, 4))[0] },
			[]int{2}, []float64{2, 3}},
		{"constant_of_shape", func() *tensor.Tensor { return op.ConstantOfShape([]int{2, 3}, 7, tensor.Int64) },
			[]int{2, 3}, []float64{7, 7, 7, 7, 7, 7}},
		{"constant_of_shape scalar", func() *tensor.Tensor { return op.ConstantOfShape(nil, 1.5, tensor.Float32) },
			[]int{}, []float64{1.5}},
		{"range int64", func() *tensor.Tensor { return op.Range(3, 10, 3, tensor.Int64) }, []int{3}, []float64{3, 6, 9}},
		{"range negative delta", func() *tensor.Tensor { return op.Range(10, 4, -3, tensor.Int64) }, []int{2}, []float64{10, 7}},
		{"range float", func() *tensor.Tensor { return op.Range(1, 2, 0.25, tensor.Float32) }, []int{4}, []float64{1, 1.25, 1.5, 1.75}},
		{"range empty", func() *tensor.Tensor { return op.Range(5, 1, 1, tensor.Float64) }, []int{0}, []float64{}},
	})
	if d := op.ShapeOf(arangeOf(2)).DType(); d != tensor.Int64 {
		t.Errorf("shape dtype %v, want int64", d)
	}
}

func TestIndexShapeErrors(t *testing.T) {
	wantMoveShapeError(t, "gather out of range", func() { op.Gather(arangeOf(3, 2), longs([]int64{3}, 1), 0) })
	wantMoveShapeError(t, "gather negative out of range", func() { op.Gather(arangeOf(3, 2), longs([]int64{-4}, 1), 0) })
	wantMoveShapeError(t, "gather float indices", func() { op.Gather(arangeOf(3, 2), arangeOf(1), 0) })
	wantMoveShapeError(t, "index_select 2-D", func() { op.IndexSelect(arangeOf(3, 2), longs([]int64{0, 1}, 1, 2), 0) })
	wantMoveShapeError(t, "gather_elements rank", func() { op.GatherElements(arangeOf(3, 2), longs([]int64{0, 1}, 2), 0) })
	wantMoveShapeError(t, "scatter_add src shape", func() { op.ScatterAdd(arangeOf(3), longs([]int64{0, 1}, 2), arangeOf(3), 0) })
	wantMoveShapeError(t, "scatter_add dtype", func() { op.ScatterAdd(arangeOf(3), longs([]int64{0}, 1), longs([]int64{1}, 1), 0) })
	wantMoveShapeError(t, "segment ids length", func() { op.SegmentSum(arangeOf(3, 2), longs([]int64{0, 1}, 2), 2) })
	wantMoveShapeError(t, "segment_mean int", func() { op.SegmentMean(longs([]int64{1, 2}, 2), longs([]int64{0, 1}, 2), 2) })
	wantMoveShapeError(t, "embedding weight rank", func() { op.Embedding(longs([]int64{0}, 1), arangeOf(3), nil) })
	wantMoveShapeError(t, "embedding id out of range", func() { op.Embedding(longs([]int64{5}, 1), arangeOf(3, 2), nil) })
	wantMoveShapeError(t, "one_hot depth", func() { op.OneHot(longs([]int64{0}, 1), 0, tensor.Float32) })
	wantMoveShapeError(t, "range delta 0", func() { op.Range(0, 1, 0, tensor.Int64) })
}

// indexTorchFile is what scripts/ref/index_torch.py writes.
type indexTorchFile struct {
	Torch string `json:"torch"`
	Cases []struct {
		Name     string              `json:"name"`
		Op       string              `json:"op"`
		Attrs    map[string]any      `json:"attrs"`
		Inputs   []*indexTorchTensor `json:"inputs"`
		Upstream []*indexTorchTensor `json:"upstream"`
		Outputs  []*indexTorchTensor `json:"outputs"`
		Grads    []*indexTorchTensor `json:"grads"`
	} `json:"cases"`
}

type indexTorchTensor struct {
	DType string    `json:"dtype"`
	Shape []int     `json:"shape"`
	Data  []float64 `json:"data"`
}

func (tt *indexTorchTensor) tensor(t *testing.T) *tensor.Tensor {
	d, err := tensor.ParseDType(tt.DType)
	if err != nil {
		t.Fatal(err)
	}
	return tensor.FromSlice(tt.Data, tt.Shape...).Cast(d)
}

// indexJSONAttrs turns decoded JSON into op attributes: numbers are ints except "value".
func indexJSONAttrs(m map[string]any) op.Attrs {
	a := op.Attrs{}
	for k, v := range m {
		switch v := v.(type) {
		case float64:
			if k == "value" {
				a[k] = v
			} else {
				a[k] = int(v)
			}
		case []any:
			ints := make([]int, len(v))
			for i, x := range v {
				ints[i] = int(x.(float64))
			}
			a[k] = ints
		default:
			a[k] = v
		}
	}
	return a
}

// TestIndexAgainstTorch compares forward values (float64 and float32) and
// gradients with PyTorch's (core/op/testdata/index_torch.json).
func TestIndexAgainstTorch(t *testing.T) {
	raw, err := os.ReadFile("testdata/index_torch.json")
	if err != nil {
		t.Fatal(err)
	}
	var f indexTorchFile
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatalf("testdata/index_torch.json: %v", err)
	}
	if len(f.Cases) < 10 {
		t.Fatalf("only %d cases in testdata/index_torch.json", len(f.Cases))
	}
	for _, c := range f.Cases {
		t.Run(c.Name, func(t *testing.T) {
			d := op.Lookup(c.Op)
			attrs := indexJSONAttrs(c.Attrs)
			in := make([]*tensor.Tensor, len(c.Inputs))
			in32 := make([]*tensor.Tensor, len(c.Inputs))
			for i, x := range c.Inputs {
				in[i] = x.tensor(t)
				in32[i] = in[i]
				if in[i].DType() == tensor.Float64 {
					in32[i] = in[i].Cast(tensor.Float32)
				}
			}
			outs := op.Call(d, attrs, in...)
			outs32 := op.Call(d, attrs, in32...)
			for i, want := range c.Outputs {
				w := want.tensor(t)
				if diff, ok := tensor.MaxDiff(outs[i], w, 1e-12, 1e-12); !ok {
					t.Errorf("output %d: float64 differs from torch by %g (shape %v, want %v)", i, diff, outs[i].Shape(), w.Shape())
				}
				if diff, ok := tensor.MaxDiff(outs32[i].Cast(tensor.Float64), w, 1e-5, 1e-5); !ok {
					t.Errorf("output %d: float32 differs from torch by %g", i, diff)
				}
			}
			up := make([]*tensor.Tensor, len(outs))
			for i, u := range c.Upstream {
				if u != nil {
					up[i] = u.tensor(t)
				}
			}
			grads := d.VJP(&op.VJPCtx{In: in, Out: outs, GradOut: up, Attrs: attrs})
			for i, want := range c.Grads {
				if want == nil {
					continue
				}
				if diff, ok := tensor.MaxDiff(grads[i], want.tensor(t), 1e-10, 1e-10); !ok {
					t.Errorf("gradient of input %d differs from torch by %g", i, diff)
				}
			}
		})
	}
}
