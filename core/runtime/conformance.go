package runtime

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"paddle/core/graph"
	"paddle/core/onnx"
	"paddle/core/onnx/onnxpb"
	"paddle/core/tensor"
)

// ONNX node conformance: run the ONNX project's operator tests
// (node/test_*/model.onnx with test_data_set_*/input_*.pb and output_*.pb,
// as shipped by Debian's libonnx-testdata) and compare the outputs.

// ConformanceOps are the ONNX ops in scope: a test runs when every op of its
// graph is one of these.
var ConformanceOps = strings.Fields(`Conv ConvTranspose BatchNormalization Relu Sigmoid HardSigmoid HardSwish
	Tanh Gelu LeakyRelu Clip Add Sub Mul Div Pow Sqrt Exp Log Neg Abs Erf MatMul Gemm Softmax LogSoftmax
	Reshape Flatten Transpose Squeeze Unsqueeze Concat Split Slice Gather Shape Constant ConstantOfShape
	Cast Expand Tile Pad Resize MaxPool AveragePool GlobalAveragePool GlobalMaxPool ReduceMean ReduceSum
	ReduceMax ReduceMin ReduceProd ReduceL2 ArgMax ArgMin TopK CumSum LayerNormalization
	InstanceNormalization Identity Dropout Where Equal Greater Less Not And Or Min Max Sum Reciprocal
	Floor Ceil Round Sign Softplus Einsum Range LSTM GRU If`)

// Tolerances of the comparison: |got - want| <= ConformanceAtol + ConformanceRtol·|want|
// (ONNX's backend test uses rtol 1e-3, atol 1e-7).
const (
	ConformanceRtol = 1e-3
	ConformanceAtol = 1e-5
)

// ConformanceExclusions are the in-scope tests not run, each with its reason:
// data types the runtime does not support, outputs that depend on a random
// generator, and modes outside the runtime's scope.
var ConformanceExclusions = map[string]string{}

func init() {
	ex := func(reason string, names string) {
		for _, n := range strings.Fields(names) {
			ConformanceExclusions[n] = reason
		}
	}
	ex("dtype: float16/bfloat16/string tensors are not supported", `test_cast_BFLOAT16_to_FLOAT
		test_cast_DOUBLE_to_FLOAT16 test_cast_FLOAT16_to_DOUBLE test_cast_FLOAT16_to_FLOAT test_cast_FLOAT_to_BFLOAT16
		test_cast_FLOAT_to_FLOAT16 test_cast_FLOAT_to_STRING test_cast_STRING_to_FLOAT test_castlike_BFLOAT16_to_FLOAT_expanded
		test_castlike_DOUBLE_to_FLOAT16_expanded test_castlike_FLOAT16_to_DOUBLE_expanded test_castlike_FLOAT16_to_FLOAT_expanded
		test_castlike_FLOAT_to_BFLOAT16_expanded test_castlike_FLOAT_to_FLOAT16_expanded test_castlike_FLOAT_to_STRING_expanded
		test_castlike_STRING_to_FLOAT_expanded test_max_float16 test_min_float16`)
	ex("dtype: int16/uint16/uint32/uint64 tensors are not supported", `test_max_int16 test_max_uint16 test_max_uint32
		test_max_uint64 test_min_int16 test_min_uint16 test_min_uint32 test_min_uint64 test_pow_types_float32_uint32
		test_pow_types_float32_uint64`)
	ex("dtype: pooling is defined on float tensors only", "test_maxpool_2d_uint8")
	ex("dtype: optional and sequence values are not tensors", "test_identity_opt test_identity_sequence test_if_opt test_if_seq")
	ex("random: training-mode dropout draws its mask from a random generator", `test_training_dropout
		test_training_dropout_default test_training_dropout_default_mask test_training_dropout_mask
		test_training_dropout_zero_ratio test_training_dropout_zero_ratio_mask`)
	ex("scope: training-mode BatchNormalization (running statistics outputs); the runtime is for inference",
		"test_batchnorm_epsilon_training_mode test_batchnorm_example_training_mode")
	ex("scope: cubic resize", `test_resize_downsample_scales_cubic test_resize_downsample_scales_cubic_A_n0p5_exclude_outside
		test_resize_downsample_scales_cubic_align_corners test_resize_downsample_sizes_cubic test_resize_upsample_scales_cubic
		test_resize_upsample_scales_cubic_A_n0p5_exclude_outside test_resize_upsample_scales_cubic_align_corners
		test_resize_upsample_scales_cubic_asymmetric test_resize_upsample_sizes_cubic`)
	ex("scope: tf_crop_and_resize (roi) resize", "test_resize_tf_crop_and_resize")
	ex("scope: 3-D pooling and convolution", "test_averagepool_3d_default test_maxpool_3d_default test_convtranspose_3d")
	ex("scope: max-pool indices output", "test_maxpool_with_argmax_2d_precomputed_pads test_maxpool_with_argmax_2d_precomputed_strides")
	ex("scope: einsum with ellipsis and diagonal (only the common patterns are imported)", "test_einsum_batch_diagonal")
	ex("scope: LSTM peepholes", "test_lstm_with_peepholes")
}

// ConformanceKnownFailures are in-scope tests that fail today, with the
// reason; they run, and are reported as "known" instead of "fail" when they fail.
var ConformanceKnownFailures = map[string]string{}

// CaseResult is the outcome of one conformance test.
type CaseResult struct {
	Name string // test directory name, e.g. "test_conv_with_strides_padding"
	// Status is "pass", "fail", "known" (a listed known failure), "excluded"
	// or "skipped" (an op outside ConformanceOps).
	Status string
	Reason string // why it failed or was excluded
}

// Conformance runs every test under dir (a node/ folder) whose ops are all in
// ConformanceOps; tests named in exclusions are reported as excluded with
// the given reason. Results are sorted by name.
func Conformance(dir string, exclusions map[string]string) ([]CaseResult, error) {
	return conformance(dir, exclusions, false)
}

// ConformanceRoundTrip is Conformance with every model exported back to
// ONNX (onnx.Export) and re-imported before it runs.
func ConformanceRoundTrip(dir string, exclusions map[string]string) ([]CaseResult, error) {
	return conformance(dir, exclusions, true)
}

func conformance(dir string, exclusions map[string]string, roundTrip bool) ([]CaseResult, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	inScope := map[string]bool{}
	for _, o := range ConformanceOps {
		inScope[o] = true
	}
	var res []CaseResult
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "test_") {
			continue
		}
		r := CaseResult{Name: e.Name()}
		m, err := onnxpb.ReadFile(filepath.Join(dir, e.Name(), "model.onnx"))
		if err != nil {
			r.Status, r.Reason = "fail", err.Error()
			res = append(res, r)
			continue
		}
		scope := m.Graph != nil && len(m.Graph.Node) > 0
		for _, n := range m.Graph.Node {
			if !inScope[n.OpType] || (n.Domain != "" && n.Domain != "ai.onnx") {
				scope = false
			}
		}
		switch why, ex := exclusions[e.Name()]; {
		case !scope:
			r.Status = "skipped"
		case ex:
			r.Status, r.Reason = "excluded", why
		default:
			if err := runCase(filepath.Join(dir, e.Name()), m, roundTrip); err != nil {
				r.Status, r.Reason = "fail", err.Error()
				if why, ok := ConformanceKnownFailures[e.Name()]; ok {
					r.Status, r.Reason = "known", why+" ("+err.Error()+")"
				}
			} else {
				r.Status = "pass"
			}
		}
		res = append(res, r)
	}
	sort.Slice(res, func(i, j int) bool { return res[i].Name < res[j].Name })
	return res, nil
}

func runCase(dir string, m *onnxpb.Model, roundTrip bool) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	g, err := onnx.Import(m)
	if err != nil {
		return err
	}
	if roundTrip {
		if g, err = reimport(g); err != nil {
			return err
		}
	}
	p, err := New(g, Options{})
	if err != nil {
		return err
	}
	sets, _ := filepath.Glob(filepath.Join(dir, "test_data_set_*"))
	if len(sets) == 0 {
		return fmt.Errorf("no test_data_set_*")
	}
	for _, set := range sets {
		in := map[string]*tensor.Tensor{}
		for i, name := range p.InputNames() {
			t, err := readPB(filepath.Join(set, fmt.Sprintf("input_%d.pb", i)))
			if err != nil {
				return err
			}
			in[name] = t
		}
		out, err := p.Run(in)
		if err != nil {
			return err
		}
		for i, name := range p.OutputNames() {
			want, err := readPB(filepath.Join(set, fmt.Sprintf("output_%d.pb", i)))
			if err != nil {
				return err
			}
			if err := compare(out[name], want); err != nil {
				return fmt.Errorf("%s: output %q: %w", filepath.Base(set), name, err)
			}
		}
	}
	return nil
}

// reimport exports g to ONNX bytes and imports them again.
func reimport(g *graph.Graph) (*graph.Graph, error) {
	em, err := onnx.Export(g)
	if err != nil {
		return nil, err
	}
	b, err := em.Marshal()
	if err != nil {
		return nil, err
	}
	dm, err := onnxpb.Decode(b)
	if err != nil {
		return nil, fmt.Errorf("re-import: %w", err)
	}
	g2, err := onnx.Import(dm)
	if err != nil {
		return nil, fmt.Errorf("re-import: %w", err)
	}
	return g2, nil
}

func readPB(path string) (*tensor.Tensor, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	tp, err := onnxpb.DecodeTensor(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	t, err := onnx.Tensor(tp)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return t, nil
}

// compare checks dtype, shape and values (floats within the tolerances,
// NaN matching NaN; other dtypes exactly).
func compare(got, want *tensor.Tensor) error {
	if got == nil {
		return fmt.Errorf("no value")
	}
	if got.DType() != want.DType() {
		return fmt.Errorf("dtype %v, want %v", got.DType(), want.DType())
	}
	if !got.Shape().Equal(want.Shape()) {
		return fmt.Errorf("shape %v, want %v", got.Shape(), want.Shape())
	}
	g, w := got.Contiguous().Float64s(), want.Contiguous().Float64s()
	float := want.DType().IsFloat()
	for i := range w {
		a, b := g[i], w[i]
		if math.IsNaN(b) || math.IsNaN(a) {
			if math.IsNaN(a) != math.IsNaN(b) {
				return fmt.Errorf("element %d: %v, want %v", i, a, b)
			}
			continue
		}
		if math.IsInf(b, 0) || !float {
			if a != b {
				return fmt.Errorf("element %d: %v, want %v", i, a, b)
			}
			continue
		}
		if math.Abs(a-b) > ConformanceAtol+ConformanceRtol*math.Abs(b) {
			return fmt.Errorf("element %d: %v, want %v (diff %.3g)", i, a, b, math.Abs(a-b))
		}
	}
	return nil
}
