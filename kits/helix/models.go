package helix

import (
	"fmt"
	"math"
	"math/rand/v2"

	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/nn"
	"paddle/core/tensor"
)

// Inputs is what a model reads: a batch as autograd values. Training and
// checkpoint predict use the segment ops (Scatter and Pool nil); an
// exported model is traced with the dense Scatter/Pool matrices instead,
// since ONNX has no segment ops. Both forms compute the same numbers
// (TestDenseMatchesSegment).
type Inputs struct {
	Atom, Bond, Src, Dst, GraphID *ag.Var
	EdgeW, SelfW                  *ag.Var
	Scatter, Pool                 *ag.Var
	FP                            *ag.Var // (B, bits) float32 for the fingerprint MLP
	N, B                          int
}

// inputsOf wraps a batch as constants.
func inputsOf(b *Batch) *Inputs {
	in := &Inputs{B: b.B}
	if g := b.Graph; g != nil {
		in.N = g.N
		in.Atom, in.Bond, in.Src, in.Dst, in.GraphID = ag.Const(g.Atom), ag.Const(g.Bond), ag.Const(g.Src), ag.Const(g.Dst), ag.Const(g.GraphID)
		in.EdgeW, in.SelfW = ag.Const(g.EdgeW), ag.Const(g.SelfW)
		if g.Scatter != nil {
			in.Scatter, in.Pool = ag.Const(g.Scatter), ag.Const(g.Pool)
		}
	}
	if b.FP != nil {
		in.FP = ag.Const(b.FP)
	}
	return in
}

// toNodes sums edge messages (E, D) into their destination atoms (N, D).
func (in *Inputs) toNodes(msg *ag.Var) *ag.Var {
	if in.Scatter != nil {
		return ag.MatMul(in.Scatter, msg, false, false)
	}
	return ag.SegmentSum(msg, in.Dst, in.N)
}

// pool reduces atoms (N, D) to molecules (B, D): sum, mean or max.
func (in *Inputs) pool(h *ag.Var, kind string) *ag.Var {
	if in.Pool == nil {
		switch kind {
		case "mean":
			return ag.SegmentMean(h, in.GraphID, in.B)
		case "max":
			return ag.SegmentMax(h, in.GraphID, in.B)
		}
		return ag.SegmentSum(h, in.GraphID, in.B)
	}
	switch kind {
	case "mean":
		s := ag.MatMul(in.Pool, h, false, false)
		return ag.Div(s, ag.ClipMin(ag.Sum(in.Pool, []int{1}, true), 1))
	case "max":
		// (B, N, 1) mask: atoms outside the molecule pushed to -1e9
		m := ag.Unsqueeze(in.Pool, 2)
		x := ag.Add(ag.Mul(ag.Unsqueeze(h, 0), m), ag.MulScalar(ag.AddScalar(m, -1), 1e9))
		return ag.Max(x, []int{1}, false)
	}
	return ag.MatMul(in.Pool, h, false, false)
}

// softmax normalises scores (N, 1) over the atoms of each molecule.
func (in *Inputs) softmax(s *ag.Var) *ag.Var {
	m := ag.Gather(in.pool(s, "max"), in.GraphID, 0)
	e := ag.Exp(ag.Sub(s, m))
	z := ag.Gather(in.pool(e, "sum"), in.GraphID, 0)
	return ag.Div(e, z)
}

// ModelOpts is the Model section: the network and its readout.
type ModelOpts struct {
	Name      string   `yaml:"name"`      // GIN | GCN | MPNN | FingerprintMLP | RandomForest
	EmbedDim  int      `yaml:"embed_dim"` // hidden width
	LayerNum  int      `yaml:"layer_num"` // message-passing layers
	Dropout   float64  `yaml:"dropout"`
	Readout   string   `yaml:"readout"`       // mean | sum | max | attention
	ReadoutT  int      `yaml:"readout_steps"` // attention rounds (AttentiveFP's T; default 2)
	Bases     int      `yaml:"bases"`         // MPNN: edge-conditioned weight bases (default 8)
	AtomNames []string `yaml:"atom_names"`    // default PaddleHelix's list
	BondNames []string `yaml:"bond_names"`
	// FingerprintMLP
	Radius int   `yaml:"radius"` // Morgan radius (default 2)
	Bits   int   `yaml:"bits"`   // fingerprint length (default 2048)
	Hidden []int `yaml:"hidden"` // MLP widths (default [512, 128])
	// RandomForest (also radius, bits)
	Trees int `yaml:"n_estimators"` // trees per task (default 100)
}

// net is a property network: raw outputs (B, T) for the inputs.
type net interface {
	nn.Module
	forward(in *Inputs, training bool, r *rand.Rand) *ag.Var
}

// Model is a network plus the label scaling of regression: predictions are
// net·std + mean, with mean and std of the training labels kept as buffers
// (so checkpoints and exports carry them).
type Model struct {
	Net       net
	Mean, Std *ag.Var // (T) buffers; mean 0, std 1 for classification
}

// Params returns the network's parameters.
func (m *Model) Params() []nn.Param { return nn.Collect("net", m.Net) }

// Buffers returns the label scaling.
func (m *Model) Buffers() []nn.Param {
	return append(nn.CollectBuffers("net", m.Net), nn.Param{Name: "label_mean", V: m.Mean}, nn.Param{Name: "label_std", V: m.Std})
}

// Raw runs the network: scaled outputs for regression, logits for classification.
func (m *Model) Raw(in *Inputs, training bool, r *rand.Rand) *ag.Var {
	return m.Net.forward(in, training, r)
}

// Predict returns properties in label units (regression) or probabilities.
func (m *Model) Predict(in *Inputs, classification bool) *ag.Var {
	y := m.Net.forward(in, false, nil)
	if classification {
		return ag.Sigmoid(y)
	}
	return ag.Add(ag.Mul(y, m.Std), m.Mean)
}

// modelKind is one Model.name: how its network is built (nil: the random
// forest, trained by forest.go, has none) and, for the graph networks, what
// one message-passing layer holds.
type modelKind struct {
	build func(o ModelOpts, f *Featurizer, tasks int, r *rand.Rand) (net, error)
	layer func(l *gnnLayer, f *Featurizer, r *rand.Rand)
}

// models are the Model.name values; registered in init, since newGNN
// reads its layers' kinds from them.
var models config.Choices[modelKind]

func init() {
	gnnNet := func(o ModelOpts, f *Featurizer, tasks int, r *rand.Rand) (net, error) { return newGNN(o, f, tasks, r) }
	models.Add("GIN", modelKind{gnnNet, func(l *gnnLayer, f *Featurizer, r *rand.Rand) {
		l.bond = embedding(f.BondVocab, l.d, len(f.BondNames), r)
		l.mlp1, l.mlp2 = linear(l.d, 2*l.d, r), linear(2*l.d, l.d, r)
	}}).
		Add("GCN", modelKind{gnnNet, func(l *gnnLayer, _ *Featurizer, r *rand.Rand) {
			l.mlp1 = linear(l.d, l.d, r)
		}}).
		Add("MPNN", modelKind{gnnNet, func(l *gnnLayer, f *Featurizer, r *rand.Rand) {
			l.bond = embedding(f.BondVocab, l.d, len(f.BondNames), r)
			l.mlp1, l.coef, l.root = linear(l.d, l.nb*l.d, r), linear(l.d, l.nb, r), linear(l.d, l.d, r)
		}}).
		Add("FingerprintMLP", modelKind{build: func(o ModelOpts, _ *Featurizer, tasks int, r *rand.Rand) (net, error) { return newFPMLP(o, tasks, r) }}).
		Add("RandomForest", modelKind{})
}

// buildModel builds the network the Model section names for tasks outputs.
func buildModel(o ModelOpts, f *Featurizer, tasks int, r *rand.Rand) (*Model, error) {
	m := &Model{Mean: ag.Const(tensor.New(tensor.Float32, tasks)), Std: ag.Const(tensor.Ones(tensor.Float32, tasks))}
	k, ok := models.Get(o.Name)
	if !ok || k.build == nil {
		return nil, fmt.Errorf("Model.name: %q is not a model (known: %s)", o.Name, models.Known())
	}
	var err error
	if m.Net, err = k.build(o, f, tasks, r); err != nil {
		return nil, fmt.Errorf("Model: %w", err)
	}
	return m, nil
}

func linear(in, out int, r *rand.Rand) *nn.Linear {
	l, err := nn.NewLinear(nn.LinearOptions{In: in, Out: out}, r)
	if err != nil {
		panic(err) // sizes are checked by the callers
	}
	return l
}

func layerNorm(d int) *nn.LayerNorm {
	l, err := nn.NewLayerNorm(nn.LayerNormOptions{Shape: []int{d}})
	if err != nil {
		panic(err)
	}
	return l
}

// embedding is a table of d-wide rows initialised N(0, 1/k) so a sum of k
// of them starts near unit scale.
func embedding(rows, d, k int, r *rand.Rand) *ag.Var {
	w := tensor.New(tensor.Float32, rows, d)
	nn.Normal(r, w, 0, 1/math.Sqrt(float64(k)))
	return ag.Param(w)
}

// embedSum looks up ids (M, F) in w and sums the F rows: (M, D).
func embedSum(w, ids *ag.Var) *ag.Var { return ag.Sum(ag.Embedding(ids, w, nil), []int{1}, false) }

func dropout(x *ag.Var, p float64, training bool, r *rand.Rand) *ag.Var {
	if !training || p == 0 || r == nil {
		return x
	}
	return ag.Dropout(x, p, true, r)
}

// gnnLayer is one message-passing layer.
type gnnLayer struct {
	kind  string
	bond  *ag.Var    // GIN, MPNN: bond embedding table
	mlp1  *nn.Linear // GIN: MLP D→2D→D; GCN: the weight; MPNN: the bases D→K·D
	mlp2  *nn.Linear
	coef  *nn.Linear // MPNN: edge embedding → K basis coefficients
	root  *nn.Linear // MPNN: the atom's own term
	norm  *nn.LayerNorm
	d, nb int
}

func (l *gnnLayer) Params() []nn.Param {
	return nn.Collect("bond_embedding", l.bond, "mlp1", l.mlp1, "mlp2", l.mlp2, "coef", l.coef, "root", l.root, "norm", l.norm)
}

// forward returns the layer's update of h (N, D).
func (l *gnnLayer) forward(in *Inputs, h *ag.Var) *ag.Var {
	switch l.kind {
	case "GIN": // PaddleHelix GIN: h' = MLP(h + Σ_j relu(h_j + e_ij))
		msg := ag.Relu(ag.Add(ag.Gather(h, in.Src, 0), embedSum(l.bond, in.Bond)))
		x := ag.Add(h, in.toNodes(msg))
		return l.mlp2.Forward(ag.Relu(l.mlp1.Forward(x, false)), false)
	case "GCN": // Kipf & Welling: h' = Σ_{j ∈ N(i) ∪ i} W h_j / sqrt((d_i+1)(d_j+1))
		hw := l.mlp1.Forward(h, false)
		agg := in.toNodes(ag.Mul(ag.Gather(hw, in.Src, 0), in.EdgeW))
		return ag.Add(agg, ag.Mul(hw, in.SelfW))
	}
	// MPNN, edge-conditioned (Gilmer et al.'s NNConv): m_ij = Θ(e_ij) h_j with
	// Θ(e) = Σ_k a_k(e) W_k, K learned bases mixed by the edge network a(e).
	E := in.Src.T.Shape()[0]
	hb := ag.Reshape(ag.Gather(l.mlp1.Forward(h, false), in.Src, 0), E, l.nb, l.d) // (E, K, D)
	a := ag.Unsqueeze(l.coef.Forward(embedSum(l.bond, in.Bond), false), 2)         // (E, K, 1)
	msg := ag.Sum(ag.Mul(hb, a), []int{1}, false)                                  // (E, D)
	return ag.Add(l.root.Forward(h, false), in.toNodes(msg))
}

// gnn is GIN, GCN or MPNN: atom embedding, layers with layer norm, ReLU,
// dropout and residual connections (PaddleHelix's GeoGNN block order), a
// readout, and an MLP head.
type gnn struct {
	o       ModelOpts
	atom    *ag.Var
	layers  []*gnnLayer
	att     *nn.Linear // attention readout: score of [molecule, atom]
	attV    *nn.Linear // attention readout: atom value
	attUpd  *nn.Linear // attention readout: molecule update from [molecule, context]
	head1   *nn.Linear
	head2   *nn.Linear
	nAtomFt int
}

func newGNN(o ModelOpts, f *Featurizer, tasks int, r *rand.Rand) (*gnn, error) {
	d := o.EmbedDim
	if d <= 0 || o.LayerNum <= 0 {
		return nil, fmt.Errorf("embed_dim %d and layer_num %d must be positive", d, o.LayerNum)
	}
	if o.Dropout < 0 || o.Dropout >= 1 {
		return nil, fmt.Errorf("dropout %v must be in [0, 1)", o.Dropout)
	}
	switch o.Readout {
	case "", "mean", "sum", "max", "attention":
	default:
		return nil, fmt.Errorf("readout %q: want mean, sum, max or attention", o.Readout)
	}
	g := &gnn{o: o, atom: embedding(f.AtomVocab, d, len(f.AtomNames), r), nAtomFt: len(f.AtomNames)}
	nb := o.Bases
	if nb <= 0 {
		nb = 8
	}
	kind, _ := models.Get(o.Name)
	for range o.LayerNum {
		l := &gnnLayer{kind: o.Name, norm: layerNorm(d), d: d, nb: nb}
		kind.layer(l, f, r)
		g.layers = append(g.layers, l)
	}
	if o.Readout == "attention" {
		g.att, g.attV, g.attUpd = linear(2*d, 1, r), linear(d, d, r), linear(2*d, d, r)
	}
	g.head1, g.head2 = linear(d, d, r), linear(d, tasks, r)
	return g, nil
}

func (g *gnn) Params() []nn.Param {
	ps := nn.Collect("atom_embedding", g.atom)
	for i, l := range g.layers {
		ps = append(ps, nn.Prefix(fmt.Sprintf("layers.%d", i), l.Params())...)
	}
	return append(ps, nn.Collect("att", g.att, "att_value", g.attV, "att_update", g.attUpd, "head1", g.head1, "head2", g.head2)...)
}

func (g *gnn) forward(in *Inputs, training bool, r *rand.Rand) *ag.Var {
	h := embedSum(g.atom, in.Atom)
	for i, l := range g.layers {
		u := l.norm.Forward(l.forward(in, h), false)
		if i < len(g.layers)-1 {
			u = ag.Relu(u)
		}
		h = ag.Add(h, dropout(u, g.o.Dropout, training, r))
	}
	var mol *ag.Var
	switch g.o.Readout {
	case "attention":
		mol = g.attention(in, h)
	case "sum", "max":
		mol = in.pool(h, g.o.Readout)
	default:
		mol = in.pool(h, "mean")
	}
	x := dropout(ag.Relu(g.head1.Forward(mol, false)), g.o.Dropout, training, r)
	return g.head2.Forward(x, false)
}

// attention is an AttentiveFP-style readout (Xiong et al. 2019): the
// molecule state starts as the sum of its atoms; each of T rounds scores
// every atom against its molecule (leaky ReLU of a linear map of the pair),
// takes a softmax over the molecule's atoms, sums the attended atom values
// into a context, and updates the state by a residual ELU layer (in place
// of AttentiveFP's GRU cell).
func (g *gnn) attention(in *Inputs, h *ag.Var) *ag.Var {
	mol := in.pool(h, "sum")
	v := g.attV.Forward(h, false)
	steps := g.o.ReadoutT
	if steps <= 0 {
		steps = 2
	}
	for range steps {
		s := ag.LeakyRelu(g.att.Forward(ag.Concat(1, ag.Gather(mol, in.GraphID, 0), h), false), 0.01)
		a := in.softmax(s)
		ctx := ag.Elu(in.pool(ag.Mul(a, v), "sum"), 1)
		mol = ag.Add(mol, ag.Elu(g.attUpd.Forward(ag.Concat(1, mol, ctx), false), 1))
	}
	return mol
}

// fpMLP is the baseline: a Morgan fingerprint through an MLP.
type fpMLP struct {
	layers []*nn.Linear
	drop   float64
}

func newFPMLP(o ModelOpts, tasks int, r *rand.Rand) (*fpMLP, error) {
	widths := o.Hidden
	if len(widths) == 0 {
		widths = []int{512, 128}
	}
	in := fpBits(o)
	m := &fpMLP{drop: o.Dropout}
	for _, w := range widths {
		if w <= 0 {
			return nil, fmt.Errorf("hidden: width %d must be positive", w)
		}
		m.layers = append(m.layers, linear(in, w, r))
		in = w
	}
	m.layers = append(m.layers, linear(in, tasks, r))
	return m, nil
}

func fpBits(o ModelOpts) int {
	if o.Bits > 0 {
		return o.Bits
	}
	return 2048
}

func fpRadius(o ModelOpts) int {
	if o.Radius > 0 {
		return o.Radius
	}
	return 2
}

func (m *fpMLP) Params() []nn.Param {
	var ps []nn.Param
	for i, l := range m.layers {
		ps = append(ps, nn.Prefix(fmt.Sprintf("layers.%d", i), l.Params())...)
	}
	return ps
}

func (m *fpMLP) forward(in *Inputs, training bool, r *rand.Rand) *ag.Var {
	x := in.FP
	for i, l := range m.layers {
		x = l.Forward(x, false)
		if i < len(m.layers)-1 {
			x = dropout(ag.Relu(x), m.drop, training, r)
		}
	}
	return x
}
