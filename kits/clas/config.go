package clas

import (
	"paddle/core/config"
	"paddle/core/optim"
)

// The clas kit's config follows PaddleClas: Global / Arch / Loss /
// Optimizer / DataLoader / Metric / Infer.

// GlobalOpts is the Global section.
type GlobalOpts struct {
	Epochs         int    `yaml:"epochs" check:"min=1"`
	ClassNum       int    `yaml:"class_num"`
	ImageShape     []int  `yaml:"image_shape"` // [C, H, W] the model sees
	Seed           uint64 `yaml:"seed"`
	OutputDir      string `yaml:"output_dir"`
	EvalInterval   int    `yaml:"eval_interval"`    // epochs
	SaveInterval   int    `yaml:"save_interval"`    // epochs
	PrintBatchStep int    `yaml:"print_batch_step"` // log every N steps
	MaxSteps       int    `yaml:"max_steps"`        // stop early (tests, smoke runs)
	Device         string `yaml:"device"`           // accepted for PaddleClas compatibility; --device decides
}

// LossOpts is the Loss section: lists of one-key loss maps.
type LossOpts struct {
	Train []config.Component `yaml:"Train"`
	Eval  []config.Component `yaml:"Eval"`
}

// CELossOpts configure cross-entropy (PaddleClas CELoss).
type CELossOpts struct {
	Weight  float64 `yaml:"weight"`
	Epsilon float64 `yaml:"epsilon"` // label smoothing
}

// DataLoaderOpts is the DataLoader section.
type DataLoaderOpts struct {
	Train *SplitOpts `yaml:"Train"`
	Eval  *SplitOpts `yaml:"Eval"`
}

// SplitOpts configure one split's data.
type SplitOpts struct {
	Dataset config.Component `yaml:"dataset"`
	Sampler SamplerOpts      `yaml:"sampler"`
	Loader  LoaderOpts       `yaml:"loader"`
}

// SamplerOpts are PaddleClas sampler keys.
type SamplerOpts struct {
	Name      string `yaml:"name"`
	BatchSize int    `yaml:"batch_size" check:"min=1"`
	Shuffle   bool   `yaml:"shuffle"`
	DropLast  bool   `yaml:"drop_last"`
}

// LoaderOpts are PaddleClas loader keys.
type LoaderOpts struct {
	NumWorkers int  `yaml:"num_workers" check:"min=0"`
	UseShared  bool `yaml:"use_shared_memory"`
}

// MNISTOpts select MNIST's IDX files (from the GoMNIST module by default).
type MNISTOpts struct {
	Split   string `yaml:"split"`    // train | test
	DataDir string `yaml:"data_dir"` // folder with the four IDX files
	Limit   int    `yaml:"limit"`    // use only the first N samples (0: all)
}

// DigitsOpts select sklearn's 8x8 digits, split deterministically.
type DigitsOpts struct {
	Split string `yaml:"split"` // train (first 1,500) | test (the remaining 297)
	File  string `yaml:"file"`  // digits.csv.gz (default: the setup cache)
	Limit int    `yaml:"limit"`
}

// ImageNetDatasetOpts read a PaddleClas list file (`path label` per line).
type ImageNetDatasetOpts struct {
	ImageRoot    string             `yaml:"image_root"`
	ClsLabelPath string             `yaml:"cls_label_path"`
	Delimiter    string             `yaml:"delimiter"`
	TransformOps []config.Component `yaml:"transform_ops"`
}

// ClassFolderOpts read root/<class>/<image> folders.
type ClassFolderOpts struct {
	Root         string             `yaml:"root"`
	TransformOps []config.Component `yaml:"transform_ops"`
}

// MetricOpts is the Metric section.
type MetricOpts struct {
	Train []config.Component `yaml:"Train"`
	Eval  []config.Component `yaml:"Eval"`
}

// TopkAccOpts configure the TopkAcc metric.
type TopkAccOpts struct {
	Topk []int `yaml:"topk"`
}

// InferOpts is the Infer section.
type InferOpts struct {
	InferImgs   string             `yaml:"infer_imgs"`
	BatchSize   int                `yaml:"batch_size" check:"min=1"`
	Transforms  []config.Component `yaml:"transforms"`
	PostProcess PostProcessOpts    `yaml:"PostProcess"`
}

// PostProcessOpts configure Topk post-processing.
type PostProcessOpts struct {
	Name           string `yaml:"name"`
	Topk           int    `yaml:"topk"`
	ClassIDMapFile string `yaml:"class_id_map_file"`
}

// Schema is the clas kit's config schema.
func Schema() *config.Schema {
	s := &config.Schema{
		Sections: map[string]any{
			"Global":     (*GlobalOpts)(nil),
			"Arch":       (*config.Component)(nil),
			"Loss":       (*LossOpts)(nil),
			"Optimizer":  (*optim.Config)(nil),
			"DataLoader": (*DataLoaderOpts)(nil),
			"Metric":     (*MetricOpts)(nil),
			"Infer":      (*InferOpts)(nil),
		},
		Components: map[string]map[string]any{
			"Loss.*.*":   {"CELoss": (*CELossOpts)(nil)},
			"Metric.*.*": {"TopkAcc": (*TopkAccOpts)(nil)},
		},
		Selector: "name",
	}
	config.Attach(s, "Arch", archs)
	config.Attach(s, "DataLoader.*.dataset", datasetComponents)
	config.Attach(s, "DataLoader.*.dataset.transform_ops.*", transforms)
	config.Attach(s, "Infer.transforms.*", transforms)
	return s
}
