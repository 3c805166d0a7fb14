package nn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"paddle/core/ag"
	"paddle/core/op"
)

// RNNOptions configure LSTM and GRU.
type RNNOptions struct {
	InputSize     int     `yaml:"input_size"`
	HiddenSize    int     `yaml:"hidden_size"`
	NumLayers     int     `yaml:"num_layers"` // default 1
	Bidirectional bool    `yaml:"bidirectional"`
	BatchFirst    bool    `yaml:"batch_first"` // x is (N, T, I) instead of (T, N, I)
	Dropout       float64 `yaml:"dropout"`     // between layers, in training only
	NoBias        bool    `yaml:"no_bias"`
}

// rnn holds what LSTM and GRU share: per layer and direction the weights
// weight_ih (G·H, I), weight_hh (G·H, H) and biases (G·H), G gates.
type rnn struct {
	o     RNNOptions
	gates int
	w     [][4]*ag.Var // [layer·dirs + dir] → w_ih, w_hh, b_ih, b_hh
	r     *rand.Rand   // for inter-layer dropout
}

func newRNN(kind string, gates int, o RNNOptions, r *rand.Rand) (rnn, error) {
	if o.NumLayers == 0 {
		o.NumLayers = 1
	}
	if o.InputSize <= 0 || o.HiddenSize <= 0 || o.NumLayers < 0 {
		return rnn{}, fmt.Errorf("%s: input_size %d, hidden_size %d and num_layers %d must be positive", kind, o.InputSize, o.HiddenSize, o.NumLayers)
	}
	if o.Dropout < 0 || o.Dropout >= 1 {
		return rnn{}, fmt.Errorf("%s: dropout %g must be in [0, 1)", kind, o.Dropout)
	}
	m := rnn{o: o, gates: gates, r: r}
	h := o.HiddenSize
	b := 1 / math.Sqrt(float64(h)) // PyTorch: every weight and bias from U(±1/sqrt(H))
	for l := range o.NumLayers {
		in := o.InputSize
		if l > 0 {
			in = h * m.dirs()
		}
		for range m.dirs() {
			ws := [4]*ag.Var{newParam(gates*h, in), newParam(gates*h, h)}
			if !o.NoBias {
				ws[2], ws[3] = newParam(gates*h), newParam(gates*h)
			}
			for _, w := range ws {
				if w != nil {
					Uniform(r, w.T, -b, b)
				}
			}
			m.w = append(m.w, ws)
		}
	}
	return m, nil
}

func (m *rnn) dirs() int {
	if m.o.Bidirectional {
		return 2
	}
	return 1
}

// Params names the weights as PyTorch does: weight_ih_l0, weight_hh_l0,
// bias_ih_l0, bias_hh_l0, then weight_ih_l0_reverse, ...
func (m *rnn) Params() []Param {
	var out []Param
	for i, ws := range m.w {
		sfx := fmt.Sprintf("_l%d", i/m.dirs())
		if i%m.dirs() == 1 {
			sfx += "_reverse"
		}
		out = append(out, Collect("weight_ih"+sfx, ws[0], "weight_hh"+sfx, ws[1], "bias_ih"+sfx, ws[2], "bias_hh"+sfx, ws[3])...)
	}
	return out
}

// cell advances one direction of one layer by a step: gx is the input
// projection (N, G·H) with b_ih added, h and c the state; it returns the new h, c.
type cell func(gx, h, c *ag.Var, ws [4]*ag.Var) (*ag.Var, *ag.Var)

// run applies the stacked recurrences to x (T, N, I) from initial states
// h0, c0 (L·D, N, H) (nil = zeros; c only for LSTM) and returns the output
// (T, N, D·H) and the final states (L·D, N, H).
func (m *rnn) run(x, h0, c0 *ag.Var, lengths []int, withC, training bool, step cell) (*ag.Var, *ag.Var, *ag.Var) {
	if ag.Tracing() { // export: the ONNX twin op, with a dynamic sequence length (rnn_twin.go)
		y, hn, cn, err := m.twin(x, h0, c0, lengths, withC)
		if err != nil {
			panic(&op.ShapeError{Op: "rnn", Err: err})
		}
		return y, hn, cn
	}
	t, n := x.Shape()[0], x.Shape()[1]
	h := m.o.HiddenSize
	zero := ag.Const(zerosLike(x, n, h))
	// masks[t] (N, 1) is 1 where step t is inside the sequence: past its end a
	// sequence's state is frozen and its output is 0, so the reverse
	// direction starts at each sequence's own last step (PyTorch's packed
	// sequences, Paddle's sequence_length).
	var masks []*ag.Var
	if lengths != nil {
		masks = make([]*ag.Var, t)
		for ti := range t {
			mv := zerosLike(x, n, 1)
			for b, l := range lengths {
				if ti < l {
					mv.SetAt(1, b, 0)
				}
			}
			masks[ti] = ag.Const(mv)
		}
	}
	var hs, cs []*ag.Var
	for l := range m.o.NumLayers {
		if l > 0 && m.o.Dropout > 0 && training {
			x = dropout(x, m.o.Dropout, m.r)
		}
		outs := make([]*ag.Var, 0, m.dirs())
		for d := range m.dirs() {
			k := l*m.dirs() + d
			ws := m.w[k]
			hi, ci := zero, zero
			if h0 != nil {
				hi = ag.Reshape(narrow(h0, 0, k, k+1), n, h)
			}
			if withC && c0 != nil {
				ci = ag.Reshape(narrow(c0, 0, k, k+1), n, h)
			}
			// one matmul projects every time step: (T·N, I) → (T·N, G·H)
			gx := ag.MatMul(ag.Reshape(x, t*n, x.Shape()[2]), ws[0], false, true)
			if ws[2] != nil {
				gx = ag.Add(gx, ws[2])
			}
			steps := chunk(gx, 0, t) // t pieces of (N, G·H)
			ys := make([]*ag.Var, t)
			for i := range t {
				ti := i
				if d == 1 {
					ti = t - 1 - i
				}
				hn, cn := step(steps[ti], hi, ci, ws)
				if masks == nil {
					hi, ci = hn, cn
					ys[ti] = ag.Reshape(hi, 1, n, h)
					continue
				}
				mk := masks[ti]
				hi = ag.Add(hi, ag.Mul(mk, ag.Sub(hn, hi)))
				if withC {
					ci = ag.Add(ci, ag.Mul(mk, ag.Sub(cn, ci)))
				}
				ys[ti] = ag.Reshape(ag.Mul(mk, hn), 1, n, h)
			}
			outs = append(outs, concat(0, ys...))
			hs = append(hs, ag.Reshape(hi, 1, n, h))
			if withC {
				cs = append(cs, ag.Reshape(ci, 1, n, h))
			}
		}
		x = concat(2, outs...)
	}
	hn := concat(0, hs...)
	if !withC {
		return x, hn, nil
	}
	return x, hn, concat(0, cs...)
}

// hproj returns h·W_hhᵀ + b_hh: (N, G·H).
func hproj(h *ag.Var, ws [4]*ag.Var) *ag.Var {
	g := ag.MatMul(h, ws[1], false, true)
	if ws[3] != nil {
		g = ag.Add(g, ws[3])
	}
	return g
}

func (m *rnn) toTime(x *ag.Var, lengths []int) (*ag.Var, error) {
	s := x.Shape()
	if len(s) != 3 || s[2] != m.o.InputSize {
		return nil, fmt.Errorf("rnn: input %v, want (T, N, %d) or batch-first (N, T, %d)", s, m.o.InputSize, m.o.InputSize)
	}
	if lengths != nil {
		n, t := s[1], s[0]
		if m.o.BatchFirst {
			n, t = t, n
		}
		if len(lengths) != n {
			return nil, fmt.Errorf("rnn: %d sequence lengths for a batch of %d", len(lengths), n)
		}
		for _, l := range lengths {
			if l < 0 || l > t {
				return nil, fmt.Errorf("rnn: sequence length %d outside [0, %d]", l, t)
			}
		}
	}
	if m.o.BatchFirst {
		return ag.Transpose(x, 1, 0, 2), nil
	}
	return x, nil
}

func (m *rnn) fromTime(y *ag.Var) *ag.Var {
	if m.o.BatchFirst {
		return ag.Transpose(y, 1, 0, 2)
	}
	return y
}

// LSTM is a multi-layer, optionally bidirectional long short-term memory
// (Hochreiter & Schmidhuber 1997) with torch.nn.LSTM's equations, gate order
// (i, f, g, o) and parameter names:
//
//	i, f, g, o = σ, σ, tanh, σ of x·W_ihᵀ + b_ih + h·W_hhᵀ + b_hh
//	c' = f⊙c + i⊙g;  h' = o⊙ag.Tanh(c')
type LSTM struct{ rnn }

var _ Layer = (*LSTM)(nil)

// NewLSTM builds an LSTM with PyTorch's initialisation.
func NewLSTM(o RNNOptions, r *rand.Rand) (*LSTM, error) {
	m, err := newRNN("lstm", 4, o, r)
	return &LSTM{m}, err
}

// Run maps x (T, N, I) (or (N, T, I) batch-first) and optional initial states
// h0, c0 (L·D, N, H) to the output (T, N, D·H) (or (N, T, D·H)) and the final
// states hn, cn (L·D, N, H), ordered layer by layer, forward before reverse.
// lengths (N), when not nil, gives each sequence's length: outputs past it
// are 0 and the final states are those at its last step. It returns an
// error when x or lengths do not fit.
func (l *LSTM) Run(x, h0, c0 *ag.Var, lengths []int, training bool) (out, hn, cn *ag.Var, err error) {
	xt, err := l.toTime(x, lengths)
	if err != nil {
		return nil, nil, nil, err
	}
	y, hn, cn := l.run(xt, h0, c0, lengths, true, training, func(gx, hp, cp *ag.Var, ws [4]*ag.Var) (*ag.Var, *ag.Var) {
		g := chunk(ag.Add(gx, hproj(hp, ws)), 1, 4)
		i, f, gg, o := ag.Sigmoid(g[0]), ag.Sigmoid(g[1]), ag.Tanh(g[2]), ag.Sigmoid(g[3])
		c := ag.Add(ag.Mul(f, cp), ag.Mul(i, gg))
		return ag.Mul(o, ag.Tanh(c)), c
	})
	return l.fromTime(y), hn, cn, nil
}

// Forward returns Run's output sequence from zero states. A bad input shape
// (a model bug) panics with *op.ShapeError.
func (l *LSTM) Forward(x *ag.Var, training bool) *ag.Var {
	y, _, _, err := l.Run(x, nil, nil, nil, training)
	if err != nil {
		panic(&op.ShapeError{Op: "rnn", Err: err})
	}
	return y
}

// GRU is a multi-layer, optionally bidirectional gated recurrent unit (Cho et
// al. 2014) with torch.nn.GRU's equations, gate order (r, z, n) and names:
//
//	r = σ(x·W_irᵀ + b_ir + h·W_hrᵀ + b_hr);  z likewise
//	n = ag.Tanh(x·W_inᵀ + b_in + r⊙(h·W_hnᵀ + b_hn));  h' = (1-z)⊙n + z⊙h
type GRU struct{ rnn }

var _ Layer = (*GRU)(nil)

// NewGRU builds a GRU with PyTorch's initialisation.
func NewGRU(o RNNOptions, r *rand.Rand) (*GRU, error) {
	m, err := newRNN("gru", 3, o, r)
	return &GRU{m}, err
}

// Run maps x (T, N, I) (or (N, T, I) batch-first) and an optional initial
// state h0 (L·D, N, H) to the output (T, N, D·H) and the final state hn
// (L·D, N, H); lengths (N) are optional sequence lengths, as for LSTM.Run.
func (g *GRU) Run(x, h0 *ag.Var, lengths []int, training bool) (out, hn *ag.Var, err error) {
	xt, err := g.toTime(x, lengths)
	if err != nil {
		return nil, nil, err
	}
	y, hn, _ := g.run(xt, h0, nil, lengths, false, training, func(gx, hp, _ *ag.Var, ws [4]*ag.Var) (*ag.Var, *ag.Var) {
		a, b := chunk(gx, 1, 3), chunk(hproj(hp, ws), 1, 3)
		r := ag.Sigmoid(ag.Add(a[0], b[0]))
		z := ag.Sigmoid(ag.Add(a[1], b[1]))
		n := ag.Tanh(ag.Add(a[2], ag.Mul(r, b[2])))
		return ag.Add(n, ag.Mul(z, ag.Sub(hp, n))), nil
	})
	return g.fromTime(y), hn, nil
}

// Forward returns Run's output sequence from a zero state.
func (g *GRU) Forward(x *ag.Var, training bool) *ag.Var {
	y, _, err := g.Run(x, nil, nil, training)
	if err != nil {
		panic(&op.ShapeError{Op: "rnn", Err: err})
	}
	return y
}
