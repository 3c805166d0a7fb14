package zoo

import (
	"strconv"
	"strings"
)

// Maps from this package's parameter names to the structured names of
// PaddlePaddle's own ports (what paddle.save writes in a .pdparams), so a
// model trained with PaddlePaddle loads here (workflow.PaddleNamer).

// paddleBN renames a batch norm tensor: Paddle keeps the running mean and
// variance as _mean and _variance and has no batch counter ("" = none).
func paddleBN(rest string) string {
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
		return paddleBN("conv1." + strings.TrimPrefix(name, "stem.")), false
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
		return paddleBN("blocks" + strconv.Itoa(stage+2) + "." + strconv.Itoa(j) + "." + r.Replace(rest)), false
	}
	return name, false
}
