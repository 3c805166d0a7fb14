package runtime

import (
	"fmt"
	"path/filepath"
	"strings"
)

// PaddleFileError returns an error that says what a PaddlePaddle file given
// as a model is and what to do with it, or nil when path is not one that
// ReadGraph cannot import (a .pdmodel or PIR .json it can). Without this such a file
// fails deep in the ONNX decoder with a wire-format error that names
// neither format.
func PaddleFileError(path string) error {
	base := filepath.Base(path)
	switch {
	case strings.HasSuffix(base, ".pdiparams"):
		stem := strings.TrimSuffix(base, ".pdiparams")
		return fmt.Errorf("%s: the weights of a PaddlePaddle inference model hold no program: give its %s (Paddle 2) or %s (Paddle 3 PIR); the weights beside it are found", path, stem+".pdmodel", stem+".json")
	case strings.HasSuffix(base, ".pdparams"), strings.HasSuffix(base, ".pdopt"):
		return fmt.Errorf("%s: PaddlePaddle weights hold no program: list them with `paddle model inspect`, or load them with --weights / pretrain_weights and the model's config", path)
	}
	return nil
}
