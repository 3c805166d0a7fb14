package helix

import (
	"context"
	"fmt"
	"path/filepath"

	"paddle/core/ag"
	"paddle/core/chem"
	"paddle/core/config"
	"paddle/core/graph/trace"
	"paddle/core/runtime"
	"paddle/core/tensor"
	"paddle/core/workflow"
)

// Export and predict --model. The exported ONNX takes the batched graph
// tensors; featurisation (SMILES → atom/bond ids, edge lists, or the
// Morgan fingerprint) runs in Go from inference.yaml's PreProcess. Since
// ONNX has no segment ops, a graph model is traced in its dense form:
// "scatter" (atoms × edges, 1 where an edge ends at an atom) and "pool"
// (molecules × atoms) turn the segment sums into MatMuls, and the
// per-molecule max into a masked ReduceMax. Inputs (dynamic dims named
// atoms, edges, molecules):
//
//	atom (atoms, Fa) int64, bond (edges, Fb) int64, src (edges) int64,
//	graph_id (atoms) int64, edge_weight (edges, 1), self_weight (atoms, 1),
//	scatter (atoms, edges), pool (molecules, atoms)        → output (molecules, T)
//	fingerprint (molecules, bits) for FingerprintMLP       → output (molecules, T)
//
// The output is the property in label units (regression) or the
// probability (classification).

// MolGraphOpts is the MolGraph pre-process step of inference.yaml.
type MolGraphOpts struct {
	AtomNames []string `yaml:"atom_names,flow"`
	BondNames []string `yaml:"bond_names,flow"`
}

// MorganOpts is the MorganFingerprint pre-process step.
type MorganOpts struct {
	Radius int `yaml:"radius"`
	Bits   int `yaml:"bits"`
}

type exportPreProcess struct {
	TransformOps []config.Component `yaml:"transform_ops"`
}

// exportPostProcess is inference.yaml's PostProcess section.
type exportPostProcess struct {
	Name     string   `yaml:"name"`      // Property
	TaskType string   `yaml:"task_type"` // regression | classification
	Tasks    []string `yaml:"tasks,flow"`
}

func inferenceSchema() *config.Schema {
	return workflow.InferenceSchema((*exportPreProcess)(nil), (*exportPostProcess)(nil), map[string]any{"MolGraph": (*MolGraphOpts)(nil), "MorganFingerprint": (*MorganOpts)(nil)}, "name")
}

var _ workflow.Exporter = (*runner)(nil)

// graphInputNames lists the dense inputs a graph model reads.
func graphInputNames(o ModelOpts) []string {
	names := []string{"atom", "src"}
	if o.Name == "GCN" {
		names = append(names, "edge_weight", "self_weight")
	} else {
		names = append(names, "bond")
	}
	names = append(names, "scatter", "pool")
	if o.Readout == "attention" {
		names = append(names, "graph_id")
	}
	return names
}

// graphFeeds returns the named tensors of a dense batch with their specs.
func graphFeeds(b *GraphBatch, names []string) ([]trace.InputSpec, []*tensor.Tensor, error) {
	var specs []trace.InputSpec
	var ts []*tensor.Tensor
	for _, n := range names {
		var t *tensor.Tensor
		var dims []string
		switch n {
		case "atom":
			t, dims = b.Atom, []string{"atoms", ""}
		case "bond":
			t, dims = b.Bond, []string{"edges", ""}
		case "src":
			t, dims = b.Src, []string{"edges"}
		case "graph_id":
			t, dims = b.GraphID, []string{"atoms"}
		case "edge_weight":
			t, dims = b.EdgeW, []string{"edges", ""}
		case "self_weight":
			t, dims = b.SelfW, []string{"atoms", ""}
		case "scatter":
			t, dims = b.Scatter, []string{"atoms", "edges"}
		case "pool":
			t, dims = b.Pool, []string{"molecules", "atoms"}
		default:
			return nil, nil, fmt.Errorf("input %q is not a graph input", n)
		}
		shape := append([]int(nil), t.Shape()...)
		for i, d := range dims {
			if d != "" {
				shape[i] = -1
			}
		}
		specs = append(specs, trace.InputSpec{Name: n, Shape: shape, DimNames: dims})
		ts = append(ts, t)
	}
	return specs, ts, nil
}

// inputsFromNamed builds model inputs from named values (the traced
// inputs, or runtime feeds' stand-ins).
func inputsFromNamed(names []string, xs []*ag.Var, n, b int) *Inputs {
	in := &Inputs{N: n, B: b}
	for i, name := range names {
		switch name {
		case "atom":
			in.Atom = xs[i]
		case "bond":
			in.Bond = xs[i]
		case "src":
			in.Src = xs[i]
		case "graph_id":
			in.GraphID = xs[i]
		case "edge_weight":
			in.EdgeW = xs[i]
		case "self_weight":
			in.SelfW = xs[i]
		case "scatter":
			in.Scatter = xs[i]
		case "pool":
			in.Pool = xs[i]
		case "fingerprint":
			in.FP = xs[i]
		}
	}
	return in
}

// exampleSmiles make the tracing batch: three molecules whose atom, edge
// and molecule counts differ from each other and from the feature widths.
var exampleSmiles = []string{"CCO", "c1ccccc1O", "CC(=O)Nc1ccc(O)cc1"}

// Export writes the checkpoint env.Weights as an export directory.
func (r *runner) Export(_ context.Context, env workflow.Env, dir string) error {
	if r.isForest() {
		return fmt.Errorf("Model.name RandomForest has no ONNX export (predict with --weights)")
	}
	model, err := r.newModel()
	if err != nil {
		return err
	}
	if _, err := workflow.LoadCheckpoint(env.Weights, model, nil); err != nil {
		return err
	}
	var mols []*Molecule
	for _, s := range exampleSmiles {
		m, err := chem.Parse(s)
		if err != nil {
			return err
		}
		mols = append(mols, &Molecule{Mol: m})
	}
	var names []string
	var specs []trace.InputSpec
	var examples []*tensor.Tensor
	n := 0
	var pre any
	if r.isFP() {
		names = []string{"fingerprint"}
		var fp []float32
		for _, m := range mols {
			fp = append(fp, fingerprint(m, r.model)...)
		}
		examples = []*tensor.Tensor{tensor.FromSlice(fp, len(mols), fpBits(r.model))}
		specs = []trace.InputSpec{{Name: "fingerprint", Shape: []int{-1, fpBits(r.model)}, DimNames: []string{"molecules", ""}}}
		pre = map[string]any{"MorganFingerprint": MorganOpts{Radius: fpRadius(r.model), Bits: fpBits(r.model)}}
	} else {
		gs := make([]*MolGraph, len(mols))
		for i, m := range mols {
			gs[i] = r.feat.Graph(m.Mol)
		}
		b := r.feat.Batch(gs, true)
		n = b.N
		names = graphInputNames(r.model)
		if specs, examples, err = graphFeeds(b, names); err != nil {
			return err
		}
		pre = map[string]any{"MolGraph": MolGraphOpts{AtomNames: r.feat.AtomNames, BondNames: r.feat.BondNames}}
	}
	g, err := trace.Func(model, specs, examples, []string{"output"}, func(xs []*ag.Var) []*ag.Var {
		return []*ag.Var{model.Predict(inputsFromNamed(names, xs, n, len(mols)), r.cls)}
	})
	if err != nil {
		return fmt.Errorf("export %s: %w", r.model.Name, err)
	}
	inf := &workflow.Inference{
		Global:      workflow.InferenceGlobal{ModelName: r.model.Name},
		PreProcess:  map[string]any{"transform_ops": []any{pre}},
		PostProcess: exportPostProcess{Name: "Property", TaskType: r.global.TaskType, Tasks: r.ds.Tasks},
	}
	return workflow.WriteExport(dir, g, inf, r.cfg)
}

// predictExport predicts with the export directory dir on core/runtime.
func loadExport(dir string) (*molPredictor, error) {
	p, cfg, err := workflow.ReadExport(dir, inferenceSchema(), runtime.Options{})
	if err != nil {
		return nil, err
	}
	var pre exportPreProcess
	var post exportPostProcess
	inputs, err := workflow.DecodeInference(cfg, &pre, &post)
	if err != nil {
		return nil, err
	}
	file := filepath.Join(dir, workflow.ExportInferenceFile)
	if len(pre.TransformOps) != 1 {
		return nil, fmt.Errorf("%s: PreProcess.transform_ops: want one MolGraph or MorganFingerprint step", file)
	}
	op := pre.TransformOps[0]
	var feat *Featurizer
	var morgan MorganOpts
	switch op.Name {
	case "MolGraph":
		var o MolGraphOpts
		if err := op.Decode(&o); err != nil {
			return nil, err
		}
		if feat, err = NewFeaturizer(o.AtomNames, o.BondNames); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
	case "MorganFingerprint":
		if err := op.Decode(&morgan); err != nil {
			return nil, err
		}
	}
	out := p.OutputNames()[0]
	T := len(post.Tasks)
	return &molPredictor{tasks: post.Tasks, run: func(ms []*Molecule) ([]float64, error) {
		feeds := map[string]*tensor.Tensor{}
		if feat == nil {
			o := ModelOpts{Radius: morgan.Radius, Bits: morgan.Bits}
			var fp []float32
			for _, m := range ms {
				fp = append(fp, fingerprint(m, o)...)
			}
			feeds["fingerprint"] = tensor.FromSlice(fp, len(ms), fpBits(o))
		} else {
			gs := make([]*MolGraph, len(ms))
			for i, m := range ms {
				gs[i] = feat.Graph(m.Mol)
			}
			b := feat.Batch(gs, true)
			var names []string
			for _, in := range inputs {
				names = append(names, in.Name)
			}
			_, ts, err := graphFeeds(b, names)
			if err != nil {
				return nil, fmt.Errorf("%s: Inputs: %w", file, err)
			}
			for i, nm := range names {
				feeds[nm] = ts[i]
			}
		}
		res, err := p.Run(feeds)
		if err != nil {
			return nil, err
		}
		v := res[out].Contiguous().Float64s()
		if len(v) != len(ms)*T {
			return nil, fmt.Errorf("%s: the model gave %d values for %d molecules × %d tasks", file, len(v), len(ms), T)
		}
		return v, nil
	}}, nil
}
