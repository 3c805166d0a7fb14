package seg

import (
	"fmt"
	"strings"

	"paddle/core/tensor"
	"paddle/core/zoo"
)

// PaddleLiteSeg is PPLiteSeg built with model.paddle_layers: PaddleSeg's
// own layers (paddleseg/models/pp_liteseg.py with arm_type UAFM_SpAtten
// over backbones/stdcnet.py's STDC1 / STDC2), whose weights load from
// PaddleSeg's .pdparams (workflow.PaddleNamer): a PaddleSeg checkpoint
// predicts the same here.
type PaddleLiteSeg struct {
	*PPLiteSeg
	stdc *zoo.STDCNet
}

func newPaddleLiteSeg(m *PPLiteSeg) (*PaddleLiteSeg, error) {
	bb, ok := m.Backbone.(*zoo.STDCNet)
	if !ok {
		return nil, fmt.Errorf("PPLiteSeg: paddle_layers needs an STDC backbone (PaddleSeg's STDC1 or STDC2), not %s", importedBackbone)
	}
	return &PaddleLiteSeg{PPLiteSeg: m, stdc: bb}, nil
}

// PaddleName maps a parameter or buffer name to PaddleSeg's structured
// name: backbone.* as STDCNet's (zoo.STDCNet.PaddleName);
// sppm.stages.<i> → ppseg_head.cm.stages.<i>.1 (after the adaptive pool of
// the Sequential), sppm.out → ppseg_head.cm.conv_out; arms.<i> →
// ppseg_head.arm_list.<i> with conv_x, conv_out, conv_xy_atten.0|1 and
// _scale; heads.<i>.conv → seg_heads.<i>.conv, heads.<i>.cls →
// seg_heads.<i>.conv_out. PaddleSeg's ConvBNReLU/ConvBN name their parts
// _conv and _batch_norm.
func (m *PaddleLiteSeg) PaddleName(name string) (pd string, transposed bool) {
	if rest, ok := strings.CutPrefix(name, backbonePrefix); ok {
		if pd, tr := m.stdc.PaddleName(rest); pd != "" {
			return backbonePrefix + pd, tr
		}
		return "", false
	}
	layer := strings.NewReplacer("conv.", "_conv.", "bn.", "_batch_norm.")
	head, idx, rest := name, "", ""
	if a, b, ok := strings.Cut(name, "."); ok {
		head = a
		idx, rest, _ = strings.Cut(b, ".")
	}
	switch head {
	case "sppm":
		if idx == "out" {
			return zoo.PaddleBN("ppseg_head.cm.conv_out." + layer.Replace(rest)), false
		}
		_, r, _ := strings.Cut(rest, ".") // stages.<i>.<part>
		i, _, _ := strings.Cut(rest, ".")
		return zoo.PaddleBN("ppseg_head.cm.stages." + i + ".1." + layer.Replace(r)), false
	case "arms":
		pre := "ppseg_head.arm_list." + idx + "."
		if rest == "scale" {
			return pre + "_scale", false
		}
		part, r, _ := strings.Cut(rest, ".")
		sub := map[string]string{"conv_x": "conv_x", "out": "conv_out", "atten1": "conv_xy_atten.0", "atten2": "conv_xy_atten.1"}[part]
		if sub == "" {
			return name, false
		}
		return zoo.PaddleBN(pre + sub + "." + layer.Replace(r)), false
	case "heads":
		pre := "seg_heads." + idx + "."
		if r, ok := strings.CutPrefix(rest, "cls."); ok {
			return pre + "conv_out." + r, false
		}
		if r, ok := strings.CutPrefix(rest, "conv."); ok {
			return zoo.PaddleBN(pre + "conv." + layer.Replace(r)), false
		}
	}
	return name, false
}

// PaddlePrepare gives each UAFM the _scale of 1 that PaddleSeg's
// checkpoints from before August 2022 lack (their UAFM_SpAtten computed
// y·(1-α) with the constant).
func (m *PaddleLiteSeg) PaddlePrepare(tensors map[string]*tensor.Tensor) ([]string, error) {
	for i := range m.ARMs {
		n := fmt.Sprintf("ppseg_head.arm_list.%d._scale", i)
		if _, ok := tensors[n]; !ok {
			tensors[n] = tensor.FromSlice([]float32{1}, 1)
		}
	}
	return nil, nil
}
