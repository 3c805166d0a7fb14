package det

import (
	"strings"

	"paddle/core/tensor"
)

// PaddleDetection's PicoDet (LCNet + LCPAN + PicoHeadV2) differs from this
// port in its neck and head (docs/formats.md says how), so only the
// backbone maps: PaddleDetection's LCNet (ppdet/modeling/backbones/lcnet.py)
// has PaddleClas's PPLCNet names and layers, under backbone.*.
// pretrain_weights may therefore be a PaddleClas PPLCNet_x*_pretrained
// .pdparams, as PaddleDetection's PicoDet configs name, or a PaddleDetection
// PicoDet checkpoint (its backbone only); --weights with such a file fails
// naming the neck and head tensors it lacks.

// PaddleName maps backbone.* to PaddleDetection's names (backbone. + the
// PaddleClas name, zoo.PPLCNet.PaddleName); the neck and head keep this
// port's names, which no PaddlePaddle file has.
func (m *PicoDet) PaddleName(name string) (pd string, transposed bool) {
	if rest, ok := strings.CutPrefix(name, "backbone."); ok && m.Backbone != nil {
		if pd, tr := m.Backbone.PaddleName(rest); pd != "" {
			return "backbone." + pd, tr
		}
		return "", false
	}
	return name, false
}

// PaddlePrepare reads a PaddleClas classification file (conv1.*,
// blocks2.* ... without the backbone. prefix, as PaddleDetection's
// pretrain_weights match them by suffix) as the backbone's tensors; its
// classifier (last_conv, fc) stays unused.
func (m *PicoDet) PaddlePrepare(tensors map[string]*tensor.Tensor) ([]string, error) {
	if m.Backbone == nil || tensors["conv1.conv.weight"] == nil || tensors["backbone.conv1.conv.weight"] != nil {
		return nil, nil
	}
	var used []string
	for n := range tensors {
		if strings.HasPrefix(n, "conv1.") || strings.HasPrefix(n, "blocks") {
			used = append(used, n)
		}
	}
	for _, n := range used {
		tensors["backbone."+n] = tensors[n]
	}
	return used, nil
}
