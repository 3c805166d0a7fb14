package seg

import (
	"fmt"
	"strings"

	pio "paddle/core/io"
	"paddle/core/nn"
	"paddle/core/workflow"
)

// PaddleSeg's `model.pretrained` (a whole-model checkpoint folder) and
// `model.backbone.pretrained` (backbone weights) start training from
// earlier weights: every tensor that matches by name and shape is copied
// (workflow.LoadPretrained), the rest keep their initial values, so a
// model pretrained for other classes gives everything but its classifiers.
// They act only when training starts, never on --resume (the checkpoint
// holds everything) nor in eval, predict or export.

// backbonePrefix is the name prefix of PPLiteSeg's backbone tensors.
const backbonePrefix = "backbone."

// pretrainedSources returns the folders model.backbone.pretrained and
// model.pretrained name ("" when null).
func (r *runner) pretrainedSources() (backbone, whole string, err error) {
	spec, err := models.Build(r.model, struct{}{})
	if err != nil {
		return "", "", err
	}
	backbone, whole = spec.backbonePretrained, spec.whole
	for _, s := range []struct{ key, dir string }{{"model.backbone.pretrained", backbone}, {"model.pretrained", whole}} {
		if strings.Contains(s.dir, "://") {
			return "", "", fmt.Errorf("%s: %s: %q: only a local checkpoint folder can be loaded (nothing is downloaded)", r.cfg.File, s.key, s.dir)
		}
	}
	return backbone, whole, nil
}

// loadPretrained loads model.backbone.pretrained, then model.pretrained
// (which wins where both give a tensor, as in PaddleSeg, where the whole
// model's weights are loaded after the backbone's) into m.
func (r *runner) loadPretrained(m Model) error {
	bb, whole, err := r.pretrainedSources()
	if err != nil {
		return err
	}
	if bb != "" {
		if err := loadBackbone(bb, m); err != nil {
			return fmt.Errorf("%s: model.backbone.pretrained: %w", r.cfg.File, err)
		}
	}
	if whole != "" {
		skipped, err := workflow.LoadPretrained(whole, m)
		if err != nil {
			return fmt.Errorf("%s: model.pretrained: %w", r.cfg.File, err)
		}
		workflow.LogPretrained("model.pretrained", whole, m, skipped)
	}
	return nil
}

// loadBackbone loads backbone weights from dir into m's backbone: from a
// whole-model checkpoint (tensors named backbone.*) the tensors under that
// prefix, else the checkpoint's tensors as the backbone's own names. A
// PaddleSeg backbone .pdparams (STDCNet's names, features.*) loads into an
// STDC backbone by name and shape.
func loadBackbone(dir string, m Model) error {
	lm, ok := m.(interface{ liteSeg() *PPLiteSeg })
	if !ok {
		return fmt.Errorf("model %T has no backbone", m)
	}
	pl := lm.liteSeg()
	var into nn.Module = pl.Backbone
	if !workflow.IsPaddleWeights(dir) {
		c, err := pio.LoadCheckpoint(dir)
		if err != nil {
			return err
		}
		for name := range c.Model {
			if strings.HasPrefix(name, backbonePrefix) {
				into = prefixView{pl, backbonePrefix}
				break
			}
		}
	}
	skipped, err := workflow.LoadPretrained(dir, into)
	if err != nil {
		return err
	}
	workflow.LogPretrained("model.backbone.pretrained", dir, into, skipped)
	return nil
}

// prefixView is the part of a model whose tensor names start with prefix
// (full names kept), so LoadPretrained fills only that part.
type prefixView struct {
	m      Model
	prefix string
}

func (v prefixView) filter(ps []nn.Param) []nn.Param {
	var out []nn.Param
	for _, p := range ps {
		if strings.HasPrefix(p.Name, v.prefix) {
			out = append(out, p)
		}
	}
	return out
}

func (v prefixView) Params() []nn.Param  { return v.filter(v.m.Params()) }
func (v prefixView) Buffers() []nn.Param { return v.filter(v.m.Buffers()) }
