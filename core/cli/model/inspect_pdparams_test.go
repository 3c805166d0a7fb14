package model

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestInspectPdparams(t *testing.T) {
	var out bytes.Buffer
	err := inspectRun(inspectOptions{Out: &out, Model: "../../io/pdparams/testdata/layer_p2.pdparams", Format: "json"})
	if err != nil {
		t.Fatal(err)
	}
	var r weightsReport
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Tensors) != 8 || r.ParamCount != 18+2+2+12+4+1+3+2 {
		t.Fatalf("report %+v", r)
	}
	for _, w := range r.Tensors {
		if w.Name == "conv.weight" && (w.DType != "float32" || len(w.Shape) != 4 || w.ParamName != "conv2d_0.w_0") {
			t.Fatalf("conv.weight = %+v", w)
		}
	}
	out.Reset()
	if err := inspectRun(inspectOptions{Out: &out, Model: "../../io/pdparams/testdata/adam.pdopt", Format: "text"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"linear_0.w_0_moment1_0", "float32[3 4]", "LR_Scheduler.last_epoch"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, out.String())
		}
	}
}
