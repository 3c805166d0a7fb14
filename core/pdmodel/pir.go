package pdmodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"paddle/core/graph"
	"paddle/core/pdmodel/pdpb"
)

// Paddle 3's PIR programs (inference.json) are read by translating them
// into the ProgramDesc form the importer already takes: every pd_op
// operator with a rule in pirOps becomes the Paddle 2 operator it replaced,
// its operands bound by position to the old operator's input slots, and
// constant operands (pd_op.full_int_array, pd_op.full) folded into the
// attributes the old operator had for them. The layout is the one
// paddle/fluid/pir/serialize_deserialize writes (Paddle 3.0): {"base_code":
// {"magic": "pir", "version", "trainable"}, "program": {"regions": [{"#",
// "blocks": [{"#", "args", "ops"}]}]}}; an op is {"#": "<dialect
// id>.<name>", "I": [{"%": value}], "O": [{"%": value, "TT": type}], "A":
// [{"N": name, "AT": {"#": "<dialect id>.a_<kind>", "D": data}}]}, dialect
// ids 0 builtin, 1 pd_op; a parameter is {"#": "p", "O": {...}, "A":
// [is_distributed, is_parameter, need_clip, name]}.

// IsPIR reports whether path names a Paddle 3 PIR program (inference.json).
func IsPIR(path string) bool { return strings.HasSuffix(path, ".json") }

// PIRParamsPath is where the weights of a PIR program are looked for: the
// same name with .pdiparams for .json.
func PIRParamsPath(model string) string {
	return strings.TrimSuffix(model, ".json") + ".pdiparams"
}

// ReadPIRFile reads a PIR program and its weights (params; "" means
// PIRParamsPath(model)) and imports them.
func ReadPIRFile(model, params string) (*graph.Graph, error) {
	b, err := os.ReadFile(model)
	if err != nil {
		return nil, err
	}
	p, err := DecodePIR(b)
	if err != nil {
		return nil, fmt.Errorf("pdmodel: %s: PIR program: %w", model, err)
	}
	if params == "" {
		params = PIRParamsPath(model)
	}
	return importFile(model, params, p)
}

// pirRule is how one pd_op operator maps onto its Paddle 2 operator.
type pirRule struct {
	legacy string
	// in names the old input slot of each operand by position; "=attr"
	// folds a constant operand into attribute attr ("=attr|Slot": or binds
	// it to Slot when it is computed at run time; "=attr|Slot|ListSlot":
	// and a builtin.combine list of tensors to ListSlot); "" drops the operand.
	in  []string
	out []string // the old output slot of each result; "" drops it
	// rename maps PIR attribute names to the old ones.
	rename map[string]string
}

var (
	unaryRule = pirRule{in: []string{"X"}, out: []string{"Out"}}
	binRule   = pirRule{in: []string{"X", "Y"}, out: []string{"Out"}}
	convRule  = pirRule{in: []string{"Input", "Filter"}, out: []string{"Output"}}
)

func rule(r pirRule, legacy string) pirRule { r.legacy = legacy; return r }

// pirOps are the pd_op operators translated (their in-place forms, with a
// trailing "_", too).
var pirOps = map[string]pirRule{
	"conv2d":           rule(convRule, "conv2d"),
	"depthwise_conv2d": rule(convRule, "depthwise_conv2d"),
	"conv2d_transpose": {legacy: "conv2d_transpose", in: []string{"Input", "Filter", "=output_size"}, out: []string{"Output"}},
	"batch_norm": {legacy: "batch_norm", in: []string{"X", "Mean", "Variance", "Scale", "Bias"},
		out:    []string{"Y", "MeanOut", "VarianceOut", "SavedMean", "SavedVariance", "ReserveSpace"},
		rename: map[string]string{"data_format": "data_layout"}},
	"layer_norm":      {legacy: "layer_norm", in: []string{"X", "Scale", "Bias"}, out: []string{"Y", "Mean", "Variance"}},
	"pool2d":          {legacy: "pool2d", in: []string{"X", "=ksize"}, out: []string{"Out"}},
	"relu":            rule(unaryRule, "relu"),
	"relu6":           rule(unaryRule, "relu6"),
	"sigmoid":         rule(unaryRule, "sigmoid"),
	"tanh":            rule(unaryRule, "tanh"),
	"sqrt":            rule(unaryRule, "sqrt"),
	"rsqrt":           rule(unaryRule, "rsqrt"),
	"abs":             rule(unaryRule, "abs"),
	"exp":             rule(unaryRule, "exp"),
	"log":             rule(unaryRule, "log"),
	"floor":           rule(unaryRule, "floor"),
	"erf":             rule(unaryRule, "erf"),
	"silu":            rule(unaryRule, "silu"),
	"swish":           rule(unaryRule, "swish"),
	"gelu":            rule(unaryRule, "gelu"),
	"hardswish":       rule(unaryRule, "hard_swish"),
	"hardsigmoid":     rule(unaryRule, "hard_sigmoid"),
	"leaky_relu":      {legacy: "leaky_relu", in: []string{"X"}, out: []string{"Out"}, rename: map[string]string{"negative_slope": "alpha"}},
	"clip":            {legacy: "clip", in: []string{"X", "=min", "=max"}, out: []string{"Out"}},
	"add":             rule(binRule, "elementwise_add"),
	"subtract":        rule(binRule, "elementwise_sub"),
	"multiply":        rule(binRule, "elementwise_mul"),
	"divide":          rule(binRule, "elementwise_div"),
	"maximum":         rule(binRule, "elementwise_max"),
	"minimum":         rule(binRule, "elementwise_min"),
	"elementwise_pow": rule(binRule, "elementwise_pow"),
	"matmul": {legacy: "matmul_v2", in: []string{"X", "Y"}, out: []string{"Out"},
		rename: map[string]string{"transpose_x": "trans_x", "transpose_y": "trans_y"}},
	"reshape":         {legacy: "reshape2", in: []string{"X", "=shape|Shape|ShapeTensor"}, out: []string{"Out", "XShape"}},
	"transpose":       {legacy: "transpose2", in: []string{"X"}, out: []string{"Out", "XShape"}, rename: map[string]string{"perm": "axis"}},
	"flatten":         {legacy: "flatten_contiguous_range", in: []string{"X"}, out: []string{"Out", "XShape"}},
	"squeeze":         {legacy: "squeeze2", in: []string{"X", "=axes"}, out: []string{"Out", "XShape"}},
	"unsqueeze":       {legacy: "unsqueeze2", in: []string{"X", "=axes"}, out: []string{"Out", "XShape"}},
	"softmax":         rule(unaryRule, "softmax"),
	"scale":           {legacy: "scale", in: []string{"X", "=scale"}, out: []string{"Out"}},
	"concat":          {legacy: "concat", in: []string{"X", "=axis"}, out: []string{"Out"}},
	"slice":           {legacy: "slice", in: []string{"Input", "=starts", "=ends"}, out: []string{"Out"}},
	"bilinear_interp": {legacy: "bilinear_interp_v2", in: []string{"X", "OutSize", "SizeTensor", "Scale"}, out: []string{"Out"}},
	"nearest_interp":  {legacy: "nearest_interp_v2", in: []string{"X", "OutSize", "SizeTensor", "Scale"}, out: []string{"Out"}},
	"cast":            rule(unaryRule, "cast"),
	"shape":           {legacy: "shape", in: []string{"Input"}, out: []string{"Out"}},
	"assign":          rule(unaryRule, "assign"),
	// what Paddle 3's inference passes write (fc_fuse_pass,
	// matmul_add_act_fuse_pass, conv2d_add_act_fuse_pass, conv2d_add_fuse_pass)
	"fc": {legacy: "fc", in: []string{"Input", "W", "Bias"}, out: []string{"Out"}},
	"fused_conv2d_add_act": {legacy: "fused_conv2d_add_act", in: []string{"Input", "Filter", "Bias", "ResidualData"},
		out: []string{"Output", "Outputs"}},
	"multihead_matmul": {legacy: "multihead_matmul", in: []string{"Input", "W", "Bias", "BiasQK"}, out: []string{"Out"}},
	// paddle.nn.LSTM / GRU: pre_state and weight_list are builtin.combine
	// lists, state a vector result that a builtin.split unpacks
	"rnn": {legacy: "rnn", in: []string{"Input", "PreState", "WeightList", "SequenceLength", "DropoutState"},
		out: []string{"Out", "DropoutState", "State", "Reserve"}},
}

// pirDTypes maps PIR element types (t_*) and dtype attribute strings to
// VarType.Type.
var pirDTypes = map[string]pdpb.Type{
	"t_f32": pdpb.FP32, "t_f16": pdpb.FP16, "t_f64": pdpb.FP64, "t_bf16": pdpb.BF16, "t_i64": pdpb.Int64,
	"t_i32": pdpb.Int32, "t_i16": pdpb.Int16, "t_bool": pdpb.Bool, "t_u8": pdpb.Uint8, "t_ui8": pdpb.Uint8, "t_i8": pdpb.Int8,
	"float32": pdpb.FP32, "float16": pdpb.FP16, "float64": pdpb.FP64, "bfloat16": pdpb.BF16, "int64": pdpb.Int64,
	"int32": pdpb.Int32, "int16": pdpb.Int16, "bool": pdpb.Bool, "uint8": pdpb.Uint8, "int8": pdpb.Int8,
}

type pirJSON struct {
	BaseCode *struct {
		Magic   string `json:"magic"`
		Version int64  `json:"version"`
	} `json:"base_code"`
	Program struct {
		Regions []pirRegion `json:"regions"`
	} `json:"program"`
}

type pirRegion struct {
	Blocks []struct {
		Ops []pirOp `json:"ops"`
	} `json:"blocks"`
}

type pirOp struct {
	Name    string            `json:"#"`
	In      []pirValue        `json:"I"`
	Out     json.RawMessage   `json:"O"`
	Attrs   []json.RawMessage `json:"A"`
	Regions []pirRegion       `json:"regions"`
}

// pirValue is an operand or result: "%" is its id ("#" before Paddle 3.0's
// release), TT its type.
type pirValue struct {
	ID   *int64          `json:"%"`
	Old  *int64          `json:"#"`
	Type json.RawMessage `json:"TT"`
}

func (v pirValue) id() int64 {
	switch {
	case v.ID != nil:
		return *v.ID
	case v.Old != nil:
		return *v.Old
	}
	return 0
}

type pirAttr struct {
	Name string `json:"N"`
	AT   struct {
		ID   string          `json:"#"`
		Data json.RawMessage `json:"D"`
	} `json:"AT"`
}

// pirConst is the value of a pd_op.full_int_array or pd_op.full result.
type pirConst struct {
	ints  []int64
	value float64
	shape []int64
	dtype string
	full  bool // pd_op.full: value over shape
}

type pirTranslator struct {
	b      *pdpb.Block
	names  map[int64]string
	consts map[int64]*pirConst
	lists  map[int64][]string // builtin.combine results
	feeds  int
}

// DecodePIR translates a PIR program's JSON into a ProgramDesc for Import.
func DecodePIR(b []byte) (*pdpb.Program, error) {
	var f pirJSON
	d := json.NewDecoder(bytes.NewReader(b))
	if err := d.Decode(&f); err != nil {
		return nil, fmt.Errorf("not PIR JSON: %v", err)
	}
	if f.BaseCode == nil || f.BaseCode.Magic != "pir" {
		return nil, fmt.Errorf(`base_code.magic is not "pir": not a Paddle 3 PIR program`)
	}
	if len(f.Program.Regions) != 1 || len(f.Program.Regions[0].Blocks) != 1 {
		return nil, fmt.Errorf("want one region of one block, got %d regions", len(f.Program.Regions))
	}
	t := &pirTranslator{b: &pdpb.Block{ParentIdx: -1}, names: map[int64]string{}, consts: map[int64]*pirConst{}, lists: map[int64][]string{}}
	for i, o := range f.Program.Regions[0].Blocks[0].Ops {
		if err := t.op(o); err != nil {
			return nil, fmt.Errorf("op %d %q: %w", i, o.Name, err)
		}
	}
	return &pdpb.Program{Blocks: []*pdpb.Block{t.b}, Version: f.BaseCode.Version}, nil
}

// opName splits "<dialect id or name>.<op>" into dialect and name.
func opName(s string) (dialect, name string) {
	d, n, ok := strings.Cut(s, ".")
	if !ok {
		return "", s
	}
	switch d {
	case "0":
		d = "builtin"
	case "1":
		d = "pd_op"
	case "2":
		d = "cf"
	}
	return d, n
}

func (t *pirTranslator) op(o pirOp) error {
	if len(o.Regions) > 0 {
		return fmt.Errorf("control flow (an op with regions) is not supported")
	}
	if o.Name == "p" || o.Name == "builtin.parameter" || o.Name == "0.parameter" {
		return t.param(o)
	}
	attrs, err := decodeAttrs(o.Attrs)
	if err != nil {
		return err
	}
	outs, err := results(o.Out)
	if err != nil {
		return err
	}
	dialect, name := opName(o.Name)
	switch {
	case dialect == "builtin" && name == "combine":
		if len(outs) != 1 {
			return fmt.Errorf("want one result, got %d", len(outs))
		}
		var list []string
		for _, v := range o.In {
			n, err := t.name(v.id())
			if err != nil {
				return err
			}
			list = append(list, n)
		}
		t.lists[outs[0].id()] = list
		return nil
	case dialect == "builtin" && name == "split":
		return t.split(o, outs)
	case dialect != "pd_op":
		return fmt.Errorf("operator %s.%s is not supported", dialect, name)
	}
	switch name {
	case "data":
		return t.data(attrs, outs)
	case "fetch":
		return t.fetch(o, attrs)
	case "full_int_array":
		a := attrs["value"]
		if a == nil || len(outs) != 1 {
			return fmt.Errorf("want a value attribute and one result")
		}
		t.consts[outs[0].id()] = &pirConst{ints: attrInts(a)}
		return t.declare(outs)
	case "full":
		c := &pirConst{full: true, dtype: "float32"}
		if a := attrs["value"]; a != nil {
			c.value = attrFloat(a)
		}
		if a := attrs["shape"]; a != nil {
			c.shape = attrInts(a)
		}
		if a := attrs["dtype"]; a != nil {
			c.dtype = a.S
		}
		if len(outs) != 1 {
			return fmt.Errorf("want one result")
		}
		t.consts[outs[0].id()] = c
		return t.declare(outs)
	}
	r, ok := pirOps[name]
	if !ok {
		r, ok = pirOps[strings.TrimSuffix(name, "_")]
	}
	if !ok {
		return fmt.Errorf("operator pd_op.%s is not supported (supported: %s)", name, strings.Join(PIRSupported(), ", "))
	}
	lo := &pdpb.Op{Type: r.legacy}
	for i, v := range o.In {
		id := v.id()
		if i >= len(r.in) {
			return fmt.Errorf("operand %d: the rule knows %d operands", i, len(r.in))
		}
		slot := r.in[i]
		if slot == "" || id == 0 {
			continue
		}
		listSlot := ""
		if attr, ok := strings.CutPrefix(slot, "="); ok {
			attr, runtimeSlot, _ := strings.Cut(attr, "|")
			runtimeSlot, listSlot, _ = strings.Cut(runtimeSlot, "|")
			c := t.consts[id]
			switch {
			case c != nil:
				lo.Attrs = append(lo.Attrs, c.attr(attr))
				continue
			case runtimeSlot == "":
				return fmt.Errorf("operand %d (%s) is computed at run time; only a constant (full_int_array, full) is supported", i, attr)
			}
			slot = runtimeSlot
		}
		if list, ok := t.lists[id]; ok {
			if listSlot != "" {
				slot = listSlot
			}
			lo.Inputs = append(lo.Inputs, pdpb.Slot{Parameter: slot, Arguments: list})
			continue
		}
		n, err := t.name(id)
		if err != nil {
			return err
		}
		lo.Inputs = append(lo.Inputs, pdpb.Slot{Parameter: slot, Arguments: []string{n}})
	}
	for k, a := range attrs {
		if nk, ok := r.rename[k]; ok {
			k = nk
		}
		if name == "cast" && k == "dtype" {
			dt, ok := pirDTypes[a.S]
			if !ok {
				return fmt.Errorf("cast to %q is not supported", a.S)
			}
			a = &pdpb.Attr{Type: pdpb.AttrInt, I: int32(dt)}
			k = "out_dtype"
		}
		a.Name = k
		lo.Attrs = append(lo.Attrs, a)
	}
	slices.SortFunc(lo.Attrs, func(a, b *pdpb.Attr) int { return strings.Compare(a.Name, b.Name) })
	if err := t.declare(outs); err != nil {
		return err
	}
	for i, v := range outs {
		if i < len(r.out) && r.out[i] != "" && v.id() != 0 {
			lo.Outputs = append(lo.Outputs, pdpb.Slot{Parameter: r.out[i], Arguments: []string{t.names[v.id()]}})
		}
	}
	t.b.Ops = append(t.b.Ops, lo)
	return nil
}

// name is the variable of value id, emitting a fill_constant for a
// pd_op.full result used as a tensor.
func (t *pirTranslator) name(id int64) (string, error) {
	n, ok := t.names[id]
	if !ok {
		return "", fmt.Errorf("operand %%%d is not defined before the op", id)
	}
	if c := t.consts[id]; c != nil && c.ints != nil {
		return "", fmt.Errorf("operand %%%d: a full_int_array used as a tensor is not supported", id)
	}
	if c := t.consts[id]; c != nil && c.full {
		if c.dtype == "" {
			c.dtype = "float32"
		}
		dt, ok := pirDTypes[c.dtype]
		if !ok {
			return "", fmt.Errorf("full of dtype %q is not supported", c.dtype)
		}
		c.full = false // emitted once
		t.b.Ops = append(t.b.Ops, &pdpb.Op{Type: "fill_constant",
			Outputs: []pdpb.Slot{{Parameter: "Out", Arguments: []string{n}}},
			Attrs: []*pdpb.Attr{{Name: "dtype", Type: pdpb.AttrInt, I: int32(dt)},
				{Name: "shape", Type: pdpb.AttrLongs, Longs: c.shape},
				{Name: "value", Type: pdpb.AttrFloat64, Float64: c.value}}})
	}
	return n, nil
}

// attr is the constant as the attribute name: a list for full_int_array,
// the value for full.
func (c *pirConst) attr(name string) *pdpb.Attr {
	if c.ints != nil || !c.full && c.shape == nil {
		return &pdpb.Attr{Name: name, Type: pdpb.AttrLongs, Longs: c.ints}
	}
	if c.value == math.Trunc(c.value) && strings.HasPrefix(c.dtype, "int") {
		return &pdpb.Attr{Name: name, Type: pdpb.AttrLong, L: int64(c.value)}
	}
	return &pdpb.Attr{Name: name, Type: pdpb.AttrFloat64, Float64: c.value}
}

// declare names op results v<id> and declares them as variables.
func (t *pirTranslator) declare(outs []pirValue) error {
	for _, v := range outs {
		id := v.id()
		if id == 0 {
			continue
		}
		n := "v" + strconv.FormatInt(id, 10)
		vr, err := varOf(n, v.Type)
		if err != nil {
			return fmt.Errorf("result %%%d: %w", id, err)
		}
		t.names[id] = n
		t.b.Vars = append(t.b.Vars, vr)
	}
	return nil
}

// varOf declares a variable of a PIR type (a dense tensor; others get no
// dims).
func varOf(name string, tt json.RawMessage) (*pdpb.Var, error) {
	v := &pdpb.Var{Name: name, Type: pdpb.LoDTensor, DType: pdpb.FP32}
	if len(tt) == 0 {
		return v, nil
	}
	var ty struct {
		ID   string            `json:"#"`
		Data []json.RawMessage `json:"D"`
	}
	if err := json.Unmarshal(tt, &ty); err != nil {
		return nil, fmt.Errorf("type: %v", err)
	}
	if _, n := opName(ty.ID); n != "t_dtensor" || len(ty.Data) < 2 {
		return v, nil
	}
	var el struct {
		ID string `json:"#"`
	}
	if err := json.Unmarshal(ty.Data[0], &el); err != nil {
		return nil, fmt.Errorf("element type: %v", err)
	}
	_, en := opName(el.ID)
	dt, ok := pirDTypes[en]
	if !ok {
		return nil, fmt.Errorf("element type %q is not supported", el.ID)
	}
	v.DType = dt
	if err := json.Unmarshal(ty.Data[1], &v.Dims); err != nil {
		return nil, fmt.Errorf("dims: %v", err)
	}
	return v, nil
}

func results(raw json.RawMessage) ([]pirValue, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var outs []pirValue
	if raw[0] == '{' {
		var one pirValue
		if err := json.Unmarshal(raw, &one); err != nil {
			return nil, fmt.Errorf("results: %v", err)
		}
		return []pirValue{one}, nil
	}
	if err := json.Unmarshal(raw, &outs); err != nil {
		return nil, fmt.Errorf("results: %v", err)
	}
	return outs, nil
}

// param declares a parameter: "A" is [is_distributed, is_parameter,
// need_clip, name].
func (t *pirTranslator) param(o pirOp) error {
	outs, err := results(o.Out)
	if err != nil {
		return err
	}
	if len(outs) != 1 || len(o.Attrs) < 4 {
		return fmt.Errorf("a parameter wants one result and 4 attributes, got %d and %d", len(outs), len(o.Attrs))
	}
	var name string
	if err := json.Unmarshal(o.Attrs[3], &name); err != nil || name == "" {
		return fmt.Errorf("parameter name (A[3]) is not a string")
	}
	v, err := varOf(name, outs[0].Type)
	if err != nil {
		return fmt.Errorf("parameter %q: %w", name, err)
	}
	v.Persistable = true
	t.names[outs[0].id()] = name
	t.b.Vars = append(t.b.Vars, v)
	return nil
}

func (t *pirTranslator) data(attrs map[string]*pdpb.Attr, outs []pirValue) error {
	n := attrs["name"]
	if n == nil || n.S == "" || len(outs) != 1 {
		return fmt.Errorf("want a name attribute and one result")
	}
	v, err := varOf(n.S, outs[0].Type)
	if err != nil {
		return err
	}
	if s := attrs["shape"]; s != nil && len(s.Longs) > 0 {
		v.Dims = s.Longs
	}
	if d := attrs["dtype"]; d != nil {
		if dt, ok := pirDTypes[d.S]; ok {
			v.DType = dt
		}
	}
	t.names[outs[0].id()] = n.S
	t.b.Vars = append(t.b.Vars, v)
	t.b.Ops = append(t.b.Ops, &pdpb.Op{Type: "feed", Inputs: []pdpb.Slot{{Parameter: "X", Arguments: []string{"feed"}}},
		Outputs: []pdpb.Slot{{Parameter: "Out", Arguments: []string{n.S}}},
		Attrs:   []*pdpb.Attr{{Name: "col", Type: pdpb.AttrInt, I: int32(t.feeds)}}})
	t.feeds++
	return nil
}

func (t *pirTranslator) fetch(o pirOp, attrs map[string]*pdpb.Attr) error {
	if len(o.In) != 1 {
		return fmt.Errorf("want one operand, got %d", len(o.In))
	}
	x, err := t.name(o.In[0].id())
	if err != nil {
		return err
	}
	col := int32(0)
	if c := attrs["col"]; c != nil {
		col = c.I
	}
	if n := attrs["name"]; n != nil && n.S != "" && n.S != x {
		x = t.rename(x, n.S)
	}
	t.b.Ops = append(t.b.Ops, &pdpb.Op{Type: "fetch", Inputs: []pdpb.Slot{{Parameter: "X", Arguments: []string{x}}},
		Outputs: []pdpb.Slot{{Parameter: "Out", Arguments: []string{"fetch"}}},
		Attrs:   []*pdpb.Attr{{Name: "col", Type: pdpb.AttrInt, I: col}}})
	return nil
}

// rename gives variable from the name to, the name Paddle's predictor
// knows the output by (fetch's name), unless another variable has it.
func (t *pirTranslator) rename(from, to string) string {
	for _, v := range t.b.Vars {
		if v.Name == to {
			return from
		}
	}
	for _, v := range t.b.Vars {
		if v.Name == from {
			v.Name = to
		}
	}
	for _, o := range t.b.Ops {
		for _, slots := range [][]pdpb.Slot{o.Inputs, o.Outputs} {
			for _, s := range slots {
				for i, a := range s.Arguments {
					if a == from {
						s.Arguments[i] = to
					}
				}
			}
		}
	}
	for id, n := range t.names {
		if n == from {
			t.names[id] = to
		}
	}
	return to
}

// decodeAttrs converts an op's attributes into OpDesc attributes by their
// kind (a_bool, a_i32, a_i64, a_f32, a_f64, a_str, a_array, a_intarray,
// a_dtype, a_scalar); places and layouts are dropped.
func decodeAttrs(raw []json.RawMessage) (map[string]*pdpb.Attr, error) {
	out := map[string]*pdpb.Attr{}
	for _, r := range raw {
		var a pirAttr
		if err := json.Unmarshal(r, &a); err != nil {
			return nil, fmt.Errorf("attribute: %v", err)
		}
		v, err := decodeAttr(a.AT.ID, a.AT.Data)
		if err != nil {
			return nil, fmt.Errorf("attribute %q: %w", a.Name, err)
		}
		if v != nil {
			out[a.Name] = v
		}
	}
	return out, nil
}

func decodeAttr(id string, data json.RawMessage) (*pdpb.Attr, error) {
	_, kind := opName(id)
	a := &pdpb.Attr{}
	var err error
	switch kind {
	case "a_bool":
		a.Type = pdpb.AttrBool
		err = json.Unmarshal(data, &a.B)
	case "a_i32":
		a.Type = pdpb.AttrInt
		err = json.Unmarshal(data, &a.I)
	case "a_i64", "a_index":
		a.Type = pdpb.AttrLong
		err = json.Unmarshal(data, &a.L)
	case "a_f32":
		a.Type = pdpb.AttrFloat
		err = json.Unmarshal(data, &a.F)
	case "a_f64":
		a.Type = pdpb.AttrFloat64
		err = json.Unmarshal(data, &a.Float64)
	case "a_str", "a_dtype":
		a.Type = pdpb.AttrString
		err = json.Unmarshal(data, &a.S)
	case "a_intarray":
		a.Type = pdpb.AttrLongs
		err = json.Unmarshal(data, &a.Longs)
	case "a_scalar": // [dtype, value]
		var d []json.RawMessage
		if err = json.Unmarshal(data, &d); err == nil && len(d) == 2 {
			a.Type = pdpb.AttrFloat64
			err = json.Unmarshal(d[1], &a.Float64)
		} else if err == nil {
			err = fmt.Errorf("scalar %s: want [dtype, value]", data)
		}
	case "a_array":
		return decodeArray(data)
	case "a_place", "a_layout", "a_tensorname":
		return nil, nil
	default:
		return nil, fmt.Errorf("kind %q is not supported", id)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", id, err)
	}
	return a, nil
}

// decodeArray reads an a_array by the kind of its elements.
func decodeArray(data json.RawMessage) (*pdpb.Attr, error) {
	var items []struct {
		ID   string          `json:"#"`
		Data json.RawMessage `json:"D"`
	}
	if err := json.Unmarshal(data, &items); err != nil {
		return nil, fmt.Errorf("array: %v", err)
	}
	a := &pdpb.Attr{Type: pdpb.AttrInts}
	for i, it := range items {
		v, err := decodeAttr(it.ID, it.Data)
		if err != nil {
			return nil, fmt.Errorf("item %d: %w", i, err)
		}
		if v == nil {
			continue
		}
		switch v.Type {
		case pdpb.AttrInt:
			a.Type, a.Ints = pdpb.AttrInts, append(a.Ints, v.I)
		case pdpb.AttrLong:
			a.Type, a.Longs = pdpb.AttrLongs, append(a.Longs, v.L)
		case pdpb.AttrFloat:
			a.Type, a.Floats = pdpb.AttrFloats, append(a.Floats, v.F)
		case pdpb.AttrFloat64:
			a.Type, a.Float64s = pdpb.AttrFloat64s, append(a.Float64s, v.Float64)
		case pdpb.AttrString:
			a.Type, a.Strings = pdpb.AttrStrings, append(a.Strings, v.S)
		case pdpb.AttrBool:
			a.Type, a.Bools = pdpb.AttrBools, append(a.Bools, v.B)
		default:
			return nil, fmt.Errorf("item %d: nested arrays are not supported", i)
		}
	}
	return a, nil
}

func attrInts(a *pdpb.Attr) []int64 {
	switch a.Type {
	case pdpb.AttrLongs:
		return a.Longs
	case pdpb.AttrInts:
		out := make([]int64, len(a.Ints))
		for i, x := range a.Ints {
			out[i] = int64(x)
		}
		return out
	}
	return []int64{}
}

func attrFloat(a *pdpb.Attr) float64 {
	switch a.Type {
	case pdpb.AttrFloat:
		return float64(a.F)
	case pdpb.AttrFloat64:
		return a.Float64
	case pdpb.AttrInt:
		return float64(a.I)
	case pdpb.AttrLong:
		return float64(a.L)
	}
	return 0
}

// PIRSupported lists the pd_op operators the PIR reader translates (data,
// fetch, full and full_int_array included), for docs and error messages.
func PIRSupported() []string {
	out := []string{"data", "fetch", "full", "full_int_array"}
	for k := range pirOps {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// split unpacks a vector result (builtin.split of it): the output slot of
// the translated op that produced the vector gets the split's results as
// its list of variables (an unused result, id 0, a name of its own).
func (t *pirTranslator) split(o pirOp, outs []pirValue) error {
	if len(o.In) != 1 {
		return fmt.Errorf("want one operand, got %d", len(o.In))
	}
	src, err := t.name(o.In[0].id())
	if err != nil {
		return err
	}
	if err := t.declare(outs); err != nil {
		return err
	}
	list := make([]string, len(outs))
	for i, v := range outs {
		if v.id() == 0 {
			list[i] = fmt.Sprintf("%s_%d", src, i)
			t.b.Vars = append(t.b.Vars, &pdpb.Var{Name: list[i], Type: pdpb.LoDTensor, DType: pdpb.FP32})
			continue
		}
		list[i] = t.names[v.id()]
	}
	for i := len(t.b.Ops) - 1; i >= 0; i-- {
		for k, sl := range t.b.Ops[i].Outputs {
			if len(sl.Arguments) == 1 && sl.Arguments[0] == src {
				t.b.Ops[i].Outputs[k].Arguments = list
				return nil
			}
		}
	}
	return fmt.Errorf("operand %s is not the vector result of a translated operator", src)
}
