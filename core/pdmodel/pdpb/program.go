// Package pdpb decodes PaddlePaddle 2.x inference files: the ProgramDesc
// protobuf of an inference.pdmodel (framework.proto in this folder lists the
// fields read) and the tensor stream of an inference.pdiparams (params.go).
// Decoding is hand-written on protowire, as core/onnx/onnxpb does for ONNX:
// every length is checked against what is left of the input before anything
// is allocated, and every error names the path of the bad field
// ("blocks[0].ops[3].attrs[1]: ...").
package pdpb

import (
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"

	"google.golang.org/protobuf/encoding/protowire"

	"paddle/core/io/protopath"
)

// Type is VarType.Type: a data type (BOOL .. FP64, UINT8, INT8, ...) or a
// variable kind (LOD_TENSOR, FEED_MINIBATCH, FETCH_LIST, ...).
type Type int32

// The VarType.Type values paddle reads.
const (
	Bool          Type = 0
	Int16         Type = 1
	Int32         Type = 2
	Int64         Type = 3
	FP16          Type = 4
	FP32          Type = 5
	FP64          Type = 6
	LoDTensor     Type = 7
	SelectedRows  Type = 8
	FeedMinibatch Type = 9
	FetchList     Type = 10
	Raw           Type = 17
	Uint8         Type = 20
	Int8          Type = 21
	BF16          Type = 22
)

var typeNames = map[Type]string{Bool: "BOOL", Int16: "INT16", Int32: "INT32", Int64: "INT64", FP16: "FP16",
	FP32: "FP32", FP64: "FP64", LoDTensor: "LOD_TENSOR", SelectedRows: "SELECTED_ROWS",
	FeedMinibatch: "FEED_MINIBATCH", FetchList: "FETCH_LIST", 13: "LOD_TENSOR_ARRAY", Raw: "RAW",
	Uint8: "UINT8", Int8: "INT8", BF16: "BF16", 23: "COMPLEX64", 24: "COMPLEX128"}

// String returns Paddle's name of the type ("FP32", "LOD_TENSOR").
func (t Type) String() string {
	if s, ok := typeNames[t]; ok {
		return s
	}
	return "Type(" + strconv.Itoa(int(t)) + ")"
}

// AttrType is an OpDesc.Attr's type.
type AttrType int32

// The attribute types of framework.proto.
const (
	AttrInt      AttrType = 0
	AttrFloat    AttrType = 1
	AttrString   AttrType = 2
	AttrInts     AttrType = 3
	AttrFloats   AttrType = 4
	AttrStrings  AttrType = 5
	AttrBool     AttrType = 6
	AttrBools    AttrType = 7
	AttrBlock    AttrType = 8
	AttrLong     AttrType = 9
	AttrBlocks   AttrType = 10
	AttrLongs    AttrType = 11
	AttrFloat64s AttrType = 12
	AttrVar      AttrType = 13
	AttrVars     AttrType = 14
	AttrFloat64  AttrType = 15
)

// Program is a decoded ProgramDesc.
type Program struct {
	Blocks  []*Block
	Version int64 // Version.version; 0 when absent
}

// Block is a BlockDesc.
type Block struct {
	Idx, ParentIdx int32
	Vars           []*Var
	Ops            []*Op
}

// Var is a VarDesc with its VarType flattened: Type is the kind (LOD_TENSOR,
// FEED_MINIBATCH, ...); DType, Dims and LoDLevel come from its lod_tensor
// (or selected_rows) TensorDesc.
type Var struct {
	Name                                  string
	Type                                  Type
	DType                                 Type
	Dims                                  []int64 // -1: unknown before run time
	LoDLevel                              int32
	Persistable, NeedCheckFeed, Parameter bool
}

// Op is an OpDesc.
type Op struct {
	Type            string
	Inputs, Outputs []Slot
	Attrs           []*Attr
}

// Slot is an OpDesc.Var: a named input or output and the variables bound to it.
type Slot struct {
	Parameter string
	Arguments []string
}

// Attr is an OpDesc.Attr; the field that Type names holds the value.
type Attr struct {
	Name     string
	Type     AttrType
	I        int32
	F        float32
	S        string
	Ints     []int32
	Floats   []float32
	Strings  []string
	B        bool
	Bools    []bool
	BlockIdx int32
	L        int64
	Blocks   []int32
	Longs    []int64
	Float64s []float64
	VarName  string
	VarNames []string
	Float64  float64
}

// Input returns the arguments of the op's input slot name (nil if absent).
func (o *Op) Input(name string) []string { return slotArgs(o.Inputs, name) }

// Output returns the arguments of the op's output slot name (nil if absent).
func (o *Op) Output(name string) []string { return slotArgs(o.Outputs, name) }

func slotArgs(s []Slot, name string) []string {
	for _, v := range s {
		if v.Parameter == name {
			return v.Arguments
		}
	}
	return nil
}

// Attr returns the attribute name, or nil.
func (o *Op) Attr(name string) *Attr {
	for _, a := range o.Attrs {
		if a.Name == name {
			return a
		}
	}
	return nil
}

// Error is a decoding error: the file (when known), the field path and the
// cause (format "pdmodel").
type Error = protopath.Error

const format = "pdmodel"

func at(err error, elem string) error             { return protopath.At(format, err, elem) }
func atIndex(err error, name string, i int) error { return protopath.AtIndex(format, err, name, i) }

// ReadProgram reads and decodes an inference.pdmodel.
func ReadProgram(path string) (*Program, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	p, err := DecodeProgram(b)
	if err != nil {
		var de *Error
		if errors.As(err, &de) {
			de.File = path
		}
		return nil, err
	}
	return p, nil
}

// DecodeProgram decodes a serialized ProgramDesc.
func DecodeProgram(b []byte) (*Program, error) {
	p := &Program{}
	err := fields(b, func(f field) error {
		switch f.key() {
		case key(1, protowire.BytesType):
			blk := &Block{}
			if err := decodeBlock(f.b, blk); err != nil {
				return atIndex(err, "blocks", len(p.Blocks))
			}
			p.Blocks = append(p.Blocks, blk)
		case key(4, protowire.BytesType):
			if err := fields(f.b, func(g field) error {
				if g.key() == key(1, protowire.VarintType) {
					p.Version = int64(g.v)
				}
				return nil
			}); err != nil {
				return at(err, "version")
			}
		}
		return nil
	})
	if err != nil {
		var de *Error
		if !errors.As(err, &de) {
			err = protopath.Top(format, err)
		}
		return nil, err
	}
	if len(p.Blocks) == 0 {
		return nil, protopath.Top(format, fmt.Errorf("no blocks: not a ProgramDesc"))
	}
	return p, nil
}

func decodeBlock(b []byte, blk *Block) error {
	return fields(b, func(f field) error {
		switch f.key() {
		case key(1, protowire.VarintType):
			blk.Idx = int32(f.v)
		case key(2, protowire.VarintType):
			blk.ParentIdx = int32(f.v)
		case key(3, protowire.BytesType):
			v := &Var{}
			if err := decodeVar(f.b, v); err != nil {
				return atIndex(err, "vars", len(blk.Vars))
			}
			blk.Vars = append(blk.Vars, v)
		case key(4, protowire.BytesType):
			o := &Op{}
			if err := decodeOp(f.b, o); err != nil {
				return atIndex(err, "ops", len(blk.Ops))
			}
			blk.Ops = append(blk.Ops, o)
		}
		return nil
	})
}

func decodeVar(b []byte, v *Var) error {
	err := fields(b, func(f field) error {
		switch f.key() {
		case key(1, protowire.BytesType):
			v.Name = string(f.b)
		case key(2, protowire.BytesType):
			if err := decodeVarType(f.b, v); err != nil {
				return at(err, "type")
			}
		case key(3, protowire.VarintType):
			v.Persistable = f.v != 0
		case key(4, protowire.VarintType):
			v.NeedCheckFeed = f.v != 0
		case key(5, protowire.VarintType):
			v.Parameter = f.v != 0
		}
		return nil
	})
	if err != nil && v.Name != "" {
		return at(err, strconv.Quote(v.Name))
	}
	return err
}

func decodeVarType(b []byte, v *Var) error {
	return fields(b, func(f field) error {
		switch f.key() {
		case key(1, protowire.VarintType):
			v.Type = Type(int32(f.v))
		case key(2, protowire.BytesType): // selected_rows: a TensorDesc
			if err := decodeTensorDesc(f.b, &v.DType, &v.Dims); err != nil {
				return at(err, "selected_rows")
			}
		case key(3, protowire.BytesType), key(4, protowire.BytesType): // lod_tensor, tensor_array
			name := "lod_tensor"
			if f.num == 4 {
				name = "tensor_array"
			}
			if err := fields(f.b, func(g field) error {
				switch g.key() {
				case key(1, protowire.BytesType):
					if err := decodeTensorDesc(g.b, &v.DType, &v.Dims); err != nil {
						return at(err, "tensor")
					}
				case key(2, protowire.VarintType):
					v.LoDLevel = int32(g.v)
				}
				return nil
			}); err != nil {
				return at(err, name)
			}
		}
		return nil
	})
}

// DecodeTensorDesc decodes a VarType.TensorDesc: data type and dims.
func DecodeTensorDesc(b []byte) (Type, []int64, error) {
	var t Type
	var dims []int64
	err := decodeTensorDesc(b, &t, &dims)
	return t, dims, err
}

func decodeTensorDesc(b []byte, t *Type, dims *[]int64) error {
	return fields(b, func(f field) error {
		switch f.num {
		case 1:
			if f.typ != protowire.VarintType {
				return wrongType(f, "data_type")
			}
			*t = Type(int32(f.v))
		case 2:
			return appendVarints(f, "dims", func(x uint64) { *dims = append(*dims, int64(x)) })
		}
		return nil
	})
}

func decodeOp(b []byte, o *Op) error {
	err := fields(b, func(f field) error {
		switch f.key() {
		case key(1, protowire.BytesType), key(2, protowire.BytesType):
			s, err := decodeSlot(f.b)
			if f.num == 1 {
				if err != nil {
					return atIndex(err, "inputs", len(o.Inputs))
				}
				o.Inputs = append(o.Inputs, s)
			} else {
				if err != nil {
					return atIndex(err, "outputs", len(o.Outputs))
				}
				o.Outputs = append(o.Outputs, s)
			}
		case key(3, protowire.BytesType):
			o.Type = string(f.b)
		case key(4, protowire.BytesType):
			a := &Attr{}
			if err := decodeAttr(f.b, a); err != nil {
				return atIndex(err, "attrs", len(o.Attrs))
			}
			o.Attrs = append(o.Attrs, a)
		}
		return nil
	})
	if err != nil && o.Type != "" {
		return at(err, "("+o.Type+")")
	}
	return err
}

func decodeSlot(b []byte) (Slot, error) {
	var s Slot
	err := fields(b, func(f field) error {
		switch f.key() {
		case key(1, protowire.BytesType):
			s.Parameter = string(f.b)
		case key(2, protowire.BytesType):
			s.Arguments = append(s.Arguments, string(f.b))
		}
		return nil
	})
	return s, err
}

func decodeAttr(b []byte, a *Attr) error {
	err := fields(b, func(f field) error {
		switch f.num {
		case 1:
			if f.typ != protowire.BytesType {
				return wrongType(f, "name")
			}
			a.Name = string(f.b)
		case 2:
			if f.typ != protowire.VarintType {
				return wrongType(f, "type")
			}
			a.Type = AttrType(int32(f.v))
		case 3:
			return scalarVarint(f, "i", func(x uint64) { a.I = int32(x) })
		case 4:
			if f.typ != protowire.Fixed32Type {
				return wrongType(f, "f")
			}
			a.F = math.Float32frombits(uint32(f.v))
		case 5, 17:
			if f.typ != protowire.BytesType {
				return wrongType(f, "s")
			}
			if f.num == 5 {
				a.S = string(f.b)
			} else {
				a.VarName = string(f.b)
			}
		case 6:
			return appendVarints(f, "ints", func(x uint64) { a.Ints = append(a.Ints, int32(x)) })
		case 7:
			return appendFixed32(f, "floats", func(x uint32) { a.Floats = append(a.Floats, math.Float32frombits(x)) })
		case 8, 18:
			if f.typ != protowire.BytesType {
				return wrongType(f, "strings")
			}
			if f.num == 8 {
				a.Strings = append(a.Strings, string(f.b))
			} else {
				a.VarNames = append(a.VarNames, string(f.b))
			}
		case 10:
			return scalarVarint(f, "b", func(x uint64) { a.B = x != 0 })
		case 11:
			return appendVarints(f, "bools", func(x uint64) { a.Bools = append(a.Bools, x != 0) })
		case 12:
			return scalarVarint(f, "block_idx", func(x uint64) { a.BlockIdx = int32(x) })
		case 13:
			return scalarVarint(f, "l", func(x uint64) { a.L = int64(x) })
		case 14:
			return appendVarints(f, "blocks_idx", func(x uint64) { a.Blocks = append(a.Blocks, int32(x)) })
		case 15:
			return appendVarints(f, "longs", func(x uint64) { a.Longs = append(a.Longs, int64(x)) })
		case 16:
			return appendFixed64(f, "float64s", func(x uint64) { a.Float64s = append(a.Float64s, math.Float64frombits(x)) })
		case 19:
			if f.typ != protowire.Fixed64Type {
				return wrongType(f, "float64")
			}
			a.Float64 = math.Float64frombits(f.v)
		}
		return nil
	})
	if err != nil && a.Name != "" {
		return at(err, strconv.Quote(a.Name))
	}
	return err
}

// Persistables returns the names of the variables of block 0 whose values
// the .pdiparams holds, in its order: the persistable ones except feed,
// fetch and raw variables, sorted by name (save_inference_model's
// save_vars, and the predictor's load_combine, sort them so).
func (p *Program) Persistables() []string {
	var names []string
	for _, v := range p.Blocks[0].Vars {
		if v.Persistable && v.Type != FeedMinibatch && v.Type != FetchList && v.Type != Raw {
			names = append(names, v.Name)
		}
	}
	sort.Strings(names)
	return names
}
