package runtime

import (
	"fmt"
	"path/filepath"
	"strings"
)

// PaddleFileError returns an error that says what a PaddlePaddle file given
// as a model is and what to do with it, or nil when path is not one that
// ReadGraph cannot import (a .pdmodel it can). Without this such a file
// fails deep in the ONNX decoder with a wire-format error that names
// neither format.
func PaddleFileError(path string) error {
	base := filepath.Base(path)
	switch {
	case strings.HasSuffix(base, ".pdiparams"):
		return fmt.Errorf("%s: the weights of a PaddlePaddle inference model hold no program: give its %s (the weights beside it are found)", path, strings.TrimSuffix(base, ".pdiparams")+".pdmodel")
	case base == "inference.json":
		return fmt.Errorf("%s: a PaddlePaddle 3 PIR program (inference.json) cannot be run yet: convert it with paddle2onnx", path)
	case strings.HasSuffix(base, ".pdparams"), strings.HasSuffix(base, ".pdopt"):
		return fmt.Errorf("%s: PaddlePaddle weights hold no program: list them with `paddle model inspect`, or load them with --weights / pretrain_weights and the model's config", path)
	}
	return nil
}
