//go:build !(amd64 || arm64) || purego

package cpu

import "paddle/core/op"

// depthwiseKernel: no vector depthwise kernel in this build.
func depthwiseKernel() op.Kernel { return nil }

// depthwiseTransposeKernel: no vector depthwise kernel in this build.
func depthwiseTransposeKernel() op.Kernel { return nil }

// depthwiseFilterGradKernel: no vector depthwise kernel in this build.
func depthwiseFilterGradKernel() op.Kernel { return nil }

// depthwiseExKernel: no vector depthwise kernel in this build.
func depthwiseExKernel() func(out, in []*op.T, a op.Attrs, ep *op.GemmEpilogue) bool { return nil }

// qDepthwiseKernel: no vector depthwise kernel in this build.
func qDepthwiseKernel() func(d *op.QDepthwise, p0, p1 int, done func(p int, acc []int32)) bool {
	return nil
}
