package op_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"paddle/core/op"
	"paddle/core/tensor"
)

// Forward values of the conv, pool, norm and resize ops against PyTorch
// (scripts/ref/conv_torch.py writes testdata/conv_*.json).

type convRefArray struct {
	Shape []int     `json:"shape"`
	Data  []float64 `json:"data"`
}

type convRefCase struct {
	Name    string         `json:"name"`
	Op      string         `json:"op"`
	Attrs   map[string]any `json:"attrs"`
	Inputs  []convRefArray `json:"inputs"`
	Outputs []convRefArray `json:"outputs"`
}

// convFloatAttrs are the attributes whose JSON numbers stay float64; all others become ints.
var convFloatAttrs = map[string]bool{"epsilon": true, "scales": true}

func convAttrsFromJSON(m map[string]any) op.Attrs {
	a := op.Attrs{}
	for k, v := range m {
		switch v := v.(type) {
		case float64:
			if convFloatAttrs[k] {
				a[k] = v
			} else {
				a[k] = int(v)
			}
		case []any:
			if convFloatAttrs[k] {
				f := make([]float64, len(v))
				for i, e := range v {
					f[i] = e.(float64)
				}
				a[k] = f
			} else {
				n := make([]int, len(v))
				for i, e := range v {
					n[i] = int(e.(float64))
				}
				a[k] = n
			}
		default:
			a[k] = v
		}
	}
	return a
}

func TestConvFamiliesMatchTorch(t *testing.T) {
	files, _ := filepath.Glob("testdata/conv_*.json")
	if len(files) != 4 {
		t.Fatalf("want 4 testdata/conv_*.json files, found %v (run scripts/ref/conv_torch.py)", files)
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct{ Cases []convRefCase }
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, tc := range doc.Cases {
			d := op.Lookup(tc.Op)
			if d == nil {
				t.Errorf("%s: %s: no op %q", f, tc.Name, tc.Op)
				continue
			}
			for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
				t.Run(filepath.Base(f)+"/"+tc.Name+"/"+dt.String(), func(t *testing.T) {
					in := make([]*tensor.Tensor, len(tc.Inputs))
					for i, a := range tc.Inputs {
						in[i] = tensor.FromSlice(append([]float64(nil), a.Data...), a.Shape...).Cast(dt)
					}
					got := op.Call(d, convAttrsFromJSON(tc.Attrs), in...)
					tol := 1e-5
					if dt == tensor.Float64 {
						tol = 1e-10
					}
					for i, w := range tc.Outputs {
						want := tensor.FromSlice(w.Data, w.Shape...)
						if diff, ok := tensor.MaxDiff(got[i].Cast(tensor.Float64), want, tol, tol); !ok {
							t.Errorf("output %d: shape %v (torch %v), max diff %g", i, got[i].Shape(), want.Shape(), diff)
						}
					}
				})
			}
		}
	}
}
