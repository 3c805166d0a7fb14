package op_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"paddle/core/op"
	"paddle/core/op/optest"
	"paddle/core/tensor"
)

// nonDifferentiable lists the registered ops that have no backward, with why.
// Backward helpers (names ending in _grad) are listed by rule below: they are
// the kernels VJPs call, and second-order gradients are out of scope.
var nonDifferentiable = map[string]string{
	"argmax": "int64 output", "argmin": "int64 output",
	"equal": "bool output", "greater": "bool output", "greater_equal": "bool output",
	"less": "bool output", "less_equal": "bool output",
	"logical_and": "bool in/out", "logical_or": "bool in/out", "logical_not": "bool in/out",
	"one_hot": "integer input", "range": "no tensor input to differentiate",
	"shape": "int64 output", "constant_of_shape": "shape-valued input",
	"sgd_update":            "optimizer state update, run outside the graph",
	"adam_update":           "optimizer state update, run outside the graph",
	"rmsprop_update":        "optimizer state update, run outside the graph",
	"onnx_lstm":             "imported recurrent models run forward only (nn.LSTM trains)",
	"onnx_gru":              "imported recurrent models run forward only (nn.GRU trains)",
	"conv2d_act":            "fused by the inference passes after training",
	"conv_transpose2d_act":  "fused by the inference passes after training",
	"conv_transpose2d_pair": "fused by the inference passes after training",
	"gemm":                  "fused by the inference passes after training",
	"scale_residual":        "fused by the inference passes after training",
	"add_resize":            "fused by the inference passes after training",
	"add_quantize":          "integer output (quantized inference)",
	"matmul_integer":        "integer inputs (int8 inference)",
	"qgemm":                 "quantized inference (int8 inputs)",
	"qconv2d":               "quantized inference (int8 inputs)",
	"quantize_linear":       "integer output (quantized inference)",
	"dequantize_linear":     "integer input (quantized inference)",
}

// TestEveryRegisteredGradientIsChecked runs the float64 finite-difference
// check on every Def in the registry that has a VJP (every primitive is
// defined in this package, so the registry is whole here): adding an op
// with a VJP and a Sample adds its check. It fails when an op has a VJP but no Sample, when a Sample gives
// the check nothing to differentiate, and when an op without a VJP is not
// known to be non-differentiable.
func TestEveryRegisteredGradientIsChecked(t *testing.T) {
	seen := map[string]bool{}
	for _, d := range op.All() {
		seen[d.Name] = true
		if d.VJP == nil {
			if _, ok := nonDifferentiable[d.Name]; !ok && !strings.HasSuffix(d.Name, "_grad") {
				t.Errorf("%s has no VJP and is not listed as non-differentiable", d.Name)
			}
			continue
		}
		if d.Sample == nil {
			t.Errorf("%s has a VJP but no Sample: it is not gradient-checked", d.Name)
			continue
		}
		t.Run(d.Name, func(t *testing.T) {
			in, attrs := d.Sample(rand.New(rand.NewPCG(1, 2)))
			checked := 0
			for i, x := range in {
				if x.DType() == tensor.Float64 && !slices.Contains(d.NoGrad, i) {
					checked++
				}
			}
			if checked == 0 {
				t.Fatalf("Sample has no float64 input with a gradient: the check would be vacuous")
			}
			optest.GradCheck(t, d, in, attrs, optest.Tol{Abs: 1e-6, Rel: 1e-5})
		})
	}
	for name := range nonDifferentiable {
		if !seen[name] {
			t.Errorf("nonDifferentiable lists %s, which is not registered", name)
		}
	}
}

// TestDTypesAreEnforced checks every op that states its input dtypes
// (Def.DTypes): its first sample input cast to a dtype outside the set is
// refused with a message naming the dtype, and one inside the set is not
// refused for its dtype.
func TestDTypesAreEnforced(t *testing.T) {
	all := []tensor.DType{tensor.Float32, tensor.Float64, tensor.Int64, tensor.Int32, tensor.Uint8, tensor.Int8, tensor.Bool}
	checked := 0
	for _, d := range op.All() {
		if d.DTypes == nil || d.Sample == nil {
			continue
		}
		checked++
		in, attrs := d.Sample(rand.New(rand.NewPCG(1, 2)))
		for _, dt := range all {
			metas := make([]op.Meta, len(in))
			for i, x := range in {
				metas[i] = op.MetaOf(x)
			}
			metas[0].DType = dt
			_, err := d.InferMeta(metas, attrs)
			if slices.Contains(d.DTypes, dt) {
				if err != nil && strings.Contains(err.Error(), "got "+dt.String()) {
					t.Errorf("%s refuses %v, which its DTypes list: %v", d.Name, dt, err)
				}
			} else if err == nil || !strings.Contains(err.Error(), "got "+dt.String()) {
				t.Errorf("%s takes %v, outside its DTypes %v (error %v)", d.Name, dt, d.DTypes, err)
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d ops state their dtypes; the unary families should", checked)
	}
}
