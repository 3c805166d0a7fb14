package speech

import (
	"fmt"

	pio "paddle/core/io"
	"paddle/core/nn"
	"paddle/core/tensor"
	"paddle/core/workflow"
)

// Checkpoint averaging: Global.average_with lists more checkpoints of the
// same model whose weights are averaged with those of --weights (the
// float parameters and buffers, element-wise; integer buffers stay
// --weights'). Averaging the last epochs of one run (as in stochastic
// weight averaging, Izmailov et al. 2018) lands in a flatter region than
// any one of them. Eval, predict, kws --weights and export use it.

// loadWeights loads checkpoint dir into model, averaged with
// Global.average_with.
func (r *kwsRunner) loadWeights(dir string, model nn.Layer) error {
	if _, err := workflow.LoadCheckpoint(dir, model, nil); err != nil {
		return err
	}
	return averageInto(model, r.global.AverageWith)
}

// averageInto replaces model's float tensors by their mean with the same
// tensors of the checkpoints in dirs.
func averageInto(model nn.Layer, dirs []string) error {
	if len(dirs) == 0 {
		return nil
	}
	state := nn.State(model)
	sums := map[string][]float64{}
	for name, t := range state {
		if t.DType() != tensor.Float32 {
			continue
		}
		v := t.Contiguous().F32()
		s := make([]float64, len(v))
		for i, x := range v {
			s[i] = float64(x)
		}
		sums[name] = s
	}
	for _, d := range dirs {
		c, err := pio.LoadCheckpoint(d)
		if err != nil {
			return fmt.Errorf("Global.average_with: %w", err)
		}
		for name, s := range sums {
			o, ok := c.Model[name]
			if !ok || !o.Shape().Equal(state[name].Shape()) {
				return fmt.Errorf("Global.average_with: %s: %s is missing or shaped differently (another model?)", d, name)
			}
			for i, x := range o.Cast(tensor.Float32).Contiguous().F32() {
				s[i] += float64(x)
			}
		}
	}
	n := float64(len(dirs) + 1)
	for name, s := range sums {
		avg := tensor.New(tensor.Float32, state[name].Shape()...)
		v := avg.F32()
		for i, x := range s {
			v[i] = float32(x / n)
		}
		state[name].CopyFrom(avg)
	}
	return nil
}
