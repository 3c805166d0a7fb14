package cpu

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"paddle/core/op"
	"paddle/core/tensor"
)

// TestQGemmDirect checks qgemm's direct path (weights' zero points 0, x and
// w of different signedness: x's zero point folded into the int32 bias, no
// per-accumulator correction) at every level against the reference loops
// (matmul_integer's corrections, no backend), exactly: int32 outputs are
// the accumulators plus the bias, so any error in the fold shows. Batched
// x whose rows span several accumulator tiles (the last partial), a wide
// w in row and column tiles (the last of each partial), x zero
// point 0 and not, int32/float/no bias, every output type, extreme rows
// (x all 255 or 0 against w at −128/127), and the fallbacks (a nonzero
// weight zero point; x and w both int8).
func TestQGemmDirect(t *testing.T) {
	forQLevels(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(21, 22))
		for _, tc := range []struct {
			xd, wd tensor.DType
			xz     int
			wz     []int
			bias   string
		}{
			{tensor.Uint8, tensor.Int8, 0, []int{0}, "int32"},
			{tensor.Uint8, tensor.Int8, 131, []int{0}, "int32"},
			{tensor.Uint8, tensor.Int8, 255, []int{0}, "none"},
			{tensor.Uint8, tensor.Int8, 17, []int{0}, "float"},
			{tensor.Int8, tensor.Uint8, -77, []int{0}, "int32"},
			{tensor.Uint8, tensor.Int8, 9, []int{0, 3}, "int32"}, // weight zero points: corrected path
			{tensor.Int8, tensor.Int8, 5, []int{0}, "none"},      // one signedness: sign flip
		} {
			for _, sh := range []struct{ rows, n int }{
				{1800, 19},  // 3600 rows: row tiles of 1724 (qaccCols/n)
				{130, 3000}, // a wide w: 256 rows (and 4) × 128 columns (and 56)
			} {
				const k = 37
				n := sh.n
				x := randBytes(r, tc.xd, 2, sh.rows, k)
				w := randBytes(r, tc.wd, k, n)
				if tc.xd == tensor.Uint8 {
					for p := range k { // row 0 all 255, row 1 all 0
						x.U8()[p], x.U8()[k+p] = 255, 0
					}
				}
				if tc.wd == tensor.Int8 {
					for p := range k { // column 0 all −128, column 1 all 127
						w.I8()[p*n], w.I8()[p*n+1] = -128, 127
					}
				}
				wz := make([]int, n)
				for j := range wz {
					wz[j] = tc.wz[j%len(tc.wz)]
				}
				ws := make([]float64, n)
				for j := range ws {
					ws[j] = 0.001 + r.Float64()*0.01
				}
				var bias *tensor.Tensor
				switch tc.bias {
				case "int32":
					bias = tensor.New(tensor.Int32, n)
					for j := range bias.I32() {
						bias.I32()[j] = int32(r.IntN(200000) - 100000)
					}
				case "float":
					bias = tensor.New(tensor.Float32, n)
					for j := range bias.F32() {
						bias.F32()[j] = float32(r.NormFloat64())
					}
				}
				for _, out := range []tensor.DType{tensor.Int32, tensor.Float32, tensor.Uint8, tensor.Int8} {
					if out == tensor.Int32 && tc.bias == "float" {
						continue
					}
					name := fmt.Sprintf("%d×%d %v×%v/xz%d/wz%v/%s bias/out %v", 2*sh.rows, n, tc.xd, tc.wd, tc.xz, tc.wz, tc.bias, out)
					qa := op.QuantAttrs(0.02, tc.xz, ws, wz, out, 0.7, 3).With("act", "relu")
					in := []*tensor.Tensor{x, w}
					if bias != nil {
						in = append(in, bias)
					}
					want := runRef(op.Lookup("qgemm"), qa, in...)
					if got := op.QGemm(x, w, bias, qa); !tensorsEqual(got, want) {
						t.Errorf("%s: backend differs from the reference", name)
					}
				}
			}
		}
	})
}
