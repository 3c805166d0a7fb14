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
// Gradients always run on im2col.

// WinogradConv is one 3×3, stride-1, undilated, groups = 1 float32 conv:
// x (N, C, H, W) with w (OC, C, 3, 3), top/left pads PT/PL (the bottom and
// right ones are implied by OH, OW), into y (N, OC, OH, OW), plus B (len
// OC, or nil) and then, when Ep is not nil, Ep's activation and affine
// step (Ep.RowBias is ignored: the bias is B).
type WinogradConv struct {
	N, C, H, W, OC, PT, PL, OH, OW int
	X, Wt, B, Y                    []float32
	Ep                             *GemmEpilogue
}

// Winograd3x3 runs p with Winograd's minimal filtering; nil when no
// backend has installed one.
var Winograd3x3 func(p *WinogradConv)

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

// useWinograd is the dispatch rule. Measured on this project's 2-core Zen 5
// (AVX-512 SGEMM, scalar Go transforms), same process, interleaved runs,
// medians, 1 thread, N = 1 (time Winograd / time im2col, lower is better):
// see winogradRule's comment in core/backend/cpu/winograd_bench_test.go for
// the shapes. The transforms cost per pixel ~C + OC scalar operations and
// the GEMMs save 4/9·C·OC·9·2 of 9·2·C·OC flops, so Winograd wins once
// C and OC are large enough for the GEMM part to dominate, and only when
// there are enough 4×4 output tiles to fill the GEMMs' columns.
func useWinograd(cs convShape) bool {
	if Winograd3x3 == nil || !winogradEligible(cs) {
		return false
	}
	switch winogradMode.Load() {
	case WinogradOff:
		return false
	case WinogradOn:
		return true
	}
	g := cs.g
	return cs.c >= winogradMinC && cs.oc >= winogradMinC && g.OH*g.OW >= winogradMinPixels
}

// The size rule's thresholds (see useWinograd).
var (
	winogradMinC      = 32
	winogradMinPixels = 32 * 32
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
	Winograd3x3(&WinogradConv{
		N: cs.n, C: cs.c, H: g.H, W: g.W, OC: cs.oc, PT: g.PT, PL: g.PL, OH: g.OH, OW: g.OW,
		X: xf, Wt: any(w).([]float32), B: bf, Y: any(y).([]float32), Ep: ep,
	})
	return true
}
