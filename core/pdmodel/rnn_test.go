package pdmodel_test

import (
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/io"
	"paddle/core/pdmodel"
	"paddle/core/pdmodel/pdpb"
	"paddle/core/runtime"
	"paddle/core/tensor"
)

// TestRNNMatchesNumPy runs the fixture of `pdmodel_ref.py rnn`: Paddle's rnn
// operator as paddle.nn.LSTM and GRU write it (a 2-layer bidirectional LSTM
// with fed initial states, then a 2-layer bidirectional GRU whose zero state
// comes from fill_constant_batch_size_like), against the script's NumPy
// forward pass of Paddle's cell equations: the output sequence and every
// final state.
func TestRNNMatchesNumPy(t *testing.T) {
	dir := "testdata/rnn"
	feeds := map[string]*tensor.Tensor{}
	for _, n := range []string{"x", "h0", "c0"} {
		v, err := io.ReadNpy(filepath.Join(dir, n+".npy"))
		if err != nil {
			t.Fatal(err)
		}
		feeds[n] = v
	}
	g, err := pdmodel.ReadFile(filepath.Join(dir, "inference.pdmodel"), "")
	if err != nil {
		t.Fatal(err)
	}
	p, err := runtime.New(g, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Run(feeds)
	if err != nil {
		t.Fatal(err)
	}
	for fetch, file := range map[string]string{"out": "out", "lstm_state_0": "lstm_h", "lstm_state_1": "lstm_c", "gru_state_0": "gru_h"} {
		want, err := io.ReadNpy(filepath.Join(dir, file+".npy"))
		if err != nil {
			t.Fatal(err)
		}
		got := out[fetch]
		if got == nil {
			t.Fatalf("no output %q", fetch)
		}
		if d := maxAbsDiff(t, got, want); d > 1e-5 {
			t.Errorf("%s: max abs diff %g from NumPy", fetch, d)
		}
	}
}

// TestRNNUnsupported: SimpleRNN's modes and a SequenceLength input fail
// naming the op and the attribute or input (ReadFile adds the file's name,
// see TestFusedErrorNamesFile).
func TestRNNUnsupported(t *testing.T) {
	for _, c := range []struct {
		attr, v, want string
	}{
		{"mode", "RNN_TANH", `operator rnn ("rnn_4"): mode "RNN_TANH" is not supported`},
		{"", "", "SequenceLength input is not supported"},
	} {
		p, err := pdpb.ReadProgram("testdata/rnn/inference.pdmodel")
		if err != nil {
			t.Fatal(err)
		}
		ts, err := pdpb.ReadParams("testdata/rnn/inference.pdiparams", p.Persistables())
		if err != nil {
			t.Fatal(err)
		}
		if c.attr != "" {
			setAttr(t, p, "rnn", c.attr, c.v)
		} else {
			for _, o := range p.Blocks[0].Ops {
				if o.Type == "rnn" {
					o.Inputs = append(o.Inputs, pdpb.Slot{Parameter: "SequenceLength", Arguments: []string{"x"}})
					break
				}
			}
		}
		_, err = pdmodel.Import(p, ts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}

// TestPIRRNNMatchesNumPy runs testdata/rnn_pir, `pir_ref.py rnn`'s Paddle 3
// form of the rnn fixture (pd_op.rnn with builtin.combine lists and the
// state vector unpacked by builtin.split; the GRU's zero state fed as g0),
// against the same NumPy forward pass.
func TestPIRRNNMatchesNumPy(t *testing.T) {
	dir := "testdata/rnn"
	feeds := map[string]*tensor.Tensor{}
	for _, n := range []string{"x", "h0", "c0"} {
		v, err := io.ReadNpy(filepath.Join(dir, n+".npy"))
		if err != nil {
			t.Fatal(err)
		}
		feeds[n] = v
	}
	feeds["g0"] = tensor.New(tensor.Float32, 4, feeds["x"].Shape()[0], 4)
	g, err := pdmodel.ReadPIRFile("testdata/rnn_pir/inference.json", "")
	if err != nil {
		t.Fatal(err)
	}
	p, err := runtime.New(g, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Run(feeds)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"out", "lstm_h", "lstm_c", "gru_h"} {
		want, err := io.ReadNpy(filepath.Join(dir, name+".npy"))
		if err != nil {
			t.Fatal(err)
		}
		got := out[name]
		if got == nil {
			t.Fatalf("no output %q (outputs %v)", name, g.OutputNames)
		}
		if d := maxAbsDiff(t, got, want); d > 1e-5 {
			t.Errorf("%s: max abs diff %g from NumPy", name, d)
		}
	}
}
