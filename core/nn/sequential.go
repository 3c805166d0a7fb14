package nn

import (
	"fmt"
	"strconv"
	"strings"

	"paddle/core/ag"
)

// Sequential applies its layers in order. Parameter names are prefixed by
// the layer's index ("0.weight", "2.bias"), as torch.nn.Sequential does.
type Sequential struct {
	Layers []Layer
}

var (
	_ Layer    = (*Sequential)(nil)
	_ Bufferer = (*Sequential)(nil)
)

// NewSequential chains layers.
func NewSequential(layers ...Layer) *Sequential { return &Sequential{Layers: layers} }

// Params returns every layer's parameters under "<index>.".
func (s *Sequential) Params() []Param {
	var out []Param
	for i, l := range s.Layers {
		out = append(out, Prefix(strconv.Itoa(i), l.Params())...)
	}
	return out
}

// Buffers returns every layer's buffers under "<index>.".
func (s *Sequential) Buffers() []Param {
	var out []Param
	for i, l := range s.Layers {
		out = append(out, Prefix(strconv.Itoa(i), Buffers(l))...)
	}
	return out
}

// Forward runs x through every layer.
func (s *Sequential) Forward(x *ag.Var, training bool) *ag.Var {
	for _, l := range s.Layers {
		x = l.Forward(x, training)
	}
	return x
}

// Activation is a parameter-free elementwise layer chosen by name.
type Activation struct {
	Name string
	f    func(*ag.Var) *ag.Var
}

var _ Layer = (*Activation)(nil)

// NewActivation returns the activation layer of a Paddle/PyTorch name:
// relu, relu6, sigmoid, tanh, gelu, gelu_tanh, leaky_relu (slope 0.01),
// hardswish, hardsigmoid (x/6 + 1/2), silu (swish), elu, mish, softplus,
// identity.
func NewActivation(name string) (*Activation, error) {
	if a, ok := activationAliases[name]; ok {
		name = a
	}
	for _, a := range activations {
		if a.name == name {
			return &Activation{Name: name, f: a.f}, nil
		}
	}
	known := make([]string, len(activations))
	for i, a := range activations {
		known[i] = a.name
	}
	return nil, fmt.Errorf("activation %q: known: %s", name, strings.Join(known, ", "))
}

// activations are the activation names NewActivation knows, each once, in
// the order its error lists them.
var activations = []struct {
	name string
	f    func(*ag.Var) *ag.Var
}{
	{"relu", ag.Relu},
	{"relu6", ag.Relu6},
	{"sigmoid", ag.Sigmoid},
	{"tanh", ag.Tanh},
	{"gelu", func(x *ag.Var) *ag.Var { return ag.Gelu(x, false) }},
	{"gelu_tanh", func(x *ag.Var) *ag.Var { return ag.Gelu(x, true) }},
	{"leaky_relu", func(x *ag.Var) *ag.Var { return ag.LeakyRelu(x, 0.01) }},
	{"hardswish", ag.Hardswish},
	{"hardsigmoid", func(x *ag.Var) *ag.Var { return ag.Hardsigmoid(x, 1.0/6, 0.5) }},
	{"silu", ag.Silu},
	{"swish", ag.Silu},
	{"elu", func(x *ag.Var) *ag.Var { return ag.Elu(x, 1) }},
	{"mish", ag.Mish},
	{"softplus", func(x *ag.Var) *ag.Var { return ag.Softplus(x, 1, 20) }},
	{"identity", func(x *ag.Var) *ag.Var { return x }},
}

// activationAliases are Paddle's other spellings.
var activationAliases = map[string]string{"hard_swish": "hardswish", "hard_sigmoid": "hardsigmoid"}

// Params returns nothing.
func (a *Activation) Params() []Param { return nil }

// Forward applies the activation.
func (a *Activation) Forward(x *ag.Var, _ bool) *ag.Var { return a.f(x) }

// Flatten reshapes x (N, d1, d2, ...) to (N, d1·d2·...), keeping axes before StartAxis.
type Flatten struct{ StartAxis int }

var _ Layer = (*Flatten)(nil)

// Params returns nothing.
func (f *Flatten) Params() []Param { return nil }

// Forward flattens the axes from StartAxis on (default 1).
func (f *Flatten) Forward(x *ag.Var, _ bool) *ag.Var {
	s := x.Shape()
	ax := f.StartAxis
	if ax == 0 {
		ax = 1
	}
	shape := append(append([]int(nil), s[:ax]...), -1)
	return ag.Reshape(x, shape...)
}
