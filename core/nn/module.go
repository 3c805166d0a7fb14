// Package nn holds paddle's layers, losses and initialisers, written over the
// differentiable ops of core/ag.
//
// Where things are:
//
//	module.go        Module, Param, Bufferer, Layer, Collect, State/LoadState, ToDType
//	init.go          Kaiming, Xavier, truncated normal, constant, PyTorch's Linear/Conv default
//	linear.go        Linear, Embedding
//	conv.go          Conv1D, Conv2D (groups, depthwise), ConvTranspose2D
//	norm.go          BatchNorm1D/2D, LayerNorm, GroupNorm (over core/op's fused norm primitives)
//	pool.go          MaxPool2D, AvgPool2D, AdaptiveAvgPool2D, Upsample
//	dropout.go       Dropout (explicit *rand.Rand)
//	rnn.go           LSTM, GRU (PyTorch gate order and parameter names)
//	attention.go     MultiHeadAttention, TransformerEncoderLayer, TransformerEncoder
//	sequential.go    Sequential, Activation, Flatten
//	loss.go          MSE, L1, SmoothL1, BCEWithLogits, SigmoidFocal, Dice
//	crossentropy.go  CrossEntropy (PyTorch's weighted mean, smoothing, ignore_index)
//	ctc.go           CTCLoss: a primitive with a log-space forward-backward VJP
//	ops.go           small helpers over core/ag (narrow, chunk, concat)
//
// Layers follow PyTorch's parameter layouts and names ("weight" (out, in) for
// Linear, "weight_ih_l0" for LSTM), so reference weights load as they are.
package nn

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"paddle/core/ag"
	"paddle/core/tensor"
)

// Param is a named tensor of a module: a trainable parameter or a buffer
// (running statistics). Names are dotted paths ("backbone.conv1.weight") used
// by checkpoints and export.
type Param struct {
	Name string
	V    *ag.Var
}

// A Module is a layer or a model. Params lists its trainable tensors in a
// fixed order with dotted names.
type Module interface {
	Params() []Param
}

// A Bufferer is a Module with non-trainable state that checkpoints must keep
// (BatchNorm's running mean and variance).
type Bufferer interface {
	Buffers() []Param
}

// A Layer is a Module with one input and one output. training selects the
// training behaviour of BatchNorm and Dropout; other layers ignore it.
type Layer interface {
	Module
	Forward(x *ag.Var, training bool) *ag.Var
}

// Collect concatenates the parameters of named parts in order, prefixing
// each name with its part's name: Collect("conv1", m.conv1, "bn1", m.bn1).
// A part is a Module, an *ag.Var (a parameter of its own, named exactly) or
// nil, typed or not (skipped: an absent bias or optional sub-module). It panics on a malformed argument list, a
// programmer error.
func Collect(name string, part any, more ...any) []Param {
	return collect(false, append([]any{name, part}, more...))
}

// CollectBuffers is Collect for buffers: it gathers Buffers() of the parts
// that are Bufferers; *ag.Var parts are taken as buffers themselves.
func CollectBuffers(name string, part any, more ...any) []Param {
	return collect(true, append([]any{name, part}, more...))
}

func collect(buffers bool, args []any) []Param {
	if len(args)%2 != 0 {
		panic("nn: Collect wants name, part pairs")
	}
	var out []Param
	for i := 0; i < len(args); i += 2 {
		name, ok := args[i].(string)
		if !ok {
			panic(fmt.Sprintf("nn: Collect argument %d is %T, want a name", i, args[i]))
		}
		switch p := args[i+1].(type) {
		case nil:
		case *ag.Var:
			if p != nil {
				out = append(out, Param{name, p})
			}
		case Module:
			if v := reflect.ValueOf(p); v.Kind() == reflect.Pointer && v.IsNil() {
				continue // an absent optional part: a nil *LayerNorm
			}
			var ps []Param
			if buffers {
				if b, ok := p.(Bufferer); ok {
					ps = b.Buffers()
				}
			} else {
				ps = p.Params()
			}
			out = append(out, Prefix(name, ps)...)
		default:
			panic(fmt.Sprintf("nn: Collect part %q is %T, want a Module or *ag.Var", name, args[i+1]))
		}
	}
	return out
}

// Prefix returns ps with "prefix." added to every name (nothing when prefix is "").
func Prefix(prefix string, ps []Param) []Param {
	if prefix == "" {
		return ps
	}
	out := make([]Param, len(ps))
	for i, p := range ps {
		out[i] = Param{prefix + "." + p.Name, p.V}
	}
	return out
}

// Buffers returns m's buffers, or nil when m keeps none.
func Buffers(m Module) []Param {
	if b, ok := m.(Bufferer); ok {
		return b.Buffers()
	}
	return nil
}

// State returns m's parameters and buffers by name (the tensors themselves,
// not copies): what a checkpoint saves.
func State(m Module) map[string]*tensor.Tensor {
	out := map[string]*tensor.Tensor{}
	for _, p := range append(m.Params(), Buffers(m)...) {
		out[p.Name] = p.V.T
	}
	return out
}

// LoadState copies tensors into m's parameters and buffers by name. Every
// parameter and buffer must be present with its shape; values are cast to
// the parameter's dtype. Extra keys are an error too, so typos show up.
func LoadState(m Module, state map[string]*tensor.Tensor) error {
	all := append(m.Params(), Buffers(m)...)
	seen := map[string]bool{}
	var missing []string
	for _, p := range all {
		seen[p.Name] = true
		t, ok := state[p.Name]
		if !ok {
			missing = append(missing, p.Name)
			continue
		}
		if !t.Shape().Equal(p.V.T.Shape()) {
			return fmt.Errorf("load %s: shape %v, want %v", p.Name, t.Shape(), p.V.T.Shape())
		}
		p.V.T.CopyFrom(t.Cast(p.V.T.DType()))
	}
	if len(missing) > 0 {
		return fmt.Errorf("load state: missing %s", strings.Join(missing, ", "))
	}
	var extra []string
	for k := range state {
		if !seen[k] {
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		return fmt.Errorf("load state: unknown keys %s", strings.Join(extra, ", "))
	}
	return nil
}

// ToDType converts m's parameters and buffers to dtype d in place (float64
// for gradient checks). Gradients are dropped.
func ToDType(m Module, d tensor.DType) {
	for _, p := range append(m.Params(), Buffers(m)...) {
		if p.V.T.DType().IsFloat() && p.V.T.DType() != d {
			p.V.T = p.V.T.Cast(d)
		}
		p.V.Grad = nil
	}
}

// ZeroGrad drops the gradients of all of m's parameters.
func ZeroGrad(m Module) {
	for _, p := range m.Params() {
		p.V.ZeroGrad()
	}
}

// NumParams is the number of scalar parameters of m.
func NumParams(m Module) int {
	n := 0
	for _, p := range m.Params() {
		n += p.V.T.Len()
	}
	return n
}

// newParam allocates a float32 parameter of the given shape.
func newParam(shape ...int) *ag.Var { return ag.Param(tensor.New(tensor.Float32, shape...)) }

// newBuffer allocates a float32 buffer (no gradient) filled with v.
func newBuffer(v float64, shape ...int) *ag.Var {
	return ag.Const(tensor.Full(tensor.Float32, v, shape...))
}
