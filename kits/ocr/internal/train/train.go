// Package train holds what the OCR kit's two trainers (dettrain for DB
// detection, rectrain for CTC recognition) share: PaddleOCR's Train/Eval
// config sections and the mapping of eval_batch_step to epochs.
package train

import (
	"math"

	"paddle/core/config"
)

// SplitOpts is the Train or Eval section.
type SplitOpts struct {
	Dataset config.Component `yaml:"dataset"`
	Loader  LoaderOpts       `yaml:"loader"`
}

// LoaderOpts are PaddleOCR's loader keys.
type LoaderOpts struct {
	Shuffle          bool `yaml:"shuffle"`
	BatchSizePerCard int  `yaml:"batch_size_per_card" check:"min=1"`
	DropLast         bool `yaml:"drop_last"`
	NumWorkers       int  `yaml:"num_workers" check:"min=0"`
	UseSharedMemory  bool `yaml:"use_shared_memory"`
}

// SimpleDataSetOpts read PaddleOCR label files (detection or recognition).
type SimpleDataSetOpts struct {
	DataDir       string             `yaml:"data_dir"`
	LabelFileList []string           `yaml:"label_file_list"`
	RatioList     any                `yaml:"ratio_list"` // a number or one per file (default 1)
	Delimiter     string             `yaml:"delimiter"`  // default tab
	Transforms    []config.Component `yaml:"transforms"`
}

// EvalEpochs maps Global.eval_batch_step ([start, every] or every, in
// steps) to whole epochs (at least 1); 0 (evaluate only at the end) when
// unset.
func EvalEpochs(v any, stepsPerEpoch int) int {
	every := 0
	switch x := v.(type) {
	case int:
		every = x
	case []any:
		if len(x) == 2 {
			if n, ok := x[1].(int); ok {
				every = n
			}
		}
	}
	if every <= 0 {
		return 0
	}
	return max(1, int(math.Round(float64(every)/float64(stepsPerEpoch))))
}
