package rectrain

import (
	"paddle/core/config"
	"paddle/core/optim"
	"paddle/kits/ocr/internal/train"
)

// The recognition config follows PaddleOCR's layout: Global / Architecture /
// Loss / Optimizer / PostProcess / Metric / Train / Eval, components chosen by `name:`.

// GlobalOpts is the Global section (PaddleOCR's keys; seed and max_steps are ours).
type GlobalOpts = train.Global

// ArchOpts is the Architecture section.
type ArchOpts struct {
	ModelType string           `yaml:"model_type"` // rec
	Algorithm string           `yaml:"algorithm"`  // CRNN | SVTR | SVTR_LCNet (PP-OCRv4, with Backbone ONNXModel)
	Transform config.Component `yaml:"Transform"`  // empty, or STN_ON (PaddleOCR's TPS rectifier)
	Backbone  config.Component `yaml:"Backbone"`
	Neck      config.Component `yaml:"Neck"`
	Head      config.Component `yaml:"Head"`
}

// MiniVGGOpts configure the MiniVGG backbone: stages of conv3×3-BN-ReLU
// (convs per stage) each followed by max pooling, the CRNN paper's VGG
// pattern at small widths. Pool sizes are [kh, kw] per stage: [2, 2] halves
// both sides, [2, 1] only the height. The height left is averaged away.
type MiniVGGOpts struct {
	InChannels int     `yaml:"in_channels"` // default 3
	Channels   []int   `yaml:"channels"`    // per stage (default [32, 64, 128, 128])
	Convs      []int   `yaml:"convs"`       // convs per stage (default 1 each)
	Pools      [][]int `yaml:"pools"`       // per stage (default [[2,2],[2,2],[2,1],[2,1]])
}

// SequenceEncoderOpts configure the neck: Im2Seq then, for encoder_type rnn,
// a bidirectional LSTM (PaddleOCR's EncoderWithRNN: 2 layers).
type SequenceEncoderOpts struct {
	EncoderType string `yaml:"encoder_type"` // rnn | reshape
	HiddenSize  int    `yaml:"hidden_size"`  // default 48
	NumLayers   int    `yaml:"num_layers"`   // ours; default 2 as PaddleOCR
}

// CTCHeadOpts configure the head: one linear layer to the classes.
type CTCHeadOpts struct {
	FCDecay     float64 `yaml:"fc_decay"`     // accepted; the Optimizer's regularizer applies to all weights
	MidChannels int     `yaml:"mid_channels"` // > 0: two linear layers
}

// CTCLossOpts configure the loss (PaddleOCR's CTCLoss: mean over the batch of each line's −log p).
type CTCLossOpts struct {
	UseFocalLoss bool `yaml:"use_focal_loss"`
}

// CTCLabelDecodeOpts is the PostProcess section's options.
type CTCLabelDecodeOpts struct {
	CharacterDictPath string `yaml:"character_dict_path"`
	UseSpaceChar      *bool  `yaml:"use_space_char"`
}

// RecMetricOpts is the Metric section's options.
type RecMetricOpts struct {
	MainIndicator string `yaml:"main_indicator"` // acc
	IsFilter      bool   `yaml:"is_filter"`      // keep only [0-9a-zA-Z], lower-cased
	IgnoreSpace   *bool  `yaml:"ignore_space"`   // default true
}

// SplitOpts is Train or Eval (shared with the other OCR trainer).
type SplitOpts = train.SplitOpts

// LoaderOpts are PaddleOCR's loader keys.
type LoaderOpts = train.LoaderOpts

// SimpleDataSetOpts read PaddleOCR label files.
type SimpleDataSetOpts = train.SimpleDataSetOpts

// Schema is the recognition config's schema.
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
			"Architecture.Neck":      {"SequenceEncoder": (*SequenceEncoderOpts)(nil)},
			"Architecture.Head":      {"CTCHead": (*CTCHeadOpts)(nil)},
			"Architecture.Transform": {"STN_ON": (*STNOpts)(nil)},
			"Loss":                   {"CTCLoss": (*CTCLossOpts)(nil)},
			"PostProcess":            {"CTCLabelDecode": (*CTCLabelDecodeOpts)(nil)},
			"Metric":                 {"RecMetric": (*RecMetricOpts)(nil)},
			"*.dataset":              {"SimpleDataSet": (*SimpleDataSetOpts)(nil)},
		},
		Selector: "name",
	}
	config.Attach(s, "Architecture.Backbone", backbones)
	s.Components["Architecture.Backbone"]["ONNXModel"] = (*ONNXModelOpts)(nil) // the whole network, imported (buildImported)
	config.Attach(s, "*.dataset.transforms.*", transforms)
	return s
}
