package rectrain

import (
	"paddle/core/ag"
	"paddle/core/tensor"
)

func agConst(t *tensor.Tensor) *ag.Var { return ag.Const(t) }
