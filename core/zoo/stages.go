package zoo

import "fmt"

// StageTraining are a backbone's per-stage training options, as
// PaddleClas's PP-LCNet / PP-LCNetV3 and PaddleDetection's backbones take
// them. Stages are 0 for the stem and 1..5 for blocks2..blocks6.
type StageTraining struct {
	// LRMultList scales the learning rate of each stage: [stem, blocks2,
	// ..., blocks6], six entries (PaddleClas's lr_mult_list); empty: all 1.
	LRMultList []float64 `yaml:"lr_mult_list"`
	// FreezeAt freezes the stem and blocks2..blocks(freeze_at+2), i.e.
	// stages 0..freeze_at+1, as PaddleDetection's freeze_at (the stem, then
	// stages[0..freeze_at]); -1 or absent freezes nothing.
	FreezeAt *int `yaml:"freeze_at"`
}

// stageCount is the number of stages StageTraining addresses.
const stageCount = 6

// Check validates the options; key prefixes the messages.
func (o StageTraining) Check(key string) error {
	if n := len(o.LRMultList); n != 0 && n != stageCount {
		return fmt.Errorf("%s.lr_mult_list: want %d entries (stem, blocks2..blocks6), got %d", key, stageCount, n)
	}
	for i, m := range o.LRMultList {
		if m < 0 {
			return fmt.Errorf("%s.lr_mult_list[%d]: %g is negative", key, i, m)
		}
	}
	if o.FreezeAt != nil && (*o.FreezeAt < -1 || *o.FreezeAt > stageCount-2) {
		return fmt.Errorf("%s.freeze_at: want -1 (none) .. %d, got %d", key, stageCount-2, *o.FreezeAt)
	}
	return nil
}

// Mult returns the learning-rate multiplier of stage s: 0 when frozen,
// else its lr_mult_list entry (1 without one, or for s outside 0..5).
func (o StageTraining) Mult(s int) float64 {
	if s < 0 || s >= stageCount {
		return 1
	}
	if o.FreezeAt != nil && *o.FreezeAt >= 0 && s <= *o.FreezeAt+1 {
		return 0
	}
	if len(o.LRMultList) == stageCount {
		return o.LRMultList[s]
	}
	return 1
}
