package io

import (
	"fmt"

	"paddle/core/tensor"
)

// DecodeArray turns the raw bytes of a NumPy array into a C-order tensor,
// for readers of other containers of NumPy data (pickled arrays in
// PaddlePaddle's .pdparams, for one). descr is a NumPy type string such as
// "<f4" or "|b1" (the dtypes .npy reading supports, float16 widened to
// float32); fortran says data holds the axes in reverse order. The error
// names what was wrong, never the container: the caller adds that.
func DecodeArray(descr string, shape []int64, fortran bool, data []byte) (*tensor.Tensor, error) {
	h := npyHeader{descr: descr, shape: shape, fortran: fortran}
	if err := h.resolveDescr(); err != nil {
		return nil, err
	}
	s, n, err := checkedNumElements(shape)
	if err != nil {
		return nil, err
	}
	if int64(len(data)) != n*int64(h.kind.size) {
		return nil, fmt.Errorf("have %d bytes, want %d for shape %v of %s", len(data), n*int64(h.kind.size), shape, descr)
	}
	return h.decode(s, data)
}
