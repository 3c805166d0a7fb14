package op

import (
	"fmt"
	"os"
	"sync/atomic"
)

// Winograd F(4×4, 3×3) dispatch for the forward float32 conv2d (op.Conv2D's
// reference kernel and the runtime's fused Conv2DEx). The kernel itself is
// a backend's (core/backend/cpu/winograd.go installs Winograd3x3); without
// one, or where the rule below says no, the im2col/GEMM path runs.
// The input gradient of such a conv (conv_transpose2d with stride 1, which
// conv2d's VJP calls) is itself a stride-1 3×3 conv of dy with the flipped,
// transposed filter and pads 2-p, so it runs on the same kernel
// (WinogradConv.Adjoint); and the filter gradient has its own form of the
// transforms (Winograd3x3Filter). The same rule picks all three.

// WinogradConv is one 3×3, stride-1, undilated, groups = 1 float32 conv:
// x (N, C, H, W) with w (OC, C, 3, 3), top/left pads PT/PL (the bottom and
// right ones are implied by OH, OW), into y (N, OC, OH, OW), plus B (len
// OC, or nil) and then, when Ep is not nil, Ep's activation and affine
// step (Ep.RowBias is ignored: the bias is B).
type WinogradConv struct {
	N, C, H, W, OC, PT, PL, OH, OW int
	X, Wt, B, Y                    []float32
	Ep                             *GemmEpilogue
	// Adjoint: Wt is (C, OC, 3, 3) and the conv's filter is its flipped
	// transpose, w[o][c][i][j] = Wt[c][o][2-i][2-j] — the input gradient
	// of the stride-1 conv2d with weight Wt.
	Adjoint bool
}

// WinogradEnv is the environment variable that sets the Winograd mode at
// start-up: "0" disables it, "1" forces it for every conv it can run
// (tests), unset or "auto" uses the size rule.
const WinogradEnv = "PADDLE_WINOGRAD"

// The Winograd modes (SetWinogradMode).
const (
	WinogradAuto = iota // the size rule of useWinograd
	WinogradOff         // always im2col
	WinogradOn          // every eligible conv (3×3, stride 1, groups 1, float32)
)

var winogradMode atomic.Int32

func init() {
	switch v := os.Getenv(WinogradEnv); v {
	case "", "auto":
	case "0":
		winogradMode.Store(WinogradOff)
	case "1":
		winogradMode.Store(WinogradOn)
	default:
		fmt.Fprintf(os.Stderr, "paddle: %s=%q: want 0, 1 or auto; using auto\n", WinogradEnv, v)
	}
}

// SetWinogradMode sets the Winograd mode (WinogradAuto, WinogradOff or
// WinogradOn) and returns the previous one.
func SetWinogradMode(m int) int { return int(winogradMode.Swap(int32(m))) }

// winogradEligible reports whether the kernel can run cs at all.
func winogradEligible(cs convShape) bool {
	g := cs.g
	return cs.groups == 1 && g.KH == 3 && g.KW == 3 && g.SH == 1 && g.SW == 1 && g.DH == 1 && g.DW == 1
}

// useWinograd is the dispatch rule: C ≥ 8, OC ≥ 8 and at least 64 4×4
// output tiles per image (the 36 GEMMs of a block run over one image's
// tiles; fewer columns leave their fixed costs unpaid).
//
// Measured on the project's 2-core Zen 5 (AVX-512 SGEMM and tile
// transforms) while heavily loaded, so same process, interleaved runs,
// medians of 15 (core/backend/cpu TestWinogradSpeedup); time Winograd /
// time im2col at 1 | 2 threads, N = 1 unless said, pad 1:
//
//	64→64 56² 0.30|0.31, N=8 0.61|0.67     96→24 240² 0.64|0.74   24→24 240² 0.65|0.53
//	96→24 120² 0.74|0.61, 60² 0.47|0.45, 30² 0.59|0.59             32→32 112² 0.63|0.35
//	16→16 160² 0.63|0.27   16→32 80² 0.46|0.68   8→8 240² 0.90|0.61  128→128 28² 0.64|0.68
//	64→128 16×128 0.48|0.33   16→16 32² 0.80|0.90
//	losing, so excluded: 3→32 32² 1.98|1.42; under 64 tiles: 64→64 14² 1.27|0.62,
//	64→64 8² 1.84|0.55, 32→32 16² 1.31|1.21, 256→256 4×32 1.20|1.95, 256→256 14² 0.54|1.01
//
// Blocks span images, but batches of small images stay mixed (N=8: 64→64
// 14² 0.66|1.04, 8² 1.46|0.82, 32→32 16² 1.19|1.03, 256→256 4×32
// 0.60|0.83; N=4 16→16 16² 1.24|0.81): a small image's tile rows fill few
// of the transforms' 16 lanes, so the rule counts tiles per image.
func useWinograd(cs convShape) bool {
	if Active().Winograd3x3 == nil || !winogradEligible(cs) {
		return false
	}
	switch winogradMode.Load() {
	case WinogradOff:
		return false
	case WinogradOn:
		return true
	}
	g := cs.g
	tiles := (g.OH + 3) / 4 * ((g.OW + 3) / 4)
	return cs.c >= winogradMinC && cs.oc >= winogradMinC && tiles >= winogradMinTiles
}

// The size rule's thresholds (see useWinograd).
const (
	winogradMinC     = 8
	winogradMinTiles = 64
)

// winogradForward runs conv cs through Winograd3x3 when useWinograd says
// so, reporting whether it did. float64 never does.
func winogradForward[E float32 | float64](cs convShape, x, w, b, y []E, ep *GemmEpilogue) bool {
	xf, ok := any(x).([]float32)
	if !ok || !useWinograd(cs) {
		return false
	}
	g := cs.g
	var bf []float32
	if b != nil {
		bf = any(b).([]float32)
	}
	Active().Winograd3x3(&WinogradConv{
		N: cs.n, C: cs.c, H: g.H, W: g.W, OC: cs.oc, PT: g.PT, PL: g.PL, OH: g.OH, OW: g.OW,
		X: xf, Wt: any(w).([]float32), B: bf, Y: any(y).([]float32), Ep: ep,
	})
	return true
}

// winogradBackwardData runs convBackwardData (dx = convᵀ(dy, w) + b) through
// Winograd3x3 as the stride-1 conv of dy with the flipped, transposed filter
// and pads 2-PT, 2-PL when cs is eligible (3×3, stride 1, undilated, one
// group, every pad at most 2) and the rule says so for that conv, reporting
// whether it did. float64 never does.
func winogradBackwardData[E float32 | float64](cs convShape, dy, w, b, dx []E) bool {
	dyf, ok := any(dy).([]float32)
	g := cs.g
	if !ok || !winogradEligible(cs) || max(g.PT, g.PL, g.PB, g.PR) > 2 {
		return false
	}
	// the conv that computes dx: input dy (OC channels, OH×OW), output
	// dx (C channels, H×W)
	ga := geom2{H: g.OH, W: g.OW, KH: 3, KW: 3, SH: 1, SW: 1, DH: 1, DW: 1,
		PT: 2 - g.PT, PL: 2 - g.PL, PB: 2 - g.PB, PR: 2 - g.PR, OH: g.H, OW: g.W}
	if !useWinograd(convShape{n: cs.n, c: cs.oc, oc: cs.c, groups: 1, g: ga}) {
		return false
	}
	var bf []float32
	if b != nil {
		bf = any(b).([]float32)
	}
	Active().Winograd3x3(&WinogradConv{
		N: cs.n, C: cs.oc, H: ga.H, W: ga.W, OC: cs.c, PT: ga.PT, PL: ga.PL, OH: ga.OH, OW: ga.OW,
		X: dyf, Wt: any(w).([]float32), B: bf, Y: any(dx).([]float32), Adjoint: true,
	})
	return true
}

// winogradFilterGrad runs convFilterGrad through Winograd3x3Filter when
// cs is eligible and the rule says so, reporting whether it did. float64
// never does.
func winogradFilterGrad[E float32 | float64](cs convShape, x, dy, dw []E) bool {
	xf, ok := any(x).([]float32)
	if !ok || Active().Winograd3x3Filter == nil || !useWinograd(cs) {
		return false
	}
	g := cs.g
	Active().Winograd3x3Filter(&WinogradConv{
		N: cs.n, C: cs.c, H: g.H, W: g.W, OC: cs.oc, PT: g.PT, PL: g.PL, OH: g.OH, OW: g.OW,
		X: xf, Y: any(dy).([]float32), Wt: any(dw).([]float32),
	})
	return true
}
