package helix

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"

	"paddle/core/ag"
	"paddle/core/chem"
	"paddle/core/workflow"
)

// collectSmiles gathers --smiles values, then each file's (featurize's
// rules: first field per line, a .csv file's smiles column) or stdin's.
func collectSmiles(flags, inputs []string, stdin io.Reader) ([]string, error) {
	out := append([]string(nil), flags...)
	emit := func(s string) error { out = append(out, s); return nil }
	for _, in := range inputs {
		var err error
		if in == "-" {
			err = readSmiles(stdin, "stdin", false, emit)
		} else {
			err = readFile(in, emit)
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Prediction is one molecule's output line. A SMILES that does not parse
// gets workflow.Failed's record instead: {"smiles", "error"}.
type Prediction struct {
	SMILES    string
	Canonical string
	Tasks     []string
	Values    []float64
}

// MarshalJSON writes {"smiles", "canonical", "predictions": {<task>:
// value, ...}} with the tasks in the model's order; a value that is not a
// finite number is null.
func (p Prediction) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	str := func(s string) string { v, _ := json.Marshal(s); return string(v) }
	b.WriteString(`{"smiles":` + str(p.SMILES) + `,"canonical":` + str(p.Canonical) + `,"predictions":{`)
	for i, t := range p.Tasks {
		if i > 0 {
			b.WriteByte(',')
		}
		v := p.Values[i]
		if math.IsNaN(v) || math.IsInf(v, 0) {
			b.WriteString(str(t) + ":null")
			continue
		}
		fmt.Fprintf(&b, "%s:%v", str(t), math.Round(v*1e5)/1e5)
	}
	b.WriteString("}}")
	return b.Bytes(), nil
}

func predictionLine(p Prediction) string {
	parts := []string{p.SMILES, p.Canonical}
	for _, v := range p.Values {
		parts = append(parts, fmt.Sprintf("%.5f", v))
	}
	return strings.Join(parts, "\t") + "\n"
}

// molPredictor is a loaded model: run maps molecules to len(tasks) values
// each (row-major). It is safe for concurrent use.
type molPredictor struct {
	tasks []string
	run   func(ms []*Molecule) ([]float64, error)
}

// predictOne parses one SMILES and predicts it; parseErr is a SMILES that
// does not parse (the input's fault), err the model's.
func (mp *molPredictor) predictOne(s string) (p Prediction, parseErr, err error) {
	m, perr := chem.Parse(s)
	if perr != nil {
		return Prediction{}, perr, nil
	}
	v, err := mp.run([]*Molecule{{SMILES: s, Mol: m, Labels: make([]float64, len(mp.tasks))}})
	if err != nil {
		return Prediction{}, nil, err
	}
	return Prediction{SMILES: s, Canonical: m.SMILES(), Tasks: mp.tasks, Values: v}, nil, nil
}

// predictBatches parses smiles, runs mp on batches of the parsed ones and
// prints a line per input in order; it fails (exit 1) when any did not parse.
func predictBatches(env workflow.Env, smiles []string, mp *molPredictor) error {
	tasks, run := mp.tasks, mp.run
	out := workflow.NewPrinter(env.IO.Out, cmpStr(env.Format, "jsonl"), workflow.KeySMILES, predictionLine)
	preds := make([]Prediction, len(smiles))
	errs := make([]error, len(smiles))
	var ok []int
	var mols []*Molecule
	for i, s := range smiles {
		preds[i] = Prediction{SMILES: s, Tasks: tasks}
		m, err := chem.Parse(s)
		if err != nil {
			errs[i] = err
			continue
		}
		preds[i].Canonical = m.SMILES()
		ok = append(ok, i)
		mols = append(mols, &Molecule{SMILES: s, Mol: m, Labels: make([]float64, len(tasks))})
	}
	const bs = 64
	T := len(tasks)
	for s := 0; s < len(mols); s += bs {
		e := min(s+bs, len(mols))
		vals, err := run(mols[s:e])
		if err != nil {
			return err
		}
		for k := range e - s {
			preds[ok[s+k]].Values = vals[k*T : (k+1)*T]
		}
	}
	failed := 0
	for i, p := range preds {
		var err error
		if errs[i] != nil {
			failed++
			err = out.Fail(p.SMILES, errs[i])
		} else {
			err = out.Print(p)
		}
		if err != nil {
			return err
		}
	}
	if err := out.Close(); err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d molecules failed to parse", failed, len(smiles))
	}
	return nil
}

// predictSmiles predicts with the checkpoint env.Weights.
func (r *runner) predictSmiles(_ context.Context, env workflow.Env, smiles []string) error {
	mp, err := r.loadCheckpoint(env.Weights)
	if err != nil {
		return err
	}
	return predictBatches(env, smiles, mp)
}

// loadCheckpoint loads the checkpoint dir (a forest or a network).
func (r *runner) loadCheckpoint(dir string) (*molPredictor, error) {
	if r.isForest() {
		fs, err := loadForests(dir)
		if err != nil {
			return nil, err
		}
		return &molPredictor{tasks: r.ds.Tasks, run: func(ms []*Molecule) ([]float64, error) { return r.forestPredict(fs, ms), nil }}, nil
	}
	model, err := r.newModel()
	if err != nil {
		return nil, err
	}
	if _, err := workflow.LoadCheckpoint(dir, model, nil); err != nil {
		return nil, err
	}
	col := r.collate(false)
	// The autograd model was not written for concurrent forwards: one at a time.
	var mu sync.Mutex
	return &molPredictor{tasks: r.ds.Tasks, run: func(ms []*Molecule) ([]float64, error) {
		mu.Lock()
		defer mu.Unlock()
		ss := make([]sample, len(ms))
		for i, m := range ms {
			ss[i] = r.sampleOf(m)
		}
		b, err := col(ss)
		if err != nil {
			return nil, err
		}
		var v []float64
		ag.NoGrad(func() { v = model.Predict(inputsOf(&b), r.cls).T.Contiguous().Float64s() })
		return v, nil
	}}, nil
}

// predictExport predicts with the export directory env.Model.
func predictExport(env workflow.Env, smiles []string) error {
	mp, err := loadExport(env.Model)
	if err != nil {
		return err
	}
	return predictBatches(env, smiles, mp)
}

// Predict is the Runner form (files or "-" as inputs) of predictSmiles;
// an export directory env.Model runs on core/runtime.
func (r *runner) Predict(ctx context.Context, env workflow.Env, inputs []string) error {
	smiles, err := collectSmiles(nil, inputs, env.IO.In)
	if err != nil {
		return err
	}
	smiles = workflow.Sharded(env.Shard, smiles)
	if env.Model != "" {
		return predictExport(env, smiles)
	}
	return r.predictSmiles(ctx, env, smiles)
}

// PredictRecord is `helix predict`'s record, for --help (docs/formats.md).
const PredictRecord = `  {"smiles": string, "canonical": string, "predictions": {"<task>": float | null, ...}}
  canonical: the canonical SMILES; predictions: one value per task of the model (regression: the value,
  classification: the probability), 5 decimals; null when not a finite number.
  failed: {"smiles": string, "error": string}`
