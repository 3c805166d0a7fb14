package data

import (
	"fmt"

	"paddle/core/tensor"
)

// Stack joins tensors of one shape and dtype along a new leading axis:
// n tensors of shape S give one of shape (n, S...). It is the usual
// collate step for fixed-size samples (e.g. CHW images into NCHW).
func Stack(ts []*tensor.Tensor) (*tensor.Tensor, error) {
	if len(ts) == 0 {
		return nil, fmt.Errorf("stack: no tensors")
	}
	first := ts[0]
	for i, t := range ts[1:] {
		if t.DType() != first.DType() || !t.Shape().Equal(first.Shape()) {
			return nil, fmt.Errorf("stack: tensor %d is %v %v, tensor 0 is %v %v", i+1, t.DType(), t.Shape(), first.DType(), first.Shape())
		}
	}
	shape := first.Shape()
	out := tensor.New(first.DType(), append([]int{len(ts)}, shape...)...)
	for i, t := range ts {
		out.Slice(0, i, i+1, 1).Reshape(shape...).CopyFrom(t)
	}
	return out, nil
}
