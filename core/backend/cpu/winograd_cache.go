package cpu

import (
	"bytes"
	"sync"
	"unsafe"

	"paddle/core/parallel"
)

// The transformed filters U = G g Gᵀ, cached per weight buffer. An
// inference graph's weights are constants, so each conv transforms its
// filter once; a training step changes its weights in place, so an entry
// keeps a copy of the weights it was made from and is used only while the
// buffer still holds exactly those values (a memory compare, ~1/40 of the
// transform's cost), else it is remade. Results never depend on the cache.

type wgEntry struct {
	w, u []float32 // the weights it was made from, and U: (36, OC, C)
}

// wgKey is a weight buffer's address (the cache must not keep buffers
// alive) and whether U is of its flipped transpose (op.WinogradConv.Adjoint).
type wgKey struct {
	addr    uintptr
	adjoint bool
}

var wgCache struct {
	sync.Mutex
	m      map[wgKey]*wgEntry
	floats int // total len(w)+len(u) over the entries
}

// wgCacheFloats caps the cache (64 MiB); past it the cache starts over.
const wgCacheFloats = 16 << 20

// wgFilterCached returns U for w: (OC, C, 3, 3), or, when adjoint, for the
// flipped transpose of w: (C, OC, 3, 3).
func wgFilterCached(w []float32, oc, c int, adjoint bool) []float32 {
	w = w[:oc*c*9]
	key := wgKey{uintptr(unsafe.Pointer(&w[0])), adjoint}
	wgCache.Lock()
	e := wgCache.m[key]
	wgCache.Unlock()
	if e != nil && len(e.w) == len(w) && bytes.Equal(f32Bytes(e.w), f32Bytes(w)) {
		return e.u
	}
	e = &wgEntry{w: append([]float32(nil), w...), u: wgFilter(w, oc, c, adjoint)}
	wgCache.Lock()
	if wgCache.m == nil || wgCache.floats+len(e.w)+len(e.u) > wgCacheFloats {
		wgCache.m, wgCache.floats = map[wgKey]*wgEntry{}, 0
	}
	if old := wgCache.m[key]; old != nil {
		wgCache.floats -= len(old.w) + len(old.u)
	}
	wgCache.m[key] = e
	wgCache.floats += len(e.w) + len(e.u)
	wgCache.Unlock()
	return e.u
}

func f32Bytes(s []float32) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*4)
}

// wgG is G for F(4, 3) with the points 0, ±1, ±2, ∞.
var wgG = [6][3]float64{
	{1.0 / 4, 0, 0},
	{-1.0 / 6, -1.0 / 6, -1.0 / 6},
	{-1.0 / 6, 1.0 / 6, -1.0 / 6},
	{1.0 / 24, 1.0 / 12, 1.0 / 6},
	{1.0 / 24, -1.0 / 12, 1.0 / 6},
	{0, 0, 1},
}

// wgFilter computes U[ξ][o][c] = (G w[o][c] Gᵀ)[ξ] in float64, rounded
// once to float32; when adjoint, w is (C, OC, 3, 3) and the filter w[o][c]
// is w[c][o] turned by 180°.
func wgFilter(w []float32, oc, c int, adjoint bool) []float32 {
	u := make([]float32, 36*oc*c)
	parallel.For(oc*c, 256, func(lo, hi int) {
		var flip [9]float32
		for k := lo; k < hi; k++ {
			g := w[k*9 : k*9+9 : k*9+9]
			if adjoint {
				src := w[(k%c*oc+k/c)*9:][:9]
				for i, v := range src {
					flip[8-i] = v
				}
				g = flip[:]
			}
			var t [6][3]float64 // G g
			for i := range 6 {
				for b := range 3 {
					t[i][b] = wgG[i][0]*float64(g[b]) + wgG[i][1]*float64(g[3+b]) + wgG[i][2]*float64(g[6+b])
				}
			}
			for i := range 6 {
				for j := range 6 {
					u[(i*6+j)*oc*c+k] = float32(t[i][0]*wgG[j][0] + t[i][1]*wgG[j][1] + t[i][2]*wgG[j][2])
				}
			}
		}
	})
	return u
}
