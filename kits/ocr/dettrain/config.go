package dettrain

import (
	"paddle/core/config"
	"paddle/core/optim"
	"paddle/kits/ocr/internal/train"
)

// The detection config follows PaddleOCR's layout (configs/det/det_*_db.yml):
// Global / Architecture {model_type: det, algorithm: DB, Backbone, Neck, Head} /
// Loss / Optimizer / PostProcess / Metric / Train / Eval, components by `name:`.

// GlobalOpts is the Global section (PaddleOCR's keys; seed and max_steps are ours).
type GlobalOpts = train.Global

// ArchOpts is the Architecture section.
type ArchOpts struct {
	ModelType string           `yaml:"model_type"` // det
	Algorithm string           `yaml:"algorithm"`  // DB
	Transform config.Component `yaml:"Transform"`  // must be empty
	Backbone  config.Component `yaml:"Backbone"`
	Neck      config.Component `yaml:"Neck"`
	Head      config.Component `yaml:"Head"`
}

// PPLCNetOpts configure the PP-LCNet backbone (core/zoo), used for its
// stride 4, 8, 16 and 32 stage outputs as PaddleOCR's det_pp_lcnet does.
type PPLCNetOpts struct {
	Scale      float64 `yaml:"scale"`       // width multiplier (default 1)
	InChannels int     `yaml:"in_channels"` // default 3
	Pretrained bool    `yaml:"pretrained"`  // accepted; no ImageNet weights are loaded
}

// DBFPNOpts configure PaddleOCR's DBFPN neck: 1×1 lateral convs to
// out_channels, top-down nearest ×2 upsampling and addition, 3×3 convs to
// out_channels/4 per level, upsampled to stride 4 and concatenated.
type DBFPNOpts struct {
	OutChannels int  `yaml:"out_channels"` // default 256
	UseASF      bool `yaml:"use_asf"`      // not implemented
}

// DBHeadOpts configure PaddleOCR's DBHead: probability and threshold branches
// (3×3 conv-BN-ReLU, 2×2 transposed conv-BN-ReLU, 2×2 transposed conv,
// sigmoid) and the differentiable binarisation 1/(1+exp(−k(P−T))).
type DBHeadOpts struct {
	K int `yaml:"k"` // default 50
}

// DBLossOpts configure PaddleOCR's DBLoss: alpha·L_shrink + beta·L_thresh + L_binary.
// main_loss_type BCELoss is the DB paper's balanced BCE with OHEM (negatives
// at most ohem_ratio × positives, the hardest first); DiceLoss is what
// PaddleOCR's DBLoss computes with that setting (its BalanceLoss over a scalar
// dice loss, which comes to the dice loss of the probability map).
type DBLossOpts struct {
	BalanceLoss  *bool   `yaml:"balance_loss"`   // default true
	MainLossType string  `yaml:"main_loss_type"` // BCELoss | DiceLoss (default DiceLoss, as PaddleOCR)
	Alpha        float64 `yaml:"alpha"`          // default 5
	Beta         float64 `yaml:"beta"`           // default 10
	OhemRatio    float64 `yaml:"ohem_ratio"`     // default 3
	Eps          float64 `yaml:"eps"`            // default 1e-6
}

// DBPostProcessOpts configure the box decoding (PaddleOCR's DBPostProcess).
type DBPostProcessOpts struct {
	Thresh        float64 `yaml:"thresh"`         // default 0.3
	BoxThresh     float64 `yaml:"box_thresh"`     // default 0.7
	MaxCandidates int     `yaml:"max_candidates"` // default 1000
	UnclipRatio   float64 `yaml:"unclip_ratio"`   // default 2.0
	UseDilation   bool    `yaml:"use_dilation"`
	ScoreMode     string  `yaml:"score_mode"` // fast (default) | slow
	BoxType       string  `yaml:"box_type"`   // quad (only)
}

// DetMetricOpts is the Metric section's options.
type DetMetricOpts struct {
	MainIndicator string `yaml:"main_indicator"` // hmean
}

// SplitOpts is Train or Eval (shared with the other OCR trainer).
type SplitOpts = train.SplitOpts

// LoaderOpts are PaddleOCR's loader keys.
type LoaderOpts = train.LoaderOpts

// SimpleDataSetOpts read PaddleOCR label files.
type SimpleDataSetOpts = train.SimpleDataSetOpts

// Schema is the detection config's schema.
func Schema() *config.Schema {
	s := &config.Schema{
		Sections: map[string]any{
			"Global":       (*GlobalOpts)(nil),
			"Architecture": (*ArchOpts)(nil),
			"Loss":         (*config.Component)(nil),
			"Optimizer":    (*optim.Config)(nil),
			"PostProcess":  (*config.Component)(nil),
			"Metric":       (*config.Component)(nil),
			"Train":        (*SplitOpts)(nil),
			"Eval":         (*SplitOpts)(nil),
		},
		Components: map[string]map[string]any{
			"Architecture.Backbone":  {"PPLCNet": (*PPLCNetOpts)(nil)},
			"Architecture.Neck":      {"DBFPN": (*DBFPNOpts)(nil)},
			"Architecture.Head":      {"DBHead": (*DBHeadOpts)(nil)},
			"Architecture.Transform": {},
			"Loss":                   {"DBLoss": (*DBLossOpts)(nil)},
			"PostProcess":            {"DBPostProcess": (*DBPostProcessOpts)(nil)},
			"Metric":                 {"DetMetric": (*DetMetricOpts)(nil)},
			"*.dataset":              {"SimpleDataSet": (*SimpleDataSetOpts)(nil)},
		},
		Selector: "name",
	}
	config.Attach(s, "*.dataset.transforms.*", transforms)
	return s
}
