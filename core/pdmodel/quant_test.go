package pdmodel_test

import (
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/graph/pass"
	"paddle/core/io"
	"paddle/core/pdmodel"
	"paddle/core/pdmodel/pdpb"
	"paddle/core/runtime"
	"paddle/core/tensor"
)

// TestQuantMatchesNumPy runs the fixture of `pdmodel_ref.py quant` (x
// through quantize_linear/dequantize_linear into a conv2d whose weight is
// stored quantized, with a per-channel dequantize_linear) against the
// script's NumPy forward pass of Paddle's formulas, with the default passes
// (the conv folded into qconv2d) and with none (the QDQ ops run as written).
// x has no exact ties, so the integers are Paddle's and the outputs agree to
// float rounding (1e-5; one step of a single x element moves an output by up
// to |w|/127): clamping to -128 instead of Paddle's -127, or a scale off by
// Paddle's 127, fails it.
func TestQuantMatchesNumPy(t *testing.T) {
	dir := "testdata/quant"
	x, err := io.ReadNpy(filepath.Join(dir, "x.npy"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := io.ReadNpy(filepath.Join(dir, "out.npy"))
	if err != nil {
		t.Fatal(err)
	}
	for _, passes := range [][]string{nil, {}} {
		g, err := pdmodel.ReadFile(filepath.Join(dir, "inference.pdmodel"), "")
		if err != nil {
			t.Fatal(err)
		}
		p, err := runtime.New(g, runtime.Options{Passes: passes})
		if err != nil {
			t.Fatal(err)
		}
		out, err := p.Run(map[string]*tensor.Tensor{"x": x})
		if err != nil {
			t.Fatal(err)
		}
		if d := maxAbsDiff(t, out["out"], want); d > 1e-5 {
			t.Errorf("passes %v: max abs diff %g from NumPy", passes, d)
		}
	}
}

// TestQuantFolds checks that the QDQ pass turns the imported conv2d into the
// int8 qconv2d.
func TestQuantFolds(t *testing.T) {
	g, err := pdmodel.ReadFile("testdata/quant/inference.pdmodel", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := pass.QDQ(g); err != nil {
		t.Fatal(err)
	}
	ops := map[string]int{}
	for _, n := range g.Nodes {
		ops[n.Op.Name]++
	}
	if ops["qconv2d"] != 1 || ops["conv2d"] != 0 {
		t.Errorf("after the QDQ pass: ops %v, want one qconv2d and no conv2d", ops)
	}
}

// TestQuantUnsupported: attribute values the importer does not handle fail
// naming the op and the attribute; a weight that does not hold integers
// fails naming it.
func TestQuantUnsupported(t *testing.T) {
	for _, c := range []struct {
		typ, attr string
		v         any
		want      string
	}{
		{"quantize_linear", "bit_length", int32(4), `operator quantize_linear ("quantize_linear_1"): attribute bit_length 4 is not supported`},
		{"dequantize_linear", "round_type", int32(2), `operator dequantize_linear ("dequantize_linear_2"): attribute round_type 2 is not supported`},
		{"quantize_linear", "only_observer", true, "attribute only_observer true is not supported"},
		{"quantize_linear", "is_test", false, "attribute is_test false is not supported"},
		{"", "", nil, `weight "conv1_weights": element 0 is 0.5: want integers in [-127, 127]`},
	} {
		p, err := pdpb.ReadProgram("testdata/quant/inference.pdmodel")
		if err != nil {
			t.Fatal(err)
		}
		ts, err := pdpb.ReadParams("testdata/quant/inference.pdiparams", p.Persistables())
		if err != nil {
			t.Fatal(err)
		}
		if c.typ == "" {
			for i := range ts {
				if ts[i].Name == "conv1_weights" {
					ts[i].Data = append([]byte{0, 0, 0, 0x3f}, ts[i].Data[4:]...) // 0.5
				}
			}
		} else {
			for _, o := range p.Blocks[0].Ops {
				if o.Type != c.typ {
					continue
				}
				a := o.Attr(c.attr)
				switch v := c.v.(type) {
				case int32:
					a.Type, a.I = pdpb.AttrInt, v
				case bool:
					a.Type, a.B = pdpb.AttrBool, v
				}
				break
			}
		}
		_, err = pdmodel.Import(p, ts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}
