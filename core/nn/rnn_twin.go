package nn

import (
	"fmt"

	"paddle/core/ag"
	"paddle/core/op"
	"paddle/core/tensor"
)

// While ag.Tracing reports true (core/graph/trace), LSTM and GRU run as
// their ONNX twins instead of the unrolled cell: one onnx_lstm / onnx_gru
// op (defined in core/onnx, which the tracer imports) per layer, so the
// traced graph exports as ONNX LSTM/GRU and keeps a dynamic sequence length.
// The twin's inputs are built from the parameters with recorded ops
// (gather to ONNX's gate order, concat of directions), so the traced graph
// still reads the parameters by their own names.

// onnxGateOrder lists, for each ONNX gate block, the PyTorch block it comes
// from: LSTM (i, f, g, o) → (i, o, f, c); GRU (r, z, n) → (z, r, h).
var onnxGateOrder = map[int][]int{4: {0, 3, 1, 2}, 3: {1, 0, 2}}

// twin applies the stack to x (T, N, I) as one ONNX-semantics op per layer
// and returns the output (T, N, D·H) and final states (L·D, N, H).
func (m *rnn) twin(x, h0, c0 *ag.Var, lengths []int, withC bool) (y, hn, cn *ag.Var, err error) {
	name := map[bool]string{true: "onnx_lstm", false: "onnx_gru"}[withC]
	d := op.Lookup(name)
	if d == nil {
		return nil, nil, nil, fmt.Errorf("tracing an rnn needs op %s (registered by paddle/core/onnx)", name)
	}
	if lengths != nil {
		return nil, nil, nil, fmt.Errorf("rnn: sequence lengths cannot be traced (they would be baked in)")
	}
	h, dirs := m.o.HiddenSize, m.dirs()
	perm := m.gatePerm()
	attrs := op.Attrs{"hidden_size": h, "direction": "forward"}
	if dirs == 2 {
		attrs["direction"] = "bidirectional"
	}
	if !withC {
		attrs["linear_before_reset"] = 1 // PyTorch's GRU: r ⊙ (W_hn·h + b_hn)
	}
	var hs, cs []*ag.Var
	for l := range m.o.NumLayers {
		var w, r, b []*ag.Var
		for k := l * dirs; k < (l+1)*dirs; k++ {
			ws := m.w[k]
			w = append(w, ag.Unsqueeze(ag.Gather(ws[0], perm, 0), 0))
			r = append(r, ag.Unsqueeze(ag.Gather(ws[1], perm, 0), 0))
			if ws[2] != nil {
				b = append(b, ag.Unsqueeze(ag.Concat(0, ag.Gather(ws[2], perm, 0), ag.Gather(ws[3], perm, 0)), 0))
			}
		}
		in := []*ag.Var{x, concat(0, w...), concat(0, r...)}
		present := ""
		if b != nil {
			in, present = append(in, concat(0, b...)), present+"B"
		}
		if h0 != nil {
			in, present = append(in, narrow(h0, 0, l*dirs, (l+1)*dirs)), present+"H"
		}
		if withC && c0 != nil {
			in, present = append(in, narrow(c0, 0, l*dirs, (l+1)*dirs)), present+"C"
		}
		a := op.Attrs{"present": present}
		for k, v := range attrs {
			a[k] = v
		}
		outs := ag.Apply(d, a, in...) // Y (T, D, N, H), Y_h (D, N, H)[, Y_c]
		if dirs == 1 {
			x = ag.Squeeze(outs[0], 1)
		} else { // (T, D, N, H) → (T, N, D·H) without a reshape, which would fix T and N
			parts := ag.Split(outs[0], 1, 1, 1)
			x = ag.Concat(2, ag.Squeeze(parts[0], 1), ag.Squeeze(parts[1], 1))
		}
		hs = append(hs, outs[1])
		if withC {
			cs = append(cs, outs[2])
		}
	}
	if withC {
		cn = concat(0, cs...)
	}
	return x, concat(0, hs...), cn, nil
}

// gatePerm returns the int64 row indices that reorder a (G·H, ·) weight
// into ONNX's gate order.
func (m *rnn) gatePerm() *ag.Var {
	h := m.o.HiddenSize
	idx := make([]int64, 0, m.gates*h)
	for _, g := range onnxGateOrder[m.gates] {
		for j := range h {
			idx = append(idx, int64(g*h+j))
		}
	}
	return ag.Const(tensor.FromSlice(idx, len(idx)))
}
