// Package op is THE op registry: every primitive operator is one Def with its
// shape rule, reference kernel, backward (written with other ops) and sample
// inputs. Autograd (core/ag), the graph runtime and ONNX import/export all
// read this table; backends register faster kernels by op name.
//
// The exported functions (Add, MatMul, Conv2D, ...) are eager: they run the
// op on tensors right away, with no autograd. VJPs are written with them.
package op

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"

	"paddle/core/tensor"
)

// T is a short name for *tensor.Tensor inside op definitions.
type T = tensor.Tensor

// Meta is what shape inference knows about a value.
type Meta struct {
	DType tensor.DType
	Shape tensor.Shape
}

// MetaOf returns t's dtype and shape.
func MetaOf(t *T) Meta { return Meta{t.DType(), t.Shape()} }

// A Def defines one primitive operator completely.
type Def struct {
	Name  string // IR, checkpoint and trace name: "relu", "conv2d"
	ONNX  string // ONNX op_type of the twin, "" if none
	Arity int    // number of tensor inputs; -1 if variadic

	// Infer returns the outputs' dtypes and shapes, or an error naming the bad input.
	Infer func(in []Meta, a Attrs) ([]Meta, error)
	// Ref is the reference kernel: plain loops, obviously correct. Inputs are
	// contiguous; outputs are allocated (zeroed) from Infer.
	Ref func(out, in []*T, a Attrs)
	// VJP returns one gradient per input (nil where none), written with eager ops.
	VJP func(c *VJPCtx) []*T
	// NoGrad lists input indices that never receive a gradient (indices, shapes).
	NoGrad []int
	// Sample makes small random float64 inputs for the table-driven gradient check.
	Sample func(r *rand.Rand) ([]*T, Attrs)

	// DTypes are the dtypes its first input may have (nil: whatever Infer
	// accepts); InferMeta checks them before the shape rule. Dtypes never
	// promote: a caller casts explicitly.
	DTypes []tensor.DType

	// Export writes the op's ONNX form (nil: it has none, and exporting a
	// graph that holds it is an error naming the node).
	Export ExportRule

	// Overwrites says that its float32 kernels write every output element,
	// so an output buffer needs no clearing first (core/runtime recycles
	// buffers; every other op gets a zeroed one, as Ref expects).
	Overwrites bool
	// InPlace says that its kernels may write the output over the first
	// input (out[0] sharing in[0]'s buffer, same shape): each writes an
	// output element only after reading every input element it still
	// needs. core/runtime then runs it on its input's buffer when that is
	// the input's last use.
	InPlace bool
	// Epilogue, when not nil, marks an elementwise activation that a
	// convolution can apply as it writes its output (conv2d_act, which
	// core/graph/pass fuses).
	Epilogue *Epilogue
}

// Epilogue says how an activation fuses into the op before it.
type Epilogue struct {
	// Gemm is the SGEMMEx epilogue that applies the activation bitwise as
	// its kernel does (GemmActNone: the activation runs after the GEMM).
	Gemm GemmAct
}

// fusable marks d as an activation conv2d_act can fuse (see Def.Epilogue).
func (d *Def) fusable(g GemmAct) *Def {
	d.Epilogue = &Epilogue{Gemm: g}
	return d
}

// overwrites sets d.Overwrites.
func (d *Def) overwrites() *Def {
	d.Overwrites = true
	return d
}

// VJPCtx is what a backward rule sees: the forward inputs and outputs, the
// gradients flowing into each output (nil ones are zero), and the attributes.
type VJPCtx struct {
	In, Out []*T
	GradOut []*T
	Attrs   Attrs
}

// G returns the gradient of output i, materialising zeros when it is nil.
func (c *VJPCtx) G(i int) *T {
	if c.GradOut[i] == nil {
		return tensor.ZerosLike(c.Out[i])
	}
	return c.GradOut[i]
}

// The dtype sets ops name in Def.DTypes.
var (
	FloatDTypes   = []tensor.DType{tensor.Float32, tensor.Float64}
	NumericDTypes = []tensor.DType{tensor.Float32, tensor.Float64, tensor.Int64, tensor.Int32, tensor.Uint8, tensor.Int8}
)

// dtypesWanted names a dtype set for an error message.
func dtypesWanted(ds []tensor.DType) string {
	switch {
	case slices.Equal(ds, FloatDTypes):
		return "a float input"
	case slices.Equal(ds, NumericDTypes):
		return "a numeric input"
	}
	return fmt.Sprintf("an input of %v", ds)
}

// ShapeError is the one panic that crosses this package's API: an op got
// inputs whose shapes or dtypes it cannot take. core/workflow turns it into an error.
type ShapeError struct {
	Op  string
	Err error
}

func (e *ShapeError) Error() string { return e.Op + ": " + e.Err.Error() }
func (e *ShapeError) Unwrap() error { return e.Err }

var (
	mu       sync.RWMutex
	registry = map[string]*Def{}
	onnxMap  = map[string]*Def{}
)

func define(d *Def) *Def {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := registry[d.Name]; dup {
		panic("op: duplicate definition of " + d.Name)
	}
	registry[d.Name] = d
	if d.ONNX != "" {
		if _, ok := onnxMap[d.ONNX]; !ok {
			onnxMap[d.ONNX] = d
		}
	}
	return d
}

// Lookup returns the Def named name, or nil.
func Lookup(name string) *Def {
	mu.RLock()
	defer mu.RUnlock()
	return registry[name]
}

// LookupONNX returns the primitive whose ONNX twin is opType, or nil.
func LookupONNX(opType string) *Def {
	mu.RLock()
	defer mu.RUnlock()
	return onnxMap[opType]
}

// All returns every Def, sorted by name.
func All() []*Def {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]*Def, 0, len(registry))
	for _, d := range registry {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// A Kernel is a backend's implementation of one op. It returns false when it
// does not handle these dtypes/attributes, and the reference kernel runs instead.
type Kernel func(out, in []*T, a Attrs) bool

// Infer runs d's shape inference on the inputs' metas.
func (d *Def) InferMeta(in []Meta, a Attrs) ([]Meta, error) {
	if d.Arity >= 0 && len(in) != d.Arity {
		return nil, fmt.Errorf("want %d inputs, got %d", d.Arity, len(in))
	}
	if d.DTypes != nil && len(in) > 0 && !slices.Contains(d.DTypes, in[0].DType) {
		return nil, fmt.Errorf("want %s, got %v", dtypesWanted(d.DTypes), in[0].DType)
	}
	return d.Infer(in, a)
}

// Call runs d eagerly on the inputs and returns its outputs. It panics with
// *ShapeError when the inputs are not acceptable.
func Call(d *Def, a Attrs, in ...*T) []*T {
	metas := make([]Meta, len(in))
	for i, t := range in {
		metas[i] = MetaOf(t)
	}
	outMeta, err := d.InferMeta(metas, a)
	if err != nil {
		panic(&ShapeError{Op: d.Name, Err: err})
	}
	cin := make([]*T, len(in))
	for i, t := range in {
		cin[i] = t.Contiguous()
	}
	out := make([]*T, len(outMeta))
	for i, m := range outMeta {
		out[i] = tensor.New(m.DType, m.Shape...)
	}
	Run(d, out, cin, a)
	return out
}

// Run executes d into preallocated outputs (contiguous inputs), using the
// active backend's kernel (Kernels.Ops) when it accepts the call and the
// reference otherwise.
func Run(d *Def, out, in []*T, a Attrs) {
	if k := Active().Ops[d.Name]; k != nil && k(out, in, a) {
		return
	}
	d.Ref(out, in, a)
}

func call1(d *Def, a Attrs, in ...*T) *T { return Call(d, a, in...)[0] }
