package zoo

import (
	"strconv"
	"strings"
)

// Maps from this package's parameter names to the structured names of
// PaddlePaddle's own ports (what paddle.save writes in a .pdparams), so a
// model trained with PaddlePaddle loads here (workflow.PaddleNamer).

// PaddleBN renames a batch norm tensor's name (or its last part) as
// Paddle's BatchNorm calls it: the running mean and variance are _mean and
// _variance, and there is no batch counter ("" = none).
func PaddleBN(rest string) string {
	switch {
	case strings.HasSuffix(rest, "running_mean"):
		return strings.TrimSuffix(rest, "running_mean") + "_mean"
	case strings.HasSuffix(rest, "running_var"):
		return strings.TrimSuffix(rest, "running_var") + "_variance"
	case strings.HasSuffix(rest, "num_batches_tracked"):
		return ""
	}
	return rest
}

// PaddleName maps a parameter or buffer name to PaddleClas's PPLCNet
// (ppcls/arch/backbone/legacy_models/pp_lcnet.py and model_zoo/pp_lcnet.py,
// which agree): conv1, blocks2 ... blocks6 of DepthwiseSeparable (dw_conv,
// se.conv1/conv2, pw_conv), last_conv, fc. Paddle's Linear stores its
// weight (in, out), so fc.weight is transposed.
func (m *PPLCNet) PaddleName(name string) (pd string, transposed bool) {
	switch {
	case strings.HasPrefix(name, "stem."):
		return PaddleBN("conv1." + strings.TrimPrefix(name, "stem.")), false
	case name == "fc.weight":
		return name, true
	case strings.HasPrefix(name, "blocks."):
		idx, rest, _ := strings.Cut(strings.TrimPrefix(name, "blocks."), ".")
		i, err := strconv.Atoi(idx)
		if err != nil {
			return name, false
		}
		stage, j := 0, i
		for stage < len(lcnetBlocks) && j >= len(lcnetBlocks[stage]) {
			j -= len(lcnetBlocks[stage])
			stage++
		}
		r := strings.NewReplacer("dw.", "dw_conv.", "pw.", "pw_conv.", "se.down.", "se.conv1.", "se.up.", "se.conv2.")
		return PaddleBN("blocks" + strconv.Itoa(stage+2) + "." + strconv.Itoa(j) + "." + r.Replace(rest)), false
	}
	return name, false
}

// PaddleName maps a parameter or buffer name to PaddleClas's ResNet
// (ppcls/arch/backbone/legendary_models/resnet.py, version "vb"): stem.0
// (one 7×7 ConvBNLayer of conv and bn), blocks.<i> numbered across the
// four stages with conv0, conv1 (conv2 for bottlenecks) and short, fc
// (stored (in, out), so transposed). PaddleClas gives the first block of
// stage 0 a 1×1 shortcut even when its shape does not change (its
// use_first_short_conv): ResNet-50/101/152 need one there anyway, so they
// match; ResNet-18/34 match with first_short_conv set (without it loading
// them strictly reports blocks.0.short.* as unused).
func (m *ResNet) PaddleName(name string) (pd string, transposed bool) {
	switch {
	case strings.HasPrefix(name, "stem."):
		return PaddleBN("stem.0." + strings.TrimPrefix(name, "stem.")), false
	case name == "fc.weight":
		return name, true
	case strings.HasPrefix(name, "stages."):
		parts := strings.SplitN(strings.TrimPrefix(name, "stages."), ".", 4)
		if len(parts) < 4 {
			return name, false
		}
		s, err1 := strconv.Atoi(parts[0])
		b, err2 := strconv.Atoi(parts[1])
		if err1 != nil || err2 != nil || s >= len(m.Stages) {
			return name, false
		}
		for _, st := range m.Stages[:s] {
			b += len(st)
		}
		conv := parts[2]
		if n, ok := strings.CutPrefix(conv, "conv"); ok {
			k, err := strconv.Atoi(n)
			if err != nil {
				return name, false
			}
			conv = "conv" + strconv.Itoa(k-1)
		}
		return PaddleBN("blocks." + strconv.Itoa(b) + "." + conv + "." + parts[3]), false
	}
	return name, false
}

// PaddleName maps a parameter or buffer name to PaddleSeg's STDCNet
// (paddleseg/models/backbones/stdcnet.py, type "cat"): one Sequential,
// features, of the two stem ConvBNRelus (conv, bn) and the CatBottlenecks
// numbered across the stages, each with conv_list.<i> (conv, bn) and, at
// stride 2, avd_layer.0 (the depthwise conv) and avd_layer.1 (its batch
// norm). Its layers are this port's; only the names differ.
func (m *STDCNet) PaddleName(name string) (pd string, transposed bool) {
	switch {
	case strings.HasPrefix(name, "stem."):
		return PaddleBN("features." + strings.TrimPrefix(name, "stem.")), false
	case strings.HasPrefix(name, "stages."):
		parts := strings.SplitN(strings.TrimPrefix(name, "stages."), ".", 3)
		if len(parts) < 3 {
			return name, false
		}
		s, err1 := strconv.Atoi(parts[0])
		b, err2 := strconv.Atoi(parts[1])
		if err1 != nil || err2 != nil || s >= len(m.Stages) {
			return name, false
		}
		b += len(m.Stem)
		for _, st := range m.Stages[:s] {
			b += len(st)
		}
		r := strings.NewReplacer("convs.", "conv_list.", "down.conv.", "avd_layer.0.", "down.bn.", "avd_layer.1.")
		return PaddleBN("features." + strconv.Itoa(b) + "." + r.Replace(parts[2])), false
	}
	return name, false
}
