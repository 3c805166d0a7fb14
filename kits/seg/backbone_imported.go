package seg

import (
	"math/rand/v2"
	"strings"

	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/nn"
	"paddle/core/zoo"
)

// Backbone gives PPLiteSeg its feature maps, fine to coarse (strides 8,
// 16, 32): an STDC net trained from scratch or from a checkpoint, or
// PP-OCRv4's PP-LCNetV3 imported with its pretrained weights.
type Backbone interface {
	nn.Module
	nn.Bufferer
	Channels() []int
	Features(x *ag.Var, training bool) []*ag.Var
}

// importedBackbone is the model.backbone type of the imported PP-LCNetV3
// (zoo.ImportedOptions):
//
//	model:
//	  type: PPLiteSeg
//	  backbone:
//	    type: PPLCNetV3
//	    model_file: ppocrv4:ch_PP-OCRv4_det_infer.onnx
//	    feature_maps: [3, 4, 5]       # strides 8, 16, 32
//	    lr_mult_list: [0.1, 0.1, 0.2, 0.5, 1.0, 1.0]
//	    freeze_at: -1
const importedBackbone = "PPLCNetV3"

func newImportedBackbone(c config.Component, o zoo.ImportedOptions, _ *rand.Rand) (Backbone, error) {
	b, err := zoo.NewImported(o, "model.backbone")
	if err != nil {
		return nil, c.Errorf("%v", err)
	}
	return b, nil
}

// LRMult is the learning-rate multiplier of a parameter (optim.LRMultiplier):
// an imported backbone's stages take lr_mult_list and freeze_at, the rest 1.
func (m *PPLiteSeg) LRMult(name string) float64 {
	lm, ok := m.Backbone.(interface{ LRMult(string) float64 })
	rest, under := strings.CutPrefix(name, backbonePrefix)
	if !ok || !under {
		return 1
	}
	return lm.LRMult(rest)
}
