package op_test

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"paddle/core/op"
	"paddle/core/tensor"
)

// Values and gradients from PyTorch: scripts/ref/math_torch.py writes
// testdata/math_torch.json (float64 inputs; outputs and the gradients of
// sum(output·upstream)).

type mathJSONTensor struct {
	DType string    `json:"dtype"`
	Shape []int     `json:"shape"`
	Data  []float64 `json:"data"`
}

func (j *mathJSONTensor) tensor(t *testing.T) *tensor.Tensor {
	t.Helper()
	x := tensor.FromSlice(append([]float64(nil), j.Data...), j.Shape...)
	d, err := tensor.ParseDType(j.DType)
	if err != nil {
		t.Fatal(err)
	}
	return x.Cast(d)
}

type mathTorchCase struct {
	Name     string            `json:"name"`
	Op       string            `json:"op"`
	Attrs    map[string]any    `json:"attrs"`
	Inputs   []*mathJSONTensor `json:"inputs"`
	Outputs  []*mathJSONTensor `json:"outputs"`
	Upstream []*mathJSONTensor `json:"upstream"`
	Grads    []*mathJSONTensor `json:"grads"`
}

// attrs converts JSON attribute values: lists to []int, the rest as decoded.
func (c *mathTorchCase) attrs() op.Attrs {
	a := op.Attrs{}
	for k, v := range c.Attrs {
		if l, ok := v.([]any); ok {
			ints := make([]int, len(l))
			for i, e := range l {
				ints[i] = int(e.(float64))
			}
			v = ints
		}
		a[k] = v
	}
	return a
}

func loadMathTorchCases(t *testing.T) []*mathTorchCase {
	t.Helper()
	b, err := os.ReadFile("testdata/math_torch.json")
	if err != nil {
		t.Fatalf("read testdata/math_torch.json: %v (run scripts/ref/math_torch.py)", err)
	}
	var f struct{ Cases []*mathTorchCase }
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatalf("testdata/math_torch.json: %v", err)
	}
	return f.Cases
}

func checkMathClose(t *testing.T, what string, got *tensor.Tensor, want *mathJSONTensor, tol float64) {
	t.Helper()
	if !got.Shape().Equal(want.Shape) {
		t.Errorf("%s: shape %v, want %v", what, got.Shape(), want.Shape)
		return
	}
	if got.DType().String() != want.DType {
		t.Errorf("%s: dtype %v, want %s", what, got.DType(), want.DType)
		return
	}
	for i, g := range got.Float64s() {
		w := want.Data[i]
		if math.Abs(g-w) > tol*(1+math.Abs(w)) {
			t.Errorf("%s: element %d = %.10g, want %.10g", what, i, g, w)
			return
		}
	}
}

func TestMathAgainstTorch(t *testing.T) {
	cases := loadMathTorchCases(t)
	if len(cases) < 40 {
		t.Fatalf("only %d cases in testdata/math_torch.json", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			d := op.Lookup(c.Op)
			if d == nil {
				t.Fatalf("no op %q", c.Op)
			}
			in := make([]*tensor.Tensor, len(c.Inputs))
			for i, j := range c.Inputs {
				in[i] = j.tensor(t)
			}
			a := c.attrs()
			outs := op.Call(d, a, in...)
			if len(outs) != len(c.Outputs) {
				t.Fatalf("%d outputs, want %d", len(outs), len(c.Outputs))
			}
			for i, o := range outs {
				checkMathClose(t, "output", o, c.Outputs[i], 1e-6)
			}
			if c.Grads == nil {
				return
			}
			up := make([]*tensor.Tensor, len(outs))
			for i, u := range c.Upstream {
				if u != nil {
					up[i] = u.tensor(t)
				}
			}
			grads := d.VJP(&op.VJPCtx{In: in, Out: outs, GradOut: up, Attrs: a})
			for i, g := range c.Grads {
				if g != nil {
					checkMathClose(t, "gradient", grads[i], g, 1e-6)
				}
			}
		})
	}
}

// The float32 kernels agree with the float64 ones to float32 precision.
func TestMathFloat32MatchesTorch(t *testing.T) {
	for _, c := range loadMathTorchCases(t) {
		if c.Inputs[0].DType != "float64" {
			continue
		}
		d := op.Lookup(c.Op)
		in := make([]*tensor.Tensor, len(c.Inputs))
		for i, j := range c.Inputs {
			in[i] = j.tensor(t)
			if in[i].DType() == tensor.Float64 {
				in[i] = in[i].Cast(tensor.Float32)
			}
		}
		for i, o := range op.Call(d, c.attrs(), in...) {
			want := *c.Outputs[i]
			if want.DType == "float64" {
				want.DType = "float32"
			}
			checkMathClose(t, c.Name+" float32", o, &want, 2e-6)
		}
	}
}
