package workflow

import (
	"fmt"
	"slices"
	"strings"

	"paddle/core/io/pdparams"
	"paddle/core/nn"
	"paddle/core/tensor"
)

// PaddleNamer is implemented by models that can start from PaddlePaddle
// weights (.pdparams). PaddleName maps one of the model's parameter or
// buffer names to the structured name paddle.save wrote for it, "" when
// Paddle has no such tensor (the model keeps its own value), and says
// whether Paddle stores it transposed (nn.Linear weights are (in, out) in
// Paddle, (out, in) here).
type PaddleNamer interface {
	PaddleName(name string) (pd string, transposed bool)
}

// PaddlePreparer is implemented by models whose tensors Paddle stores in
// another form: PaddlePrepare may add tensors derived from the file's
// (PaddleOCR's re-parameterisable layers fold their training branches into
// one conv) and returns the file's names it consumed or deliberately
// ignores (training-only heads), so strict loading does not report them.
type PaddlePreparer interface {
	PaddlePrepare(tensors map[string]*tensor.Tensor) (used []string, err error)
}

// IsPaddleWeights says whether path names a paddle.save weights file, which
// --weights and pretrain_weights accept in place of a checkpoint folder.
func IsPaddleWeights(path string) bool { return strings.HasSuffix(path, ".pdparams") }

// paddleState reads the .pdparams file path and returns its tensors under
// m's names, converted to m's layout and dtypes, plus the Paddle names no
// tensor of m took. A tensor m has but the file lacks is left out; a tensor
// Paddle does not have takes m's current value.
func paddleState(path string, m nn.Module) (map[string]*tensor.Tensor, []string, error) {
	namer, ok := m.(PaddleNamer)
	if !ok {
		return nil, nil, fmt.Errorf("%s: this model (%T) has no map from PaddlePaddle's parameter names; use a checkpoint folder", path, m)
	}
	f, err := pdparams.Read(path)
	if err != nil {
		return nil, nil, err
	}
	out := map[string]*tensor.Tensor{}
	used := map[string]bool{}
	if pp, ok := m.(PaddlePreparer); ok {
		names, err := pp.PaddlePrepare(f.Tensors)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		for _, n := range names {
			used[n] = true
		}
	}
	for _, p := range append(m.Params(), nn.Buffers(m)...) {
		pd, transposed := namer.PaddleName(p.Name)
		if pd == "" {
			out[p.Name] = p.V.T
			continue
		}
		t, ok := f.Tensors[pd]
		if !ok {
			continue
		}
		used[pd] = true
		if transposed {
			if t.Rank() != 2 {
				return nil, nil, fmt.Errorf("%s: %s is %v, want a 2-D (in, out) Linear weight for %s", path, pd, t.Shape(), p.Name)
			}
			t = t.Transpose().Clone()
		}
		if t.DType() != p.V.T.DType() {
			t = t.Cast(p.V.T.DType())
		}
		out[p.Name] = t
	}
	var unused []string
	for _, n := range f.Names {
		if !used[n] {
			unused = append(unused, n)
		}
	}
	return out, unused, nil
}

// loadPaddleModel loads every tensor of m from the .pdparams file path,
// failing on any tensor missing, unused or of the wrong shape.
func loadPaddleModel(path string, m nn.Module) error {
	got, unused, err := paddleState(path, m)
	if err != nil {
		return err
	}
	if len(unused) > 0 {
		return fmt.Errorf("load weights from %s: %d PaddlePaddle tensors match no tensor of the model, e.g. %s", path, len(unused), strings.Join(unused[:min(4, len(unused))], ", "))
	}
	return LoadModel(m, got, path)
}

// loadPaddlePretrained copies the tensors of the .pdparams file path whose
// shapes match, as LoadPretrained does for a checkpoint folder.
func loadPaddlePretrained(path string, m nn.Module) (skipped []string, err error) {
	got, _, err := paddleState(path, m)
	if err != nil {
		return nil, err
	}
	loaded := 0
	for _, p := range append(m.Params(), nn.Buffers(m)...) {
		t, ok := got[p.Name]
		if !ok || !t.Shape().Equal(p.V.T.Shape()) {
			skipped = append(skipped, p.Name)
			continue
		}
		if t != p.V.T {
			p.V.T.CopyFrom(t)
			loaded++
		}
	}
	if loaded == 0 {
		return nil, fmt.Errorf("pretrained weights %s: no tensor matches the model by name and shape", path)
	}
	slices.Sort(skipped)
	return skipped, nil
}

// ModelBuilder is the optional Runner capability behind `paddle <kit>
// export --format pdparams`: the model its config describes, before any
// weights are loaded.
type ModelBuilder interface {
	NewModel() (nn.Module, error)
}

// DataFreeModel is the optional Runner capability behind
// scripts/allreduce (docs/distributed.md's all-reduce table): the
// untrained model a config describes, without training. Where the data set
// fixes a size (classes, vocabulary), either a size the config states
// stands in or the size is read as train reads it (the label file, the
// training split); assumed says which ("" when the config alone sized it).
type DataFreeModel interface {
	DataFreeModel() (m nn.Module, assumed string, err error)
}

// PaddleEntries lists m's parameters and buffers under PaddlePaddle's
// names and in Paddle's layouts (Linear weights (in, out)), as
// paddle.save would write the same model's state dict; tensors Paddle does
// not have (batch counters) are left out.
func PaddleEntries(m nn.Module) ([]pdparams.Entry, error) {
	namer, ok := m.(PaddleNamer)
	if !ok {
		return nil, fmt.Errorf("this model (%T) has no map to PaddlePaddle's parameter names", m)
	}
	var out []pdparams.Entry
	for _, p := range append(m.Params(), nn.Buffers(m)...) {
		pd, transposed := namer.PaddleName(p.Name)
		if pd == "" {
			continue
		}
		t := p.V.T
		if transposed {
			if t.Rank() != 2 {
				return nil, fmt.Errorf("%s is %v, want a 2-D weight to store as Paddle's (in, out) %s", p.Name, t.Shape(), pd)
			}
			t = t.Transpose().Clone()
		}
		out = append(out, pdparams.Entry{Name: pd, T: t})
	}
	return out, nil
}

// WritePaddleWeights writes m's weights to path as a .pdparams that
// paddle.load (and --weights here) reads back.
func WritePaddleWeights(path string, m nn.Module) error {
	if !IsPaddleWeights(path) {
		return fmt.Errorf("%s: a PaddlePaddle weights file must end in .pdparams", path)
	}
	entries, err := PaddleEntries(m)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return pdparams.Write(path, entries)
}
