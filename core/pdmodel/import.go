// Package pdmodel imports PaddlePaddle 2.x inference models (an
// inference.pdmodel ProgramDesc and its inference.pdiparams weights, read by
// core/pdmodel/pdpb) into the static IR (core/graph), so the runtime, the
// passes and the ONNX exporter take them as they take an imported ONNX model.
//
// Block 0 is imported: feed ops become the graph's inputs (in their col
// order, with the dtype and dims of their variables), fetch ops its outputs,
// persistable variables constants, and every other op is mapped by the
// builders of ops.go onto registry ops. An op with no builder is an error
// that names the format, the operator and the file.
package pdmodel

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"paddle/core/graph"
	"paddle/core/io"
	"paddle/core/op"
	"paddle/core/pdmodel/pdpb"
	"paddle/core/tensor"
)

// ParamsPath is where the weights of model are looked for: the same name
// with .pdiparams for .pdmodel.
func ParamsPath(model string) string {
	return strings.TrimSuffix(model, ".pdmodel") + ".pdiparams"
}

// IsModel reports whether path names a Paddle 2.x inference program.
func IsModel(path string) bool { return strings.HasSuffix(path, ".pdmodel") }

// ReadFile reads model and its weights (params; "" means ParamsPath(model))
// and imports them.
func ReadFile(model, params string) (*graph.Graph, error) {
	p, err := pdpb.ReadProgram(model)
	if err != nil {
		return nil, err
	}
	if params == "" {
		params = ParamsPath(model)
	}
	return importFile(model, params, p)
}

// importFile reads the weights of p, the program of file model, from
// params and imports them.
func importFile(model, params string, p *pdpb.Program) (*graph.Graph, error) {
	var ts []pdpb.Tensor
	if names := p.Persistables(); len(names) > 0 {
		if _, err := os.Stat(params); err != nil {
			return nil, fmt.Errorf("pdmodel: %s: its weights %s: %w (give the .pdiparams file explicitly)", model, params, errors.Unwrap(err))
		}
		var err error
		if ts, err = pdpb.ReadParams(params, names); err != nil {
			return nil, err
		}
	}
	g, err := Import(p, ts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Base(model), err)
	}
	return g, nil
}

// Import converts block 0 of p into the IR; params are the values of
// p.Persistables(), in that order.
func Import(p *pdpb.Program, params []pdpb.Tensor) (*graph.Graph, error) {
	b := p.Blocks[0]
	im := &importer{g: &graph.Graph{Name: "pdmodel"}, vals: map[string]*graph.Value{}, vars: map[string]*pdpb.Var{}}
	for _, v := range b.Vars {
		im.vars[v.Name] = v
	}
	for _, t := range params {
		v, err := constant(t)
		if err != nil {
			return nil, fmt.Errorf("pdmodel: variable %q: %w", t.Name, err)
		}
		v.Param = v.Const.DType().IsFloat()
		im.vals[t.Name] = v
	}
	var feeds, fetches []colVar
	for i, o := range b.Ops {
		c := &ctx{im: im, op: o, name: fmt.Sprintf("%s_%d", o.Type, i)}
		switch o.Type {
		case "feed":
			out := o.Output("Out")
			if len(out) != 1 {
				return nil, c.errorf("want one Out, got %v", out)
			}
			feeds = append(feeds, colVar{c.int("col", 0), out[0]})
			continue
		case "fetch":
			in := o.Input("X")
			if len(in) != 1 {
				return nil, c.errorf("want one X, got %v", in)
			}
			fetches = append(fetches, colVar{c.int("col", 0), in[0]})
			continue
		}
		if err := im.op(c, feeds); err != nil {
			return nil, err
		}
	}
	if len(fetches) == 0 {
		return nil, fmt.Errorf("pdmodel: the program has no fetch op: not an inference program")
	}
	sort.SliceStable(fetches, func(i, j int) bool { return fetches[i].col < fetches[j].col })
	for _, f := range fetches {
		v := im.vals[f.name]
		if v == nil {
			return nil, fmt.Errorf("pdmodel: fetched variable %q is not produced by any op", f.name)
		}
		im.g.Outputs = append(im.g.Outputs, v)
		im.g.OutputNames = append(im.g.OutputNames, f.name)
	}
	if err := im.g.Sort(); err != nil {
		return nil, fmt.Errorf("pdmodel: %w", err)
	}
	return im.g, nil
}

type importer struct {
	g      *graph.Graph
	vals   map[string]*graph.Value
	vars   map[string]*pdpb.Var
	tmp    int
	inputs bool // the feeds have been made graph inputs
}

// colVar is a fed or fetched variable and its place (the op's col attribute).
type colVar struct {
	col  int
	name string
}

// op imports one op. At the first op that is not a feed (Paddle puts the
// feeds first) the fed variables become the graph's inputs, in col order.
func (im *importer) op(c *ctx, fs []colVar) error {
	if !im.inputs {
		im.inputs = true
		sort.SliceStable(fs, func(i, j int) bool { return fs[i].col < fs[j].col })
		for _, f := range fs {
			vd := im.vars[f.name]
			if vd == nil {
				return fmt.Errorf("pdmodel: fed variable %q has no VarDesc", f.name)
			}
			d, err := dtype(vd.DType)
			if err != nil {
				return fmt.Errorf("pdmodel: fed variable %q: %w", f.name, err)
			}
			v := &graph.Value{Name: f.name, Meta: op.Meta{DType: d, Shape: make(tensor.Shape, len(vd.Dims))}}
			for i, x := range vd.Dims {
				v.Meta.Shape[i] = int(x)
			}
			im.vals[f.name] = v
			im.g.Inputs = append(im.g.Inputs, v)
		}
	}
	bld, ok := builders[c.op.Type]
	if !ok {
		return c.errorf("operator %q is not supported", c.op.Type)
	}
	for _, s := range c.op.Inputs {
		for _, a := range s.Arguments {
			if im.vals[a] == nil {
				return c.errorf("input %s %q is not defined before the op", s.Parameter, a)
			}
		}
	}
	if err := bld(c); err != nil {
		if strings.HasPrefix(err.Error(), "pdmodel: ") {
			return err
		}
		return c.errorf("%v", err)
	}
	return nil
}

// dtype maps a Paddle data type onto the tensor dtype paddle computes in.
func dtype(t pdpb.Type) (tensor.DType, error) {
	switch t {
	case pdpb.FP32, pdpb.FP16:
		return tensor.Float32, nil
	case pdpb.FP64:
		return tensor.Float64, nil
	case pdpb.Int64:
		return tensor.Int64, nil
	case pdpb.Int32:
		return tensor.Int32, nil
	case pdpb.Uint8:
		return tensor.Uint8, nil
	case pdpb.Int8:
		return tensor.Int8, nil
	case pdpb.Bool:
		return tensor.Bool, nil
	}
	return 0, fmt.Errorf("data type %v is not supported", t)
}

// npyDescr names each supported data type as NumPy does, for io.DecodeArray.
var npyDescr = map[pdpb.Type]string{pdpb.FP32: "<f4", pdpb.FP16: "<f2", pdpb.FP64: "<f8", pdpb.Int64: "<i8",
	pdpb.Int32: "<i4", pdpb.Uint8: "|u1", pdpb.Int8: "|i1", pdpb.Bool: "|b1"}

// constant makes the graph constant of a .pdiparams tensor.
func constant(t pdpb.Tensor) (*graph.Value, error) {
	descr, ok := npyDescr[t.DType]
	if !ok {
		return nil, fmt.Errorf("data type %v is not supported", t.DType)
	}
	x, err := io.DecodeArray(descr, t.Dims, false, t.Data)
	if err != nil {
		return nil, err
	}
	return &graph.Value{Name: t.Name, Meta: graph.ConstMeta(x), Const: x}, nil
}
