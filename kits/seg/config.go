package seg

import (
	"paddle/core/config"
	"paddle/core/zoo"
)

// The seg kit's config follows PaddleSeg: top-level `batch_size`, `iters`,
// `train_dataset`, `val_dataset`, `model`, `optimizer`, `lr_scheduler`,
// `loss: {types, coef}`, `test_config`, components chosen by `type:` and
// shared parts pulled in with `_base_`.

// DatasetOpts configure PaddleSeg's generic `Dataset`: file lists of
// `image label` lines relative to dataset_root. A relative train_path /
// val_path that does not exist as given is looked up under dataset_root.
type DatasetOpts struct {
	DatasetRoot string             `yaml:"dataset_root"`
	TrainPath   string             `yaml:"train_path"`
	ValPath     string             `yaml:"val_path"`
	NumClasses  int                `yaml:"num_classes" check:"min=1"`
	Mode        string             `yaml:"mode"` // train | val
	IgnoreIndex *int               `yaml:"ignore_index"`
	Separator   string             `yaml:"separator"`
	Transforms  []config.Component `yaml:"transforms"`
	Limit       int                `yaml:"limit"` // use only the first N pairs (0: all); tests and smoke runs
}

// OptimizerOpts is PaddleSeg's `optimizer` section.
type OptimizerOpts struct {
	Type        string  `yaml:"type"` // SGD (momentum), Momentum, Adam, AdamW
	Momentum    float64 `yaml:"momentum"`
	WeightDecay float64 `yaml:"weight_decay"`
	Beta1       float64 `yaml:"beta1"`
	Beta2       float64 `yaml:"beta2"`
	GradClip    float64 `yaml:"grad_clip_norm"`
}

// LRSchedulerOpts is PaddleSeg's `lr_scheduler` section.
type LRSchedulerOpts struct {
	Type          string  `yaml:"type"` // PolynomialDecay, CosineAnnealingDecay, Constant
	LearningRate  float64 `yaml:"learning_rate" check:"min=0"`
	EndLR         float64 `yaml:"end_lr"`
	Power         float64 `yaml:"power"`
	EtaMin        float64 `yaml:"eta_min"`
	WarmupIters   int     `yaml:"warmup_iters"`
	WarmupStartLR float64 `yaml:"warmup_start_lr"`
}

// LossOpts is PaddleSeg's `loss` section: one loss per model output (or
// one for all), each weighted by its coef.
type LossOpts struct {
	Types []config.Component `yaml:"types"`
	Coef  []float64          `yaml:"coef"`
}

// MixedLossOpts combine losses on one output: Σ coef_i·loss_i.
type MixedLossOpts struct {
	Losses []config.Component `yaml:"losses"`
	Coef   []float64          `yaml:"coef"`
}

// CrossEntropyOpts configure PaddleSeg's CrossEntropyLoss.
type CrossEntropyOpts struct {
	Weight      []float64 `yaml:"weight"`
	IgnoreIndex *int      `yaml:"ignore_index"`
}

// OhemOpts configure OhemCrossEntropyLoss.
type OhemOpts struct {
	Thresh      float64 `yaml:"thresh"`   // default 0.7
	MinKept     int     `yaml:"min_kept"` // default 10000
	IgnoreIndex *int    `yaml:"ignore_index"`
}

// DiceOpts configure DiceLoss.
type DiceOpts struct {
	Weight      []float64 `yaml:"weight"`
	IgnoreIndex *int      `yaml:"ignore_index"`
	Smooth      *float64  `yaml:"smooth"` // default 1
}

// TestConfig is PaddleSeg's `test_config`: whole-image or sliding-window
// inference.
type TestConfig struct {
	IsSlide  bool  `yaml:"is_slide"`
	CropSize []int `yaml:"crop_size"` // [w, h]
	Stride   []int `yaml:"stride"`    // [w, h]
}

// ExportOpts is the `export` section (paddle's own): the fixed input size
// of model.onnx; predict resizes images to it and the logits back.
type ExportOpts struct {
	InputShape []int `yaml:"input_shape"` // [N, C, H, W]; N -1 for dynamic batch
}

// PPLiteSegOpts configure a PP-LiteSeg-style net (Peng et al. 2022,
// https://arxiv.org/abs/2204.02681): backbone features at strides 8, 16,
// 32, a simple pyramid pooling module on the last, unified attention
// fusion modules (spatial attention) top-down, and a seg head per fused map
// (the extra two only in training).
type PPLiteSegOpts struct {
	Backbone        config.Component `yaml:"backbone"`
	ArmOutChs       []int            `yaml:"arm_out_chs"`               // decoder widths at strides 8, 16, 32 (default [64, 96, 128])
	SegHeadInterChs []int            `yaml:"seg_head_inter_chs"`        // default [64, 64, 64]
	CMChs           int              `yaml:"cm_out_ch"`                 // SPPM width (default 128)
	CMBins          []int            `yaml:"cm_bin_sizes"`              // default [1, 2, 4]
	NumClasses      int              `yaml:"num_classes" check:"min=1"` // default: train_dataset.num_classes
	Pretrained      string           `yaml:"pretrained"`                // whole-model checkpoint folder to start training from (null: none)
	// PaddleLayers builds PaddleSeg's own layers where this port differs
	// (PPContextModule convs with biases, SegHead.conv_out without,
	// UAFM_SpAtten's frozen _scale), so PaddleSeg's .pdparams load
	// (--weights, pretrain): PaddleLiteSeg. It needs an STDC backbone.
	PaddleLayers bool `yaml:"paddle_layers"`
}

// BackboneOpts configure the STDC backbone of PPLiteSeg (zoo.STDCOptions)
// plus PaddleSeg's `pretrained`: a checkpoint folder to take the backbone's
// weights from when training starts, either a whole model's (its tensors
// named backbone.*) or a backbone's alone.
type BackboneOpts struct {
	zoo.STDCOptions `yaml:",inline"`
	Pretrained      string `yaml:"pretrained"`
}

// UNetOpts configure U-Net (Ronneberger et al. 2015), PaddleSeg's layout: a
// double 3x3 ConvBN per level, 4 max-pool downsamplings, bilinear (or
// transposed-conv) upsampling with skip concatenation.
type UNetOpts struct {
	NumClasses   int    `yaml:"num_classes" check:"min=1"`
	BaseChannels int    `yaml:"base_channels"` // default 64 (PaddleSeg's)
	UseDeconv    bool   `yaml:"use_deconv"`
	InChannels   int    `yaml:"in_channels"` // default 3
	Pretrained   string `yaml:"pretrained"`  // whole-model checkpoint folder to start training from (null: none)
}

// Transform option types (PaddleSeg names).
type (
	// ResizeStepScalingOpts rescale by a random factor from
	// [min, max] in steps (0: continuous).
	ResizeStepScalingOpts struct {
		MinScaleFactor float64 `yaml:"min_scale_factor"`
		MaxScaleFactor float64 `yaml:"max_scale_factor"`
		ScaleStepSize  float64 `yaml:"scale_step_size"`
	}
	// RandomPaddingCropOpts pad up to crop_size, then crop it at random.
	RandomPaddingCropOpts struct {
		CropSize          []int    `yaml:"crop_size"` // [w, h]
		ImPaddingValue    *float64 `yaml:"im_padding_value"`
		LabelPaddingValue *int     `yaml:"label_padding_value"`
	}
	// RandomHorizontalFlipOpts flip with probability prob (default 0.5).
	RandomHorizontalFlipOpts struct {
		Prob *float64 `yaml:"prob" check:"prob"`
	}
	// RandomDistortOpts jitter brightness, contrast and saturation.
	RandomDistortOpts struct {
		BrightnessRange float64  `yaml:"brightness_range"`
		BrightnessProb  *float64 `yaml:"brightness_prob"`
		ContrastRange   float64  `yaml:"contrast_range"`
		ContrastProb    *float64 `yaml:"contrast_prob"`
		SaturationRange float64  `yaml:"saturation_range"`
		SaturationProb  *float64 `yaml:"saturation_prob"`
	}
	// ResizeOpts resize to target_size [w, h] (labels nearest).
	ResizeOpts struct {
		TargetSize []int `yaml:"target_size"`
	}
	// NormalizeOpts map pixels to (v/255 - mean)/std per channel (default 0.5, 0.5).
	NormalizeOpts struct {
		Mean []float64 `yaml:"mean"`
		Std  []float64 `yaml:"std"`
	}
)

// Schema is the seg kit's config schema.
func Schema() *config.Schema {
	s := &config.Schema{
		Sections: map[string]any{
			"batch_size":    (*int)(nil),
			"iters":         (*int)(nil),
			"seed":          (*int)(nil),
			"log_iters":     (*int)(nil),
			"save_interval": (*int)(nil),
			"num_workers":   (*int)(nil),
			"output_dir":    (*string)(nil),
			"train_dataset": (*config.Component)(nil),
			"val_dataset":   (*config.Component)(nil),
			"model":         (*config.Component)(nil),
			"optimizer":     (*OptimizerOpts)(nil),
			"lr_scheduler":  (*LRSchedulerOpts)(nil),
			"loss":          (*LossOpts)(nil),
			"test_config":   (*TestConfig)(nil),
			"export":        (*ExportOpts)(nil),
			// Data-parallel training (paddle's; PaddleSeg has no keys for
			// it, its launcher decides): auto|on|off as Global.distributed
			// elsewhere, and whether batch norms synchronise over the ranks
			// (default true: PaddleSeg's layers are SyncBatchNorm on several
			// cards).
			"distributed": (*string)(nil),
			"use_sync_bn": (*bool)(nil),
		},
		Components: map[string]map[string]any{
			"train_dataset": {"Dataset": (*DatasetOpts)(nil), "SynthDataset": (*SynthDatasetOpts)(nil)},
			"val_dataset":   {"Dataset": (*DatasetOpts)(nil), "SynthDataset": (*SynthDatasetOpts)(nil)},
		},
		Selector: "type",
	}
	config.Attach(s, "*.transforms.*", transforms)
	config.Attach(s, "model", models)
	config.Attach(s, "model.backbone", backbones)
	config.Attach(s, "loss.types.*", losses)
	config.Attach(s, "loss.types.*.losses.*", losses)
	return s
}
