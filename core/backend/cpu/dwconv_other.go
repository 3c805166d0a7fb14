//go:build !amd64 || purego

package cpu

import "paddle/core/op"

// depthwiseKernel: no vector depthwise kernel in this build.
func depthwiseKernel() op.Kernel { return nil }

// depthwiseTransposeKernel: no vector depthwise kernel in this build.
func depthwiseTransposeKernel() op.Kernel { return nil }

// depthwiseFilterGradKernel: no vector depthwise kernel in this build.
func depthwiseFilterGradKernel() op.Kernel { return nil }
