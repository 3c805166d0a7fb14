package det

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"paddle/core/zoo"
)

// PPLCNetV3Opts configure the PPLCNetV3 backbone: PP-OCRv4's text-detector
// backbone, imported with its pretrained weights from the ONNX file
// (zoo.ImportedBackbone), in place of a from-scratch LCNet:
//
//	PicoDet: {backbone: PPLCNetV3, neck: LCPAN, head: PicoHeadV2}
//	PPLCNetV3:
//	  model_file: ppocrv4:ch_PP-OCRv4_det_infer.onnx
//	  feature_maps: [3, 4, 5]       # strides 8, 16, 32 → LCPAN
//	  lr_mult_list: [0.1, 0.1, 0.2, 0.5, 1.0, 1.0]
//	  freeze_at: -1
type PPLCNetV3Opts = zoo.ImportedOptions

// DefaultBackboneModel is the model file PPLCNetV3 imports by default.
const DefaultBackboneModel = zoo.DefaultImportedModel

// NewPicoDetImported builds PicoDet on the imported PPLCNetV3 backbone.
func NewPicoDetImported(bb PPLCNetV3Opts, nk LCPANOpts, hd PicoHeadOpts, numClasses int, r *rand.Rand) (*PicoDet, error) {
	if numClasses <= 0 {
		return nil, fmt.Errorf("num_classes must be > 0, got %d", numClasses)
	}
	if n := len(bb.FeatureMaps); n != 0 && n != 3 {
		return nil, fmt.Errorf("PPLCNetV3.feature_maps: want 3 stages (e.g. [3, 4, 5]), got %v", bb.FeatureMaps)
	}
	back, err := zoo.NewImported(bb, "PPLCNetV3")
	if err != nil {
		return nil, err
	}
	m := &PicoDet{Imported: back}
	if err := m.buildNeckHead(back.Channels(), nk, hd, numClasses, r); err != nil {
		return nil, err
	}
	return m, nil
}

// LRMult is the learning-rate multiplier of a parameter (optim.LRMultiplier):
// the imported backbone's stages take lr_mult_list and freeze_at, the rest 1.
func (m *PicoDet) LRMult(name string) float64 {
	rest, ok := strings.CutPrefix(name, "backbone.")
	if m.Imported == nil || !ok {
		return 1
	}
	return m.Imported.LRMult(rest)
}
