package det

import (
	"paddle/core/config"
)

// The det kit's configs follow PaddleDetection: a `_BASE_` list of
// dataset / runtime / optimizer / model / reader files, top-level runtime
// keys (epoch, log_iter, save_dir, ...), `architecture: PicoDet` with the
// architecture's parts chosen by class name (`PicoDet: {backbone: LCNet,
// neck: LCPAN, head: PicoHeadV2}`) and each part's options in a top-level
// section named after it (`LCNet: {scale: 0.75}`).

// PicoDetOpts is the `PicoDet:` section: which backbone, neck and head.
type PicoDetOpts struct {
	Backbone config.Component `yaml:"backbone"`
	Neck     config.Component `yaml:"neck"`
	Head     config.Component `yaml:"head"`
	// PaddleLayers builds PaddleDetection's own LCPAN and PicoHeadV2 layers
	// (paddle_layers.go) where this port's differ, so PaddleDetection's
	// PicoDet checkpoints load (--weights, pretrain_weights) and predict the
	// same; then LCPAN.num_features 4 (a stride-64 level), PicoFeat's
	// use_se and use_align_head are built as PaddleDetection builds them.
	PaddleLayers bool `yaml:"paddle_layers"`
}

// LCNetOpts configure the PP-LCNet backbone (core/zoo).
type LCNetOpts struct {
	Scale       float64 `yaml:"scale"`        // width multiplier (PicoDet-S 0.75, -M 1.5)
	FeatureMaps []int   `yaml:"feature_maps"` // stages used: 3, 4, 5 (strides 8, 16, 32)
}

// LCPANOpts configure the light PAN neck.
type LCPANOpts struct {
	OutChannels  int  `yaml:"out_channels"`
	KernelSize   int  `yaml:"kernel_size"`   // depthwise kernel of the fusion blocks (default 5)
	UseDepthwise bool `yaml:"use_depthwise"` // accepted; the blocks are always depthwise separable
	NumFeatures  int  `yaml:"num_features"`  // 3, or 4 (a stride-64 level) with PicoDet.paddle_layers
	paddle       bool // PicoDet.paddle_layers
}

// PicoFeatOpts configure the head's per-level conv towers.
type PicoFeatOpts struct {
	Name        string `yaml:"name"`
	FeatIn      int    `yaml:"feat_in"`
	FeatOut     int    `yaml:"feat_out"`
	NumConvs    int    `yaml:"num_convs"`
	NumFPNLevel int    `yaml:"num_fpn_stride"`
	NormType    string `yaml:"norm_type"`
	ShareClsReg bool   `yaml:"share_cls_reg"` // one tower for both outputs; false: decoupled towers
	UseSE       bool   `yaml:"use_se"`        // this port: SE inside each tower block; paddle_layers: one PicoSE per level after the tower
}

// LossOpts is one weighted loss term.
type LossOpts struct {
	Name         string  `yaml:"name"`
	LossWeight   float64 `yaml:"loss_weight"`
	UseSigmoid   bool    `yaml:"use_sigmoid"`
	IoUWeighted  bool    `yaml:"iou_weighted"`
	Alpha        float64 `yaml:"alpha"`
	Gamma        float64 `yaml:"gamma"`
	Beta         float64 `yaml:"beta"`
	UseSigmoidCE bool    `yaml:"use_sigmoid_ce"`
}

// AssignerOpts configure label assignment.
type AssignerOpts struct {
	Name         string  `yaml:"name"`           // TaskAlignedAssigner | SimOTAAssigner
	TopK         int     `yaml:"topk"`           // TaskAligned: candidates per GT (13)
	Alpha        float64 `yaml:"alpha"`          // TaskAligned: score exponent (1)
	Beta         float64 `yaml:"beta"`           // TaskAligned: IoU exponent (6)
	CandidateK   int     `yaml:"candidate_topk"` // SimOTA: IoUs summed for the dynamic k (10)
	CenterRadius float64 `yaml:"center_radius"`  // SimOTA: centre prior radius in strides (2.5)
	IoUWeight    float64 `yaml:"iou_weight"`     // SimOTA: cost weight of -log IoU (3)
	ClsWeight    float64 `yaml:"cls_weight"`     // SimOTA: cost weight of the class cost (1)
	ForceGT      bool    `yaml:"force_gt_matching"`
}

// NMSOpts configure post-processing (PaddleDetection's MultiClassNMS or MatrixNMS).
type NMSOpts struct {
	Name           string  `yaml:"name"` // MultiClassNMS | MatrixNMS
	NMSTopK        int     `yaml:"nms_top_k"`
	KeepTopK       int     `yaml:"keep_top_k"`
	ScoreThreshold float64 `yaml:"score_threshold"`
	NMSThreshold   float64 `yaml:"nms_threshold"`    // MultiClassNMS IoU threshold
	PostThreshold  float64 `yaml:"post_threshold"`   // MatrixNMS: score after decay
	UseGaussian    bool    `yaml:"use_gaussian"`     // MatrixNMS decay kind
	GaussianSigma  float64 `yaml:"gaussian_sigma"`   // MatrixNMS
	Normalized     bool    `yaml:"normalized"`       // accepted; boxes are in pixels
	BackgroundLbl  int     `yaml:"background_label"` // accepted; -1 (no background class)
}

// PicoHeadOpts configure the GFL-style PicoHeadV2.
type PicoHeadOpts struct {
	ConvFeat            PicoFeatOpts `yaml:"conv_feat"`
	FPNStride           []int        `yaml:"fpn_stride"`
	FeatInChan          int          `yaml:"feat_in_chan"`
	PriorProb           float64      `yaml:"prior_prob"`
	RegMax              int          `yaml:"reg_max"`
	CellOffset          float64      `yaml:"cell_offset"`
	GridCellScale       float64      `yaml:"grid_cell_scale"`
	StaticAssignerEpoch int          `yaml:"static_assigner_epoch"` // accepted; no static assigner
	UseAlignHead        bool         `yaml:"use_align_head"`        // built with PicoDet.paddle_layers; accepted otherwise
	StaticAssigner      AssignerOpts `yaml:"static_assigner"`       // accepted
	Assigner            AssignerOpts `yaml:"assigner"`
	LossClass           LossOpts     `yaml:"loss_class"`
	LossDFL             LossOpts     `yaml:"loss_dfl"`
	LossBBox            LossOpts     `yaml:"loss_bbox"`
	NMS                 NMSOpts      `yaml:"nms"`
}

// DatasetOpts describe a COCODataSet or VOCDataSet (TrainDataset, EvalDataset, TestDataset).
type DatasetOpts struct {
	DatasetDir string   `yaml:"dataset_dir"`
	ImageDir   string   `yaml:"image_dir"`
	AnnoPath   string   `yaml:"anno_path"`  // COCO json, or the VOC list file
	LabelList  string   `yaml:"label_list"` // VOC label_list.txt
	DataFields []string `yaml:"data_fields"`
	AllowEmpty bool     `yaml:"allow_empty"`
}

// ReaderOpts is TrainReader / EvalReader / TestReader.
type ReaderOpts struct {
	SampleTransforms []config.Component `yaml:"sample_transforms"`
	BatchTransforms  []config.Component `yaml:"batch_transforms"`
	BatchSize        int                `yaml:"batch_size" check:"min=1"`
	Shuffle          bool               `yaml:"shuffle"`
	DropLast         bool               `yaml:"drop_last"`
	InputsDef        map[string]any     `yaml:"inputs_def"` // accepted
	FuseNormalize    bool               `yaml:"fuse_normalize"`
}

// LearningRateOpts is PaddleDetection's LearningRate section.
type LearningRateOpts struct {
	BaseLR     float64         `yaml:"base_lr"`
	Schedulers []SchedulerOpts `yaml:"schedulers"`
}

// SchedulerOpts is one entry of LearningRate.schedulers.
type SchedulerOpts struct {
	Name        string    `yaml:"name"` // CosineDecay | LinearWarmup | PiecewiseDecay
	MaxEpochs   int       `yaml:"max_epochs"`
	MinLRRatio  float64   `yaml:"min_lr_ratio"`
	StartFactor float64   `yaml:"start_factor"`
	Steps       int       `yaml:"steps"`
	Epochs      float64   `yaml:"epochs" check:"positive"` // LinearWarmup in epochs instead of steps
	Gamma       float64   `yaml:"gamma"`
	Milestones  []int     `yaml:"milestones"`
	Values      []float64 `yaml:"values"`
}

// OptimizerBuilderOpts is PaddleDetection's OptimizerBuilder section.
type OptimizerBuilderOpts struct {
	Optimizer struct {
		Type        string  `yaml:"type"` // Momentum | SGD | Adam | AdamW
		Momentum    float64 `yaml:"momentum"`
		WeightDecay float64 `yaml:"weight_decay"`
	} `yaml:"optimizer"`
	Regularizer *struct {
		Type   string  `yaml:"type"`
		Factor float64 `yaml:"factor"`
	} `yaml:"regularizer"`
	ClipGradByNorm float64 `yaml:"clip_grad_by_norm"`
}

// Transform options (sample and batch transforms).
type (
	// DecodeOpts: Decode reads the image as RGB.
	DecodeOpts struct{}
	// RandomFlipOpts: horizontal flip with probability prob.
	RandomFlipOpts struct {
		Prob float64 `yaml:"prob" check:"prob"`
	}
	// RandomDistortOpts: hue, brightness, contrast and saturation jitter.
	RandomDistortOpts struct {
		Brightness  []float64 `yaml:"brightness"` // [low, high, prob]
		Contrast    []float64 `yaml:"contrast"`
		Saturation  []float64 `yaml:"saturation"`
		Hue         []float64 `yaml:"hue"` // [low, high, prob]: YIQ rotation by delta·π radians
		Count       int       `yaml:"count"`
		RandomApply bool      `yaml:"random_apply"`
	}
	// RandomExpandOpts: place the image on a larger canvas of fill_value.
	RandomExpandOpts struct {
		Ratio     float64   `yaml:"ratio"`
		Prob      float64   `yaml:"prob" check:"prob"`
		FillValue []float64 `yaml:"fill_value"`
	}
	// RandomCropOpts: an SSD-style crop that keeps objects with their centres inside.
	RandomCropOpts struct {
		AspectRatio []float64 `yaml:"aspect_ratio"`
		Thresholds  []float64 `yaml:"thresholds"`
		Scaling     []float64 `yaml:"scaling"`
		NumAttempts int       `yaml:"num_attempts"`
		AllowNoCrop *bool     `yaml:"allow_no_crop"`
		CoverAllBox bool      `yaml:"cover_all_box"`
		IsMaskCrop  bool      `yaml:"is_mask_crop"`
		Prob        float64   `yaml:"prob" check:"prob"` // paddle extension: chance to try a crop (default 1)
	}
	// ResizeOpts: resize to target_size [h, w] (keep_ratio false).
	ResizeOpts struct {
		TargetSize []int `yaml:"target_size"`
		KeepRatio  bool  `yaml:"keep_ratio"`
		Interp     int   `yaml:"interp"`
	}
	// BatchRandomResizeOpts: one size per batch from target_size (multi-scale training).
	BatchRandomResizeOpts struct {
		TargetSize   []int `yaml:"target_size"`
		RandomSize   bool  `yaml:"random_size"`
		RandomInterp bool  `yaml:"random_interp"`
		KeepRatio    bool  `yaml:"keep_ratio"`
	}
	// NormalizeImageOpts: (x/255 - mean) / std.
	NormalizeImageOpts struct {
		IsScale bool      `yaml:"is_scale"`
		Mean    []float64 `yaml:"mean"`
		Std     []float64 `yaml:"std"`
	}
	// MosaicOpts: four images around a random centre on one canvas
	// (YOLOv4/PaddleDetection's Mosaic, simplified: no mixup).
	MosaicOpts struct {
		Prob       float64 `yaml:"prob" check:"prob"` // chance per sample (default 0.5)
		TargetSize int     `yaml:"target_size"`       // each image's longer side on the 2·target_size canvas (default 320)
		FillValue  float64 `yaml:"fill_value"`        // canvas grey (default 114)
	}
	// NoOpts: transforms without options (Permute, PadGT, PadBatch).
	NoOpts struct {
		PadToStride int `yaml:"pad_to_stride"`
	}
)

// Schema is the det kit's config schema.
func Schema() *config.Schema {
	s := &config.Schema{
		Sections: map[string]any{
			"use_gpu": (*bool)(nil), "use_xpu": (*bool)(nil), "log_iter": (*int)(nil), "save_dir": (*string)(nil),
			"snapshot_epoch": (*int)(nil), "print_flops": (*bool)(nil), "find_unused_parameters": (*bool)(nil),
			"use_ema": (*bool)(nil), "ema_decay": (*float64)(nil), "ema_decay_type": (*string)(nil),
			"cycle_epoch": (*int)(nil), "ema_filter_no_grad": (*bool)(nil), "epoch": (*int)(nil), "max_iters": (*int)(nil),
			"metric": (*string)(nil), "num_classes": (*int)(nil), "weights": (*string)(nil), "pretrain_weights": (*string)(nil),
			"worker_num": (*int)(nil), "draw_threshold": (*float64)(nil), "seed": (*uint64)(nil), "eval_interval": (*int)(nil),
			"architecture": (*config.Component)(nil),
			"TrainDataset": (*config.Component)(nil), "EvalDataset": (*config.Component)(nil), "TestDataset": (*config.Component)(nil),
			"TrainReader": (*ReaderOpts)(nil), "EvalReader": (*ReaderOpts)(nil), "TestReader": (*ReaderOpts)(nil),
			"LearningRate": (*LearningRateOpts)(nil), "OptimizerBuilder": (*OptimizerBuilderOpts)(nil),
		},
		Components: map[string]map[string]any{
			"architecture": {"PicoDet": (*PicoDetOpts)(nil)},
			"*.backbone":   {"LCNet": (*LCNetOpts)(nil), "PPLCNetV3": (*PPLCNetV3Opts)(nil)},
			"*.neck":       {"LCPAN": (*LCPANOpts)(nil)},
			"*.head":       {"PicoHeadV2": (*PicoHeadOpts)(nil)},
		},
		Selector: "name",
	}
	for _, slot := range []string{"TrainDataset", "EvalDataset", "TestDataset"} {
		config.Attach(s, slot, datasets)
		// PaddleDetection's TestDataset kind: accepted (predict reads its
		// inputs from the command line), never read as a data set.
		s.Components[slot]["ImageFolder"] = (*DatasetOpts)(nil)
	}
	config.Attach(s, "*.sample_transforms.*", transforms)
	config.Attach(s, "*.batch_transforms.*", transforms)
	return s
}
