package model

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/config"
	"paddle/core/graph"
	"paddle/core/onnx"
	"paddle/core/onnx/onnxpb"
	"paddle/core/op"
	"paddle/core/pdmodel"
	"paddle/core/pdmodel/pdpb"
	"paddle/core/runtime"
	"paddle/core/tensor"
)

// inspectOptions are the inputs of `paddle model inspect`.
type inspectOptions struct {
	Out    io.Writer
	Model  string
	Shapes []string // NAME=1x3x640x640
	Format string
	IR     bool   // print the imported IR
	Passes string // with IR: passes to apply first (as model run's --passes)
	Params string // weights of a .pdmodel ("" = beside it)
}

func newCmdInspect(f *cmdutil.Factory) *cobra.Command {
	opts := inspectOptions{}
	cmd := &cobra.Command{
		Use:   "inspect FILE.onnx|FILE.pdmodel|FILE.pdparams [--shape NAME=1x3x640x640 ...]",
		Short: "Print a model's inputs, outputs, op histogram, parameter count and FLOPs",
		Long: "Prints the inputs and outputs with their shapes (dynamic dimensions by name), the ONNX op\n" +
			"histogram, the number of parameters and, for the input shapes given with --shape (or fully\n" +
			"static inputs), the FLOPs of one run (a multiply-add counts 2). For PaddlePaddle weights\n" +
			"(.pdparams, .pdopt) it lists each tensor's name, dtype, shape and Paddle parameter name.\n" +
			"A PaddlePaddle 2.x inference.pdmodel is read with the inference.pdiparams beside it (or\n" +
			"--params); its histogram counts Paddle operators.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Out, opts.Model, opts.Format = f.IOStreams.Out, args[0], f.Settings.Format
			return inspectRun(opts)
		},
	}
	cmdutil.SupportsFormats(cmd, "text", "json")
	cmd.Flags().StringArrayVar(&opts.Shapes, "shape", nil, "input shape for the FLOPs count, NAME=1x3x640x640, repeatable")
	cmd.Flags().StringVar(&opts.Params, "params", "", "weights of a .pdmodel (default: the .pdiparams beside it)")
	cmd.Flags().BoolVar(&opts.IR, "ir", false, "print the model as paddle's IR (text) instead")
	cmd.Flags().StringVar(&opts.Passes, "passes", "none", "with --ir: graph passes to apply first (as model run's --passes; \"\" = the defaults)")
	return cmd
}

// ioInfo is one input or output of the report.
type ioInfo struct {
	Name  string   `json:"name"`
	DType string   `json:"dtype"`
	Shape []string `json:"shape"`
}

// Report is what `model inspect` prints.
type Report struct {
	Model      string         `json:"model"`
	Opset      int64          `json:"opset"`
	Inputs     []ioInfo       `json:"inputs"`
	Outputs    []ioInfo       `json:"outputs"`
	Ops        map[string]int `json:"ops"`
	Nodes      int            `json:"nodes"`
	Params     int            `json:"params"`
	ParamCount int64          `json:"param_count"`
	ConstCount int64          `json:"const_elements"`
	FLOPs      int64          `json:"flops,omitempty"`
	FLOPsNote  string         `json:"flops_note,omitempty"`
}

func parseShapes(specs []string) (map[string]tensor.Shape, error) {
	out := map[string]tensor.Shape{}
	for _, s := range specs {
		name, dims, ok := strings.Cut(s, "=")
		if !ok {
			return nil, cmdutil.FlagErrorf("--shape %q: want NAME=1x3x640x640", s)
		}
		var shape tensor.Shape
		for _, d := range strings.Split(dims, "x") {
			n, err := strconv.Atoi(d)
			if err != nil || n < 0 {
				return nil, cmdutil.FlagErrorf("--shape %q: %q is not a dimension", s, d)
			}
			shape = append(shape, n)
		}
		out[name] = shape
	}
	return out, nil
}

// Inspect builds the report for a model file (ONNX, or a PaddlePaddle
// inference.pdmodel with its weights: params, or "" for the .pdiparams
// beside it) and input shapes. For a .pdmodel the op histogram counts
// Paddle's operator types and Opset is 0.
func Inspect(path, params string, shapes map[string]tensor.Shape) (*Report, error) {
	var g *graph.Graph
	r := &Report{Model: path, Ops: map[string]int{}}
	declaredDims := func(string) []string { return nil }
	if pdmodel.IsModel(path) {
		prog, err := pdpb.ReadProgram(path)
		if err != nil {
			return nil, err
		}
		for _, o := range prog.Blocks[0].Ops {
			if o.Type != "feed" && o.Type != "fetch" {
				r.Ops[o.Type]++
				r.Nodes++
			}
		}
		if g, err = pdmodel.ReadFile(path, params); err != nil {
			return nil, err
		}
	} else if pdmodel.IsPIR(path) {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		prog, err := pdmodel.DecodePIR(b)
		if err != nil {
			return nil, fmt.Errorf("pdmodel: %s: PIR program: %w", path, err)
		}
		for _, o := range prog.Blocks[0].Ops {
			if o.Type != "feed" && o.Type != "fetch" {
				r.Ops[o.Type]++
				r.Nodes++
			}
		}
		if g, err = pdmodel.ReadPIRFile(path, params); err != nil {
			return nil, err
		}
	} else {
		if err := runtime.PaddleFileError(path); err != nil {
			return nil, err
		}
		m, err := onnxpb.ReadFile(path)
		if err != nil {
			return nil, err
		}
		if g, err = onnx.Import(m); err != nil {
			return nil, err
		}
		r.Opset, r.Nodes = m.OpsetVersion(""), len(m.Graph.Node)
		for _, n := range m.Graph.Node {
			r.Ops[n.OpType]++
		}
		declaredDims = func(name string) []string { return declared(m.Graph, name) }
	}
	for _, v := range g.Inputs {
		r.Inputs = append(r.Inputs, ioInfo{v.Name, v.Meta.DType.String(), dimStrings(v)})
	}
	for i, v := range g.Outputs {
		r.Outputs = append(r.Outputs, ioInfo{g.OutputName(i), v.Meta.DType.String(), declaredDims(g.OutputName(i))})
	}
	for _, v := range g.Consts() {
		n := int64(v.Const.Len())
		r.ConstCount += n
		if v.Param {
			r.Params++
			r.ParamCount += n
		}
	}
	metas := map[string]op.Meta{}
	for _, v := range g.Inputs {
		s, ok := shapes[v.Name]
		if !ok {
			if !graph.KnownShape(v.Meta.Shape) {
				r.FLOPsNote = fmt.Sprintf("input %q has dynamic dimensions: give --shape %s=...", v.Name, v.Name)
				return r, nil
			}
			s = v.Meta.Shape
		}
		metas[v.Name] = op.Meta{DType: v.Meta.DType, Shape: s}
	}
	for name := range shapes {
		if _, ok := metas[name]; !ok {
			return nil, cmdutil.FlagErrorf("--shape %s: the model has no such input", name)
		}
	}
	s, err := graph.Infer(g, metas)
	if err != nil {
		return nil, config.Usage(err)
	}
	r.FLOPs = FLOPs(g, s)
	for i, v := range g.Outputs {
		if sh := s.Meta[v].Shape; graph.KnownShape(sh) {
			r.Outputs[i].Shape = strings.Fields(strings.Trim(fmt.Sprint([]int(sh)), "[]"))
		}
	}
	if !s.Complete {
		r.FLOPsNote = "some shapes depend on input values: the count covers the nodes whose shapes are known"
	}
	return r, nil
}

// declared returns the dims the model declares for graph output name.
func declared(gp *onnxpb.Graph, name string) []string {
	for _, vi := range gp.Output {
		if vi.Name != name || vi.Type == nil || vi.Type.TensorType == nil || vi.Type.TensorType.Shape == nil {
			continue
		}
		var out []string
		for _, d := range vi.Type.TensorType.Shape.Dim {
			out = append(out, d.String())
		}
		return out
	}
	return nil
}

func dimStrings(v *graph.Value) []string {
	if v.Meta.Shape == nil {
		return nil
	}
	out := make([]string, len(v.Meta.Shape))
	for i, d := range v.Meta.Shape {
		switch {
		case d >= 0:
			out[i] = strconv.Itoa(d)
		case i < len(v.DimNames) && v.DimNames[i] != "":
			out[i] = v.DimNames[i]
		default:
			out[i] = "?"
		}
	}
	return out
}

func inspectRun(opts inspectOptions) error {
	if isPaddleWeights(opts.Model) {
		return inspectWeights(opts)
	}
	if opts.IR {
		p, err := runtime.Load(opts.Model, runtime.Options{Passes: passList(opts.Passes), Params: opts.Params})
		if err != nil {
			return err
		}
		_, err = io.WriteString(opts.Out, p.Graph().String())
		return err
	}
	shapes, err := parseShapes(opts.Shapes)
	if err != nil {
		return err
	}
	r, err := Inspect(opts.Model, opts.Params, shapes)
	if err != nil {
		return err
	}
	if opts.Format == "json" {
		enc := json.NewEncoder(opts.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	w := tabwriter.NewWriter(opts.Out, 0, 4, 2, ' ', 0)
	if pdmodel.IsModel(r.Model) || pdmodel.IsPIR(r.Model) {
		fmt.Fprintf(w, "model\t%s (PaddlePaddle program, %d ops)\n", r.Model, r.Nodes)
	} else {
		fmt.Fprintf(w, "model\t%s (opset %d, %d nodes)\n", r.Model, r.Opset, r.Nodes)
	}
	for _, v := range r.Inputs {
		fmt.Fprintf(w, "input\t%s\t%s[%s]\n", v.Name, v.DType, strings.Join(v.Shape, ","))
	}
	for _, v := range r.Outputs {
		fmt.Fprintf(w, "output\t%s\t%s[%s]\n", v.Name, v.DType, strings.Join(v.Shape, ","))
	}
	fmt.Fprintf(w, "parameters\t%d in %d tensors (%d constant elements in all)\n", r.ParamCount, r.Params, r.ConstCount)
	if r.FLOPs > 0 {
		fmt.Fprintf(w, "flops\t%d (%.3f GFLOPs)\n", r.FLOPs, float64(r.FLOPs)/1e9)
	}
	if r.FLOPsNote != "" {
		fmt.Fprintf(w, "note\t%s\n", r.FLOPsNote)
	}
	ops := make([]string, 0, len(r.Ops))
	for k := range r.Ops {
		ops = append(ops, k)
	}
	sort.Slice(ops, func(i, j int) bool {
		if r.Ops[ops[i]] != r.Ops[ops[j]] {
			return r.Ops[ops[i]] > r.Ops[ops[j]]
		}
		return ops[i] < ops[j]
	})
	for _, k := range ops {
		fmt.Fprintf(w, "op\t%s\t%d\n", k, r.Ops[k])
	}
	return w.Flush()
}

// FLOPs counts the floating-point operations of one run for the shapes in s
// (a multiply-add is 2): convolutions and matrix products exactly, pools by
// window size, other ops one per output element; nodes with unknown shapes
// and folded shape arithmetic count nothing.
func FLOPs(g *graph.Graph, s *graph.Shapes) int64 {
	var total int64
	for _, n := range g.Nodes {
		if s.Folded[n] {
			continue
		}
		in := make([]tensor.Shape, len(n.In))
		ok := true
		for i, v := range n.In {
			if v.Const != nil {
				in[i] = graph.ConstMeta(v.Const).Shape
			} else {
				in[i] = s.Meta[v].Shape
			}
			ok = ok && graph.KnownShape(in[i])
		}
		if len(n.Out) == 0 {
			continue
		}
		out := s.Meta[n.Out[0]].Shape
		if !ok || !graph.KnownShape(out) {
			continue
		}
		outN := int64(out.NumElements())
		switch n.Op.Name {
		case "conv2d":
			w := in[1] // (OC, C/g, KH, KW)
			total += 2 * outN * int64(w[1]*w[2]*w[3])
		case "conv_transpose2d":
			w := in[1] // (C, OC/g, KH, KW)
			total += 2 * int64(in[0].NumElements()) * int64(w[1]*w[2]*w[3])
		case "matmul":
			a := in[0]
			k := a[len(a)-1]
			if n.Attrs.Bool("trans_a", false) {
				k = a[len(a)-2]
			}
			total += 2 * outN * int64(k)
		case "max_pool2d", "avg_pool2d":
			k := n.Attrs.Ints("kernel_shape", nil)
			area := int64(1)
			for _, d := range k {
				area *= int64(d)
			}
			total += outN * area
		case "global_avg_pool", "global_max_pool", "sum", "mean", "max", "min", "prod", "reduce_l2":
			total += int64(in[0].NumElements())
		case "reshape", "transpose", "squeeze", "unsqueeze", "flatten", "concat", "split", "slice",
			"shape", "gather", "broadcast_to", "tile", "pad", "cast", "constant_of_shape", "range":
		default:
			total += outN
		}
	}
	return total
}
