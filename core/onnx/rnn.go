package onnx

import (
	"fmt"
	"strings"

	"paddle/core/graph"
	"paddle/core/op"
)

// ONNX LSTM and GRU import as core/op's onnx_lstm and onnx_gru (see there).

var lstmDef, gruDef = op.Lookup("onnx_lstm"), op.Lookup("onnx_gru")

func init() {
	builders["LSTM"] = buildRNN(lstmDef)
	builders["GRU"] = buildRNN(gruDef)
}

// buildRNN maps ONNX LSTM/GRU onto the op: optional inputs travel with
// their letters in "present"; unsupported options are import errors.
func buildRNN(def *op.Def) func(c *ctx) error {
	return func(c *ctx) error {
		a, err := c.attrs()
		if err != nil {
			return err
		}
		if def == lstmDef && c.in(7) != nil {
			return fmt.Errorf("peepholes (input P) are not supported")
		}
		if acts, ok := a["activations"].([]string); ok {
			want := []string{"Sigmoid", "Tanh", "Tanh"}
			if def == gruDef {
				want = []string{"Sigmoid", "Tanh"}
			}
			for i, act := range acts {
				if !strings.EqualFold(act, want[i%len(want)]) {
					return fmt.Errorf("activations %v are not supported (only the defaults %v)", acts, want)
				}
			}
		}
		x := c.in(0)
		at := op.Attrs{"direction": a.Str("direction", "forward"),
			"layout": a.Int("layout", 0), "clip": a.Float("clip", 0), "input_forget": a.Int("input_forget", 0),
			"linear_before_reset": a.Int("linear_before_reset", 0)}
		if hs := a.Int("hidden_size", 0); hs > 0 {
			at["hidden_size"] = hs
		}
		in := []*graph.Value{x, c.in(1), c.in(2)}
		present := ""
		for i, p := range []string{"B", "S", "H", "C"} {
			if v := c.in(3 + i); v != nil {
				in = append(in, v)
				present += p
			}
		}
		at["present"] = present
		nout := 3
		if def == gruDef {
			nout = 2
		}
		out := make([]*graph.Value, nout)
		for i := range out {
			out[i] = c.out(i, x.Meta.DType)
		}
		c.emit(def.Name, at, in, out...)
		return nil
	}
}
