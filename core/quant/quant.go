// Package quant is post-training quantization: it runs a float model on
// calibration inputs, records the range of every activation that feeds a
// convolution or matrix product, and rewrites the model into QDQ form
// (QuantizeLinear/DequantizeLinear around those ops: uint8 activations
// with one scale and zero point, int8 symmetric weights per output
// channel or per tensor, int32 conv biases), the layout ONNX Runtime's
// quantizer writes. core/graph/pass's qdq pass then runs the result on the
// int8 kernels; core/onnx writes it as an ONNX file.
//
//	quant.go  Quantizer: choosing the nodes, calibrating, rewriting, sensitivity
//	calib.go  range statistics and the methods minmax, percentile, kl, mse
package quant

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"paddle/core/graph"
	"paddle/core/graph/pass"
	"paddle/core/op"
	"paddle/core/runtime"
	"paddle/core/tensor"
)

// Options choose what is quantized and how.
type Options struct {
	Method     string   // minmax (default), percentile, kl or mse
	Percentile float64  // for percentile: the share of |x| kept, in percent (default 99.99)
	PerChannel bool     // one weight scale per output channel (else one per tensor)
	Exclude    []string // names of nodes (as in the source model) left in float
	// Depthwise also quantizes depthwise convolutions, which the int8
	// kernels run as one-row products, slower than the float kernel.
	Depthwise bool
	// ReduceRange quantizes the weights to 7 bits, [-63, 63] (ONNX
	// Runtime's reduce_range), for processors without VNNI: their AVX2
	// int8 kernel multiplies bytes with vpmaddubsw, exact only for
	// weights in [-64, 63] (core/backend/cpu's qnarrow.go).
	ReduceRange bool
}

// WeightMax is the largest |int8 weight| the quantizer writes: 127, or 63
// with reduce-range.
func (o Options) WeightMax() int {
	if o.ReduceRange {
		return 63
	}
	return 127
}

// Feed returns calibration input i (of count) as the model's inputs by name.
type Feed func(i int) (map[string]*tensor.Tensor, error)

// Load returns a fresh copy of the float model's graph (the quantizer
// rewrites, and the runtime optimises, graphs in place).
type Load func() (*graph.Graph, error)

// Quantizer holds a model, the nodes it quantizes and their activations'
// calibration statistics.
type Quantizer struct {
	load   Load
	opts   Options
	target []string // names of the output value of each quantized node, in graph order
	stats  map[string]*stats
}

// prepPasses are the float optimisations applied before quantizing: the
// default passes but qdq (nothing is quantized yet) and fuse (whose fused
// conv+activation the qdq pass would not see).
func prepPasses() []string {
	var out []string
	for _, p := range pass.Default {
		if p != "qdq" && p != "fuse" {
			out = append(out, p)
		}
	}
	return out
}

// prepared loads the model and applies prepPasses.
func (q *Quantizer) prepared() (*graph.Graph, error) {
	g, err := q.load()
	if err != nil {
		return nil, err
	}
	if err := pass.Apply(g, prepPasses()); err != nil {
		return nil, err
	}
	return g, nil
}

// New chooses the nodes to quantize: every conv2d with a constant float
// weight (depthwise ones only with opts.Depthwise) and every matmul by a
// constant matrix, less those opts.Exclude names. It fails on an unknown
// method or excluded name.
func New(load Load, opts Options) (*Quantizer, error) {
	if opts.Method == "" {
		opts.Method = "minmax"
	}
	if !slices.Contains(Methods, opts.Method) {
		return nil, fmt.Errorf("method %q: want one of %s", opts.Method, strings.Join(Methods, ", "))
	}
	if opts.Percentile == 0 {
		opts.Percentile = 99.99
	}
	if !(opts.Percentile > 50 && opts.Percentile <= 100) {
		return nil, fmt.Errorf("percentile %g: want a value in (50, 100]", opts.Percentile)
	}
	q := &Quantizer{load: load, opts: opts, stats: map[string]*stats{}}
	g, err := q.prepared()
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for _, n := range g.Nodes {
		names[n.Name] = true
	}
	excl := map[string]bool{}
	for _, e := range opts.Exclude {
		if !names[e] {
			return nil, fmt.Errorf("--exclude %q: the model has no node of that name", e)
		}
		excl[e] = true
	}
	for _, n := range g.Nodes {
		if !excl[n.Name] && q.quantizable(n) {
			q.target = append(q.target, n.Out[0].Name)
		}
	}
	if len(q.target) == 0 {
		return nil, fmt.Errorf("nothing to quantize: the model has no convolution or matrix product by constant weights")
	}
	return q, nil
}

// quantizable reports whether n is a conv2d or matmul the quantizer handles.
func (q *Quantizer) quantizable(n *graph.Node) bool {
	if n.Dynamic() || len(n.In) < 2 {
		return false
	}
	w := n.In[1].Const
	if w == nil || w.DType() != tensor.Float32 {
		return false
	}
	switch n.Op.Name {
	case "conv2d":
		if w.Rank() != 4 {
			return false
		}
		g := n.Attrs.Int("groups", 1)
		return q.opts.Depthwise || g == 1 || w.Dim(1) > 1
	case "matmul":
		return len(n.In) == 2 && w.Rank() == 2 && !n.Attrs.Bool("trans_a", false)
	}
	return false
}

// targets returns the quantized nodes of g (a prepared copy) in order.
func (q *Quantizer) targets(g *graph.Graph) []*graph.Node {
	byOut := map[string]*graph.Node{}
	for _, n := range g.Nodes {
		if len(n.Out) > 0 {
			byOut[n.Out[0].Name] = n
		}
	}
	out := make([]*graph.Node, 0, len(q.target))
	for _, name := range q.target {
		out = append(out, byOut[name])
	}
	return out
}

// Nodes returns the names of the nodes that are quantized, in graph order.
func (q *Quantizer) Nodes() ([]string, error) {
	g, err := q.prepared()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, n := range q.targets(g) {
		out = append(out, n.Name)
	}
	return out, nil
}

// Calibrate runs the float model on count inputs from feed and records
// the range of each quantized node's input activation (twice over the
// inputs for the methods that need a histogram).
func (q *Quantizer) Calibrate(feed Feed, count int) error {
	if count < 1 {
		return fmt.Errorf("no calibration inputs")
	}
	g, err := q.prepared()
	if err != nil {
		return err
	}
	var watch []string
	seen := map[string]bool{}
	for _, n := range q.targets(g) {
		x := n.In[0]
		if !seen[x.Name] {
			seen[x.Name] = true
			watch = append(watch, x.Name)
			g.Outputs = append(g.Outputs, x)
			if g.OutputNames != nil {
				g.OutputNames = append(g.OutputNames, x.Name)
			}
			q.stats[x.Name] = newStats()
		}
	}
	p, err := runtime.New(g, runtime.Options{Passes: []string{"fuse", "dce"}})
	if err != nil {
		return err
	}
	passes := 1
	if needsHist(q.opts.Method) {
		passes = 2
	}
	for round := range passes {
		for i := range count {
			in, err := feed(i)
			if err != nil {
				return err
			}
			out, err := p.Run(in)
			if err != nil {
				return fmt.Errorf("calibration input %d: %w", i, err)
			}
			for _, name := range watch {
				v := out[name]
				if v == nil || v.DType() != tensor.Float32 {
					return fmt.Errorf("calibration: activation %q is not a float32 output", name)
				}
				if round == 0 {
					q.stats[name].observeRange(v.Contiguous().F32())
				} else {
					q.stats[name].observeHist(v.Contiguous().F32())
				}
			}
		}
	}
	return nil
}

// NodeReport is what Quantize did to one node.
type NodeReport struct {
	Name      string  `json:"name"`
	Op        string  `json:"op"`
	Input     string  `json:"input"`
	Min       float64 `json:"min"` // the calibrated range kept of the input
	Max       float64 `json:"max"`
	XScale    float64 `json:"x_scale"`
	XZero     int     `json:"x_zero"`
	WScaleMin float64 `json:"w_scale_min"`
	WScaleMax float64 `json:"w_scale_max"`
	Channels  int     `json:"channels"`
	FloatBias bool    `json:"float_bias,omitempty"`
	// Sensitivity is the relative output error with this node alone
	// quantized (Quantizer.Sensitivity), nil when not measured.
	Sensitivity *float64 `json:"sensitivity,omitempty"`
}

// Quantize returns the prepared model with every chosen node (or, when
// only is not nil, those it names) in QDQ form, and a report per node.
func (q *Quantizer) Quantize(only map[string]bool) (*graph.Graph, []NodeReport, error) {
	g, err := q.prepared()
	if err != nil {
		return nil, nil, err
	}
	var reports []NodeReport
	dq := map[*graph.Value]*graph.Value{} // activation → its dequantized copy
	var added []*graph.Node
	for _, n := range q.targets(g) {
		if only != nil && !only[n.Name] {
			continue
		}
		x := n.In[0]
		st := q.stats[x.Name]
		if st == nil {
			return nil, nil, fmt.Errorf("node %s: not calibrated", n.Label())
		}
		lo, hi, err := st.clipRange(q.opts.Method, q.opts.Percentile)
		if err != nil {
			return nil, nil, fmt.Errorf("node %s: input %q: %w", n.Label(), x.Name, err)
		}
		xs, xz := uint8Params(lo, hi)
		r := NodeReport{Name: n.Name, Op: n.Op.Name, Input: x.Name, Min: lo, Max: hi, XScale: xs, XZero: xz}
		if dq[x] == nil {
			a := op.QDQAttrs([]float64{xs}, []int{xz}, 1, tensor.Uint8)
			qv := &graph.Value{Name: x.Name + "/q", Meta: op.Meta{DType: tensor.Uint8, Shape: x.Meta.Shape}}
			dv := &graph.Value{Name: x.Name + "/dq", Meta: x.Meta}
			added = append(added,
				&graph.Node{Op: op.Lookup("quantize_linear"), Attrs: a, In: []*graph.Value{x}, Out: []*graph.Value{qv}, Name: x.Name + "/QuantizeLinear"},
				&graph.Node{Op: op.Lookup("dequantize_linear"), Attrs: a, In: []*graph.Value{qv}, Out: []*graph.Value{dv}, Name: x.Name + "/DequantizeLinear"})
			dq[x] = dv
		}
		n.In[0] = dq[x]
		wdq, ws := q.quantizeWeight(n, &added)
		n.In[1] = wdq
		r.Channels = len(ws)
		r.WScaleMin, r.WScaleMax = slices.Min(ws), slices.Max(ws)
		if n.Op.Name == "conv2d" && len(n.In) == 3 {
			if b := int32Bias(n, xs, ws, &added); b != nil {
				n.In[2] = b
			} else {
				r.FloatBias = true
			}
		}
		reports = append(reports, r)
	}
	g.Nodes = append(g.Nodes, added...)
	if err := g.Sort(); err != nil {
		return nil, nil, err
	}
	return g, reports, nil
}

// quantizeWeight replaces n's float weight by the dequantize_linear of its
// int8 symmetric quantization to [-WeightMax, WeightMax] (per output
// channel: conv2d axis 0, matmul the N axis) and returns the scales per
// channel (one when per tensor).
func (q *Quantizer) quantizeWeight(n *graph.Node, added *[]*graph.Node) (*graph.Value, []float64) {
	w := n.In[1].Const.Contiguous()
	axis := 0
	if n.Op.Name == "matmul" && !n.Attrs.Bool("trans_b", false) {
		axis = 1
	}
	dim := w.Dim(axis)
	inner := 1
	for _, d := range w.Shape()[axis+1:] {
		inner *= d
	}
	ch := func(i int) int { return i / inner % dim }
	wv := w.F32()
	nsc := 1
	if q.opts.PerChannel {
		nsc = dim
	}
	amax := make([]float64, nsc)
	for i, v := range wv {
		c := 0
		if nsc > 1 {
			c = ch(i)
		}
		amax[c] = max(amax[c], math.Abs(float64(v)))
	}
	qmax := float64(q.opts.WeightMax())
	scale := make([]float64, nsc)
	for c, a := range amax {
		scale[c] = float64(float32(a / qmax))
		if scale[c] == 0 {
			scale[c] = 1
		}
	}
	wq := tensor.New(tensor.Int8, w.Shape()...)
	for i, v := range wv {
		c := 0
		if nsc > 1 {
			c = ch(i)
		}
		wq.I8()[i] = int8(min(max(math.RoundToEven(float64(v)/scale[c]), -qmax), qmax))
	}
	src := n.In[1]
	qv := &graph.Value{Name: src.Name + "/int8", Const: wq, Meta: graph.ConstMeta(wq)}
	dv := &graph.Value{Name: src.Name + "/dq", Meta: op.Meta{DType: tensor.Float32, Shape: w.Shape()}}
	*added = append(*added, &graph.Node{Op: op.Lookup("dequantize_linear"), Attrs: op.QDQAttrs(scale, make([]int, nsc), axis, tensor.Int8),
		In: []*graph.Value{qv}, Out: []*graph.Value{dv}, Name: src.Name + "/DequantizeLinear"})
	return dv, scale
}

// int32Bias replaces a conv's float bias by the dequantize_linear of an
// int32 one in units of x_scale·w_scale (as ONNX Runtime's quantizer
// writes it); nil when a value would not fit in int32.
func int32Bias(n *graph.Node, xs float64, ws []float64, added *[]*graph.Node) *graph.Value {
	b := n.In[2]
	if b.Const == nil || b.Const.DType() != tensor.Float32 || b.Const.Rank() != 1 {
		return nil
	}
	bv := b.Const.Contiguous().F32()
	sc := make([]float64, len(bv))
	bq := tensor.New(tensor.Int32, len(bv))
	for c, v := range bv {
		sc[c] = float64(float32(xs * ws[min(c, len(ws)-1)]))
		r := math.RoundToEven(float64(v) / sc[c])
		if math.Abs(r) > math.MaxInt32 {
			return nil
		}
		bq.I32()[c] = int32(r)
	}
	qv := &graph.Value{Name: b.Name + "/int32", Const: bq, Meta: graph.ConstMeta(bq)}
	dv := &graph.Value{Name: b.Name + "/dq", Meta: op.Meta{DType: tensor.Float32, Shape: b.Const.Shape()}}
	*added = append(*added, &graph.Node{Op: op.Lookup("dequantize_linear"), Attrs: op.QDQAttrs(sc, make([]int, len(sc)), 0, tensor.Int32),
		In: []*graph.Value{qv}, Out: []*graph.Value{dv}, Name: b.Name + "/DequantizeLinear"})
	return dv
}

// Sensitivity measures, for each quantized node alone, the relative error
// of the model's outputs (root mean square of the difference over that of
// the float outputs, the worst output) on count inputs from feed, and
// stores it in the reports (matched by name).
func (q *Quantizer) Sensitivity(feed Feed, count int, reports []NodeReport) error {
	run := func(g *graph.Graph) ([]map[string]*tensor.Tensor, error) {
		p, err := runtime.New(g, runtime.Options{})
		if err != nil {
			return nil, err
		}
		var outs []map[string]*tensor.Tensor
		for i := range count {
			in, err := feed(i)
			if err != nil {
				return nil, err
			}
			o, err := p.Run(in)
			if err != nil {
				return nil, err
			}
			outs = append(outs, o)
		}
		return outs, nil
	}
	g, err := q.prepared()
	if err != nil {
		return err
	}
	ref, err := run(g)
	if err != nil {
		return err
	}
	for i := range reports {
		g, _, err := q.Quantize(map[string]bool{reports[i].Name: true})
		if err != nil {
			return err
		}
		got, err := run(g)
		if err != nil {
			return err
		}
		e := RelError(ref, got)
		reports[i].Sensitivity = &e
	}
	return nil
}

// RelError is the worst, over outputs, of the root mean square difference
// between got and ref relative to ref's root mean square (0 when equal).
func RelError(ref, got []map[string]*tensor.Tensor) float64 {
	names := map[string]bool{}
	for _, m := range ref {
		for k := range m {
			names[k] = true
		}
	}
	keys := make([]string, 0, len(names))
	for k := range names {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	worst := 0.0
	for _, k := range keys {
		var d2, r2 float64
		for i := range ref {
			a, b := ref[i][k], got[i][k]
			if a == nil || b == nil || a.DType() != tensor.Float32 || b.DType() != tensor.Float32 {
				continue
			}
			av, bv := a.Contiguous().F32(), b.Contiguous().F32()
			for j := range min(len(av), len(bv)) {
				d := float64(av[j] - bv[j])
				d2 += d * d
				r2 += float64(av[j]) * float64(av[j])
			}
		}
		if r2 > 0 {
			worst = max(worst, math.Sqrt(d2/r2))
		}
	}
	return worst
}
