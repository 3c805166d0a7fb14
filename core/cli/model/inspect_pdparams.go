package model

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"paddle/core/io/pdparams"
)

// isPaddleWeights says whether path names a paddle.save file.
func isPaddleWeights(path string) bool {
	return strings.HasSuffix(path, ".pdparams") || strings.HasSuffix(path, ".pdopt")
}

// weightInfo is one tensor of a .pdparams report.
type weightInfo struct {
	Name      string `json:"name"`
	ParamName string `json:"param_name,omitempty"`
	DType     string `json:"dtype"`
	Shape     []int  `json:"shape"`
}

// weightsReport is what `model inspect x.pdparams` prints.
type weightsReport struct {
	File       string         `json:"file"`
	Tensors    []weightInfo   `json:"tensors"`
	ParamCount int64          `json:"param_count"`
	Values     map[string]any `json:"values,omitempty"`
}

// inspectWeights lists the tensors of a .pdparams/.pdopt file: names (with
// Paddle's parameter names), dtypes and shapes, in file order.
func inspectWeights(opts inspectOptions) error {
	f, err := pdparams.Read(opts.Model)
	if err != nil {
		return err
	}
	r := weightsReport{File: opts.Model, Values: f.Values}
	for _, n := range f.Names {
		t := f.Tensors[n]
		r.Tensors = append(r.Tensors, weightInfo{n, f.ParamNames[n], t.DType().String(), t.Shape()})
		r.ParamCount += int64(t.Len())
	}
	if opts.Format == "json" {
		enc := json.NewEncoder(opts.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	w := tabwriter.NewWriter(opts.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "file\t%s (%d tensors, %d elements)\n", r.File, len(r.Tensors), r.ParamCount)
	for _, t := range r.Tensors {
		fmt.Fprintf(w, "tensor\t%s\t%s%v\t%s\n", t.Name, t.DType, t.Shape, t.ParamName)
	}
	for _, k := range slices.Sorted(maps.Keys(r.Values)) {
		fmt.Fprintf(w, "value\t%s\t%v\n", k, r.Values[k])
	}
	return w.Flush()
}
