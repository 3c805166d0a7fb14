package cpu

import "math"

// Epilogue is work fused into SGEMM's last write of each tile of C, while
// the tile is still in L1: per-row and per-column biases, then an
// activation. A residual add is beta = 1 with C holding the residual.
//
// For a convolution y (OC, pixels) = w·col, the channel bias is RowBias;
// for a linear layer y (batch, out) = x·wᵀ, it is ColBias.
type Epilogue struct {
	RowBias []float32 // len m, or nil: c[i][j] += RowBias[i]
	ColBias []float32 // len n, or nil: c[i][j] += ColBias[j]
	Act     Act       // applied after the biases
	// P0, P1 parametrise Act: Clip's min and max, HardSigmoid's and
	// HardSwish's alpha and beta (hardsigmoid(x) = clip(alpha·x+beta, 0, 1)).
	P0, P1 float32
	// Affine applies y = y·Scale + Shift after Act, rounding after the
	// product (no fused multiply-add), as an unfused mul and add do.
	Affine       bool
	Scale, Shift float32
}

// Act is an activation fused into SGEMM.
type Act int

// The fusable activations.
const (
	ActNone        Act = iota
	ActRelu            // max(x, 0)
	ActClip            // min(max(x, P0), P1); relu6 is Clip(0, 6)
	ActHardSigmoid     // clip(P0·x + P1, 0, 1)
	ActHardSwish       // x · clip(P0·x + P1, 0, 1); P0 = 1/6, P1 = 0.5 for hardswish
	// ActHardSwish6 is x · min(max(x+3, 0), 6) / 6, bitwise the op
	// package's float32 hardswish (ONNX HardSwish); P0 and P1 are unused.
	ActHardSwish6
)

// applyGo applies e to the rows×cols tile at c (leading dimension ldc)
// whose first element is C[i0][j0]: the portable path.
func (e *Epilogue) applyGo(c []float32, ldc, i0, j0, rows, cols int) {
	for r := range rows {
		row := c[r*ldc : r*ldc+cols]
		for j := range row {
			// no bias, no add: -0 + 0 would be +0
			v := row[j]
			if e.RowBias != nil {
				v += e.RowBias[i0+r]
			}
			if e.ColBias != nil {
				v += e.ColBias[j0+j]
			}
			v = e.act(v)
			if e.Affine {
				v = float32(v*e.Scale) + e.Shift
			}
			row[j] = v
		}
	}
}

func (e *Epilogue) act(v float32) float32 {
	switch e.Act {
	case ActRelu:
		return max(v, 0)
	case ActClip:
		return min(max(v, e.P0), e.P1)
	case ActHardSigmoid:
		return min(max(e.P0*v+e.P1, 0), 1)
	case ActHardSwish:
		return v * min(max(e.P0*v+e.P1, 0), 1)
	case ActHardSwish6:
		b := math.Float32bits(v + 3)
		b &^= uint32(int32(b) >> 31)
		b = min(b, 0x40c00000) // 6
		return v * math.Float32frombits(b) / 6
	}
	return v
}

// SGEMMEx is SGEMM with the epilogue ep (nil: none) applied to every
// element of C after alpha·op(A)·op(B) + beta·C.
func SGEMMEx(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int, ep *Epilogue) {
	if ep != nil && (ep.RowBias != nil && len(ep.RowBias) < m || ep.ColBias != nil && len(ep.ColBias) < n) {
		panic("cpu.SGEMMEx: epilogue bias shorter than m or n")
	}
	sgemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, ep)
}
