package pdmodel

import (
	"fmt"

	"paddle/core/graph"
	"paddle/core/op"
	"paddle/core/tensor"
)

// Paddle's rnn operator is what paddle.nn.LSTM and GRU write into a static
// program (RNNBase._cudnn_impl): a time-major Input [T, N, C] (the layer
// writes transpose2 ops around it when time_major is false), PreState (h,
// and c for LSTM: [layers·directions, N, H], which the layer fills with
// fill_constant_batch_size_like when no initial state is given) and
// WeightList in flatten_parameters' order: every weight_ih, weight_hh pair by
// layer then direction, followed by every bias_ih, bias_hh pair in the same
// order. Each layer becomes one onnx_lstm / onnx_gru over both directions,
// its weights reordered from Paddle's gate order to ONNX's:
//
//   - LSTM: Paddle i, f, c, o → ONNX i, o, f, c.
//   - GRU: Paddle r, z, c → ONNX z, r, h, with linear_before_reset 1 (Paddle's
//     GRUCell applies r to h·W_hcᵀ + b_hc, and h = z·h₀ + (1 − z)·c as ONNX).
//
// The next layer reads the outputs of both directions concatenated on the
// feature axis; Paddle's dropout between layers is upscale_in_train, the
// identity at inference. RNN_TANH / RNN_RELU (SimpleRNN) and a SequenceLength
// input are refused.

func init() {
	builders["rnn"] = buildRNN
	builders["fill_constant_batch_size_like"] = buildFillConstantBatchSizeLike
}

// rnnModes maps Paddle's mode to the gate count and registry op.
var rnnModes = map[string]struct {
	gates int
	op    string
	perm  []int // ONNX gate k is Paddle gate perm[k]
}{
	"LSTM": {4, "onnx_lstm", []int{0, 3, 1, 2}},
	"GRU":  {3, "onnx_gru", []int{1, 0, 2}},
}

func buildRNN(c *ctx) error {
	mode := c.str("mode", "LSTM")
	m, ok := rnnModes[mode]
	if !ok {
		return fmt.Errorf("mode %q is not supported (want LSTM or GRU)", mode)
	}
	x, err := c.must("Input")
	if err != nil {
		return err
	}
	if len(c.op.Input("SequenceLength")) > 0 {
		return fmt.Errorf("a SequenceLength input is not supported")
	}
	L, H := c.int("num_layers", 1), c.int("hidden_size", 0)
	D := 1
	if c.bool("is_bidirec", false) {
		D = 2
	}
	if L < 1 || H < 1 {
		return fmt.Errorf("num_layers %d, hidden_size %d: want both positive", L, H)
	}
	wl := c.op.Input("WeightList")
	if len(wl) != 4*L*D {
		return fmt.Errorf("WeightList has %d tensors: want %d (weight_ih, weight_hh, bias_ih, bias_hh for %d layers × %d directions)",
			len(wl), 4*L*D, L, D)
	}
	nstate := 1
	if mode == "LSTM" {
		nstate = 2
	}
	pre, outs := c.op.Input("PreState"), c.op.Output("State")
	if len(pre) != nstate || len(outs) > nstate {
		return fmt.Errorf("%d PreState and %d State tensors: want %d for %s", len(pre), len(outs), nstate, mode)
	}
	states := make([]*graph.Value, nstate)
	for i, n := range pre {
		if states[i] = c.im.vals[n]; states[i] == nil {
			return fmt.Errorf("PreState[%d] %q is not defined before the op", i, n)
		}
	}
	// weight returns WeightList[i] with its gate blocks reordered for ONNX,
	// checked to have rows gates·H (and cols columns, when cols > 0).
	weight := func(i, cols int) (*tensor.Tensor, error) {
		v := c.im.vals[wl[i]]
		if v == nil || v.Const == nil {
			return nil, fmt.Errorf("WeightList[%d] %q is not a persistable tensor", i, wl[i])
		}
		t := v.Const
		s := t.Shape()
		if t.DType() != tensor.Float32 || s[0] != m.gates*H || (cols > 0 && (len(s) != 2 || s[1] != cols)) || (cols == 0 && len(s) != 1) {
			return nil, fmt.Errorf("WeightList[%d] %q is %v %v: want float32 [%d%s]", i, wl[i], t.DType(), s, m.gates*H,
				map[bool]string{true: fmt.Sprintf(", %d", cols), false: ""}[cols > 0])
		}
		return reorderGates(t, m.perm), nil
	}
	d := x.Meta.DType
	in := x
	inSize := c.int("input_size", 0)
	if dims := c.dims(x); len(dims) == 3 && dims[2] > 0 {
		inSize = dims[2]
	}
	var hs, cs []*graph.Value
	for l := range L {
		if l > 0 {
			inSize = D * H
		}
		var ws, rs, bs []*tensor.Tensor
		for dir := range D {
			k := l*D + dir
			wi, err := weight(2*k, inSize)
			if err != nil {
				return err
			}
			wh, err := weight(2*k+1, H)
			if err != nil {
				return err
			}
			bi, err := weight(2*L*D+2*k, 0)
			if err != nil {
				return err
			}
			bh, err := weight(2*L*D+2*k+1, 0)
			if err != nil {
				return err
			}
			ws, rs, bs = append(ws, wi), append(rs, wh), append(bs, concat32(bi, bh))
		}
		a := op.Attrs{"hidden_size": H, "present": "BH"}
		if D == 2 {
			a["direction"] = "bidirectional"
		}
		args := []*graph.Value{in, c.konst(stack32(ws)), c.konst(stack32(rs)), c.konst(stack32(bs))}
		for _, s := range states {
			args = append(args, c.emit1("slice", op.Attrs{"starts": []int{l * D}, "ends": []int{(l + 1) * D}, "axes": []int{0}}, d, s))
		}
		y, h := c.tmp(d), c.tmp(d)
		res := []*graph.Value{y, h}
		if mode == "LSTM" {
			a["present"] = "BHC"
			res = append(res, c.tmp(d))
			cs = append(cs, res[2])
		} else {
			a["linear_before_reset"] = 1
		}
		hs = append(hs, h)
		c.emit(m.op, a, args, res...)
		// Y [T, D, N, H] → [T, N, D·H]
		in = c.emit1("transpose", op.Attrs{"perm": []int{0, 2, 1, 3}}, d, y)
		in = c.emit1("reshape", op.Attrs{}, d, in)
		c.reshapeAttr(c.lastNode(), []int{0, 0, -1})
	}
	if err := c.alias("Out", in); err != nil {
		return err
	}
	for i, fin := range [][]*graph.Value{hs, cs}[:len(outs)] {
		v := fin[0]
		if len(fin) > 1 {
			v = c.emit1("concat", op.Attrs{"axis": 0}, d, fin...)
		}
		c.im.vals[outs[i]] = v
	}
	return nil
}

// reorderGates permutes the gate blocks along axis 0 of t (G blocks of
// equal rows): block k of the result is block perm[k] of t.
func reorderGates(t *tensor.Tensor, perm []int) *tensor.Tensor {
	src := t.Contiguous().F32()
	n := len(src) / len(perm)
	out := make([]float32, 0, len(src))
	for _, p := range perm {
		out = append(out, src[p*n:(p+1)*n]...)
	}
	return tensor.FromSlice(out, t.Shape()...)
}

func concat32(a, b *tensor.Tensor) *tensor.Tensor {
	out := append(append([]float32(nil), a.F32()...), b.F32()...)
	return tensor.FromSlice(out, len(out))
}

// stack32 stacks equal-shaped float32 tensors on a new axis 0.
func stack32(ts []*tensor.Tensor) *tensor.Tensor {
	var out []float32
	for _, t := range ts {
		out = append(out, t.Contiguous().F32()...)
	}
	return tensor.FromSlice(out, append([]int{len(ts)}, ts[0].Shape()...)...)
}

// buildFillConstantBatchSizeLike: a constant of attribute shape whose
// dimension output_dim_idx is Input's dimension input_dim_idx.
func buildFillConstantBatchSizeLike(c *ctx) error {
	x, err := c.must("Input")
	if err != nil {
		return err
	}
	dt, ok := attrDType[c.int("dtype", 5)]
	if !ok {
		return fmt.Errorf("dtype %d is not supported", c.int("dtype", 5))
	}
	v := c.float("value", 0)
	if s := c.str("str_value", ""); s != "" {
		if _, err := fmt.Sscan(s, &v); err != nil {
			return fmt.Errorf("str_value %q: %v", s, err)
		}
	}
	shape := c.ints("shape")
	in, out := c.int("input_dim_idx", 0), c.int("output_dim_idx", 0)
	if r := c.rank(x); in < 0 || (r >= 0 && in >= r) || out < 0 || out >= len(shape) {
		return fmt.Errorf("input_dim_idx %d, output_dim_idx %d for a rank-%d Input and shape %v", in, out, r, shape)
	}
	parts := make([]*graph.Value, 0, 3)
	if out > 0 {
		parts = append(parts, c.konst(int64s(shape[:out])))
	}
	full := c.emit1("shape", nil, tensor.Int64, x)
	parts = append(parts, c.emit1("slice", op.Attrs{"starts": []int{in}, "ends": []int{in + 1}, "axes": []int{0}}, tensor.Int64, full))
	if out+1 < len(shape) {
		parts = append(parts, c.konst(int64s(shape[out+1:])))
	}
	s := c.emit1("concat", op.Attrs{"axis": 0}, tensor.Int64, parts...)
	nd := c.emit("constant_of_shape", op.Attrs{"dtype": dt.String(), "value": v}, nil, c.out("Out", dt))
	nd.AttrIn = append(nd.AttrIn, graph.AttrIn{Attr: "shape", Kind: graph.AttrInts, V: s})
	return nil
}

func int64s(v []int) *tensor.Tensor {
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = int64(x)
	}
	return tensor.FromSlice(out, len(out))
}
