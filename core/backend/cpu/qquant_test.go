package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"paddle/core/op"
	"paddle/core/parallel"
	"paddle/core/tensor"
)

// quantInputs are float32 inputs for quantizing with scale 0.25: exact
// ties (j + ½)·scale on both sides of zero, values past both ends of the
// uint8 and int8 ranges, ±Inf, ±0, subnormals and random values.
func quantInputs(r *rand.Rand) []float32 {
	var x []float32
	for j := -300; j <= 300; j++ {
		x = append(x, (float32(j)+0.5)*0.25, float32(j)*0.25)
	}
	x = append(x, float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)),
		math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32, 3e38, -3e38, 1<<23, -(1 << 23))
	for range 333 {
		x = append(x, float32(r.NormFloat64()*40))
	}
	return x
}

// TestQuantizeRowKernel checks the backend's Quantize8 at every level
// against round half to even and saturation computed in float64, and the
// quantize_linear op (kernel prefix + Go tail) against the reference.
func TestQuantizeRowKernel(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(3, 4))
		x := quantInputs(r)
		k := op.Active().Quantize8
		if (k != nil) != (curISA() >= isaAVX2) {
			t.Fatalf("level %s: Quantize8 installed %v", Level(), k != nil)
		}
		for _, signed := range []bool{false, true} {
			for _, sc := range []float32{0.25, 0.0137} {
				zero, lo, hi := float32(7), 0.0, 255.0
				if signed {
					zero, lo, hi = -5, -128, 127
				}
				if k != nil {
					dst := make([]byte, len(x))
					n := k(dst, x, sc, zero, signed)
					if n < len(x)-32 || n > len(x) {
						t.Fatalf("Quantize8 did %d of %d", n, len(x))
					}
					for i, v := range x[:n] {
						want := min(max(math.RoundToEven(float64(v/sc))+float64(zero), lo), hi)
						got := float64(dst[i])
						if signed {
							got = float64(int8(dst[i]))
						}
						if got != want {
							t.Fatalf("signed %v scale %g: x = %g → %g, want %g", signed, sc, v, got, want)
						}
					}
				}
				d := tensor.Uint8
				if signed {
					d = tensor.Int8
				}
				in := tensor.FromSlice(append([]float32(nil), x...), len(x))
				a := op.QDQAttrs([]float64{float64(sc)}, []int{int(zero)}, 0, d)
				qd := op.Lookup("quantize_linear")
				if got, want := op.Call(qd, a, in)[0], runRef(qd, a, in); !tensorsEqual(got, want) {
					t.Fatalf("quantize_linear signed %v scale %g: backend differs from the reference", signed, sc)
				}
				// a long row split across threads (chunks of 16 Ki, odd tails)
				big := tensor.New(tensor.Float32, 3*(1<<14)+13)
				for i := range big.F32() {
					big.F32()[i] = x[i%len(x)] * float32(1+i%3)
				}
				saved := parallel.Threads()
				parallel.SetThreads(3)
				got := op.Call(qd, a, big)[0]
				parallel.SetThreads(saved)
				if want := runRef(qd, a, big); !tensorsEqual(got, want) {
					t.Fatalf("quantize_linear of %d on 3 threads differs from the reference", big.Len())
				}
			}
		}
	})
}

// TestQuantizeRowLengths runs Quantize8 and Requantize8 at every level on
// every length 0–80 of quantInputs' windows (each tail and, at avx512,
// each mask; a length left undone is allowed only below the step of 16),
// bitwise against the contract in Go, and checks that nothing is written
// past the row.
func TestQuantizeRowLengths(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		q, rq := op.Active().Quantize8, op.Active().Requantize8
		if q == nil || rq == nil {
			return
		}
		x := quantInputs(rand.New(rand.NewPCG(13, 14)))
		for n := range 81 {
			for _, signed := range []bool{false, true} {
				for requant := range 2 {
					zero, lo, hi := float32(7), 0.0, 255.0
					if signed {
						zero, lo, hi = -5, -128, 127
					}
					src := x[(n*37)%(len(x)-n):][:n]
					dst := make([]byte, n+64)
					for j := range dst {
						dst[j] = 0xA5
					}
					var got int
					if requant == 1 {
						got = rq(dst[:n], src, 1/float32(0.0137), zero, signed)
					} else {
						got = q(dst[:n], src, 0.25, zero, signed)
					}
					if got > n || got < n-15 {
						t.Fatalf("n %d requant %d: did %d", n, requant, got)
					}
					for i, v := range src[:got] {
						y := v / 0.25
						if requant == 1 {
							y = v * (1 / float32(0.0137))
						}
						want := min(max(math.RoundToEven(float64(y))+float64(zero), lo), hi)
						g := float64(dst[i])
						if signed {
							g = float64(int8(dst[i]))
						}
						if g != want {
							t.Fatalf("n %d signed %v requant %d: x[%d] = %g → %g, want %g", n, signed, requant, i, v, g, want)
						}
					}
					for j := got; j < len(dst); j++ {
						if dst[j] != 0xA5 {
							t.Fatalf("n %d signed %v requant %d: wrote dst[%d] past the %d it did", n, signed, requant, j, got)
						}
					}
				}
			}
		}
	})
}

// TestRequantizeRowKernel checks Requantize8 at every vector level
// against its contract computed in Go (x·inv rounded to float32, rounded
// half to even, the zero point, the clamp), bit for bit, on
// quantInputs (ties, infinities, subnormals, saturation).
func TestRequantizeRowKernel(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(5, 6))
		x := quantInputs(r)
		k := op.Active().Requantize8
		if (k != nil) != (curISA() >= isaAVX2) {
			t.Fatalf("level %s: Requantize8 installed %v", Level(), k != nil)
		}
		if k == nil {
			return
		}
		for _, signed := range []bool{false, true} {
			for _, inv := range []float32{4, 1 / float32(0.0137), 0.5} {
				zero, lo, hi := float32(7), 0.0, 255.0
				if signed {
					zero, lo, hi = -5, -128, 127
				}
				dst := make([]byte, len(x))
				n := k(dst, x, inv, zero, signed)
				if n < len(x)-32 || n > len(x) {
					t.Fatalf("Requantize8 did %d of %d", n, len(x))
				}
				for i, v := range x[:n] {
					want := min(max(math.RoundToEven(float64(v*inv))+float64(zero), lo), hi)
					got := float64(dst[i])
					if signed {
						got = float64(int8(dst[i]))
					}
					if got != want {
						t.Fatalf("signed %v inv %g: x = %g → %g, want %g", signed, inv, v, got, want)
					}
				}
			}
		}
	})
}

// TestDequantRowKernel checks DequantRow32 at every level against its
// contract computed in Go, bit for bit: int32 wrap of acc + ib, the
// product rounded before the bias, the clamps of none, relu and clip.
func TestDequantRowKernel(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		k := op.Active().DequantRow32
		if k == nil {
			return
		}
		r := rand.New(rand.NewPCG(5, 6))
		acc := []int32{math.MaxInt32, math.MinInt32, 0, -1, 1}
		for range 200 {
			acc = append(acc, int32(r.Uint32()), int32(r.IntN(20001)-10000))
		}
		inf := float32(math.Inf(1))
		for ci, c := range [][2]float32{{-inf, inf}, {0, inf}, {-0.5, 6}, {-inf, inf}} {
			hs := ci == 3
			for _, ib := range []int32{0, 1, -12345} {
				m, b := float32(r.Float64()*1e-3), float32(r.NormFloat64())
				if hs {
					m = float32(r.Float64() * 1e-5) // most x in [-6, 6]: every hardswish branch
				}
				v := make([]float32, len(acc))
				n := k(v, acc, ib, m, b, c[0], c[1], hs)
				if n < len(acc)-32 || n > len(acc) {
					t.Fatalf("DequantRow32 did %d of %d", n, len(acc))
				}
				for j, a := range acc[:n] {
					want := min(max(float32(float32(a+ib)*m)+b, c[0]), c[1])
					if hs {
						want = want * min(max(want+3, 0), 6) * (1.0 / 6)
					}
					if math.Float32bits(v[j]) != math.Float32bits(want) {
						t.Fatalf("clamp %v hardswish %v ib %d: acc %d → %g, want %g", c, hs, ib, a, v[j], want)
					}
				}
			}
		}
	})
}

// TestDequantRowLengths runs DequantRow32 at every level on every length
// 0–70 (each tail and, at avx512, each mask; a length left undone is
// allowed only below the step of 16), clamps and hardswish, bitwise
// against the contract in Go, and checks that nothing is written past
// the row.
func TestDequantRowLengths(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		k := op.Active().DequantRow32
		if k == nil {
			return
		}
		r := rand.New(rand.NewPCG(15, 16))
		inf := float32(math.Inf(1))
		for n := range 71 {
			acc := make([]int32, n)
			for j := range acc {
				acc[j] = int32(r.IntN(2001) - 1000) // x = acc/128: [−7.8, 7.8]
				if j%5 == 2 {
					acc[j] = int32(r.Uint32())
				}
			}
			for ci, c := range [][2]float32{{-inf, inf}, {0, inf}, {-0.5, 6}, {-inf, inf}} {
				hs := ci == 3
				ib, m, b := int32(r.IntN(21)-10), float32(1.0/128), float32(r.IntN(5)-2)/4
				v := make([]float32, n+32)
				for j := range v {
					v[j] = -7
				}
				got := k(v[:n], acc, ib, m, b, c[0], c[1], hs)
				if got > n || got < n-15 {
					t.Fatalf("n %d: DequantRow32 did %d", n, got)
				}
				for j, a := range acc[:got] {
					want := min(max(float32(float32(a+ib)*m)+b, c[0]), c[1])
					if hs {
						want = want * min(max(want+3, 0), 6) * (1.0 / 6)
					}
					if math.Float32bits(v[j]) != math.Float32bits(want) {
						t.Fatalf("n %d clamp %v hardswish %v: acc[%d] = %d → %g, want %g", n, c, hs, j, a, v[j], want)
					}
				}
				for j := got; j < len(v); j++ {
					if v[j] != -7 {
						t.Fatalf("n %d clamp %v hardswish %v: wrote v[%d] past the %d it did", n, c, hs, j, got)
					}
				}
			}
		}
	})
}

// TestDequantColsKernel checks the backend's per-column dequantize row
// (qgemm's float32 outputs) at every level on every length 0–70 (each
// tail and mask), with and without each bias, bitwise against the same
// steps in Go, and that nothing is written past the row.
func TestDequantColsKernel(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		k := op.Active().DequantCols32
		if k == nil {
			return
		}
		r := rand.New(rand.NewPCG(11, 12))
		for n := range 71 {
			acc, ib, m, b := make([]int32, n), make([]int32, n), make([]float32, n), make([]float32, n)
			for j := range n {
				acc[j], ib[j] = int32(r.Uint32()), int32(r.IntN(2001)-1000)
				if j%3 == 0 {
					acc[j] = int32(r.IntN(2001) - 1000)
				}
				m[j], b[j] = float32(r.Float64()*1e-3), float32(r.NormFloat64())
			}
			if n > 0 {
				acc[0], ib[0] = math.MaxInt32, 1 // wraps
			}
			for bias := range 4 {
				ibs, bs := ib, b
				if bias&1 == 0 {
					ibs = nil
				}
				if bias&2 == 0 {
					bs = nil
				}
				v := make([]float32, n+32)
				for j := range v {
					v[j] = -7
				}
				got := k(v[:n], acc, ibs, m, bs)
				if got > n || got < n-15 {
					t.Fatalf("n %d: DequantCols32 did %d", n, got)
				}
				for j, a := range acc[:got] {
					if ibs != nil {
						a += ibs[j]
					}
					want := float32(float32(a) * m[j])
					if bs != nil {
						want += bs[j]
					}
					if math.Float32bits(v[j]) != math.Float32bits(want) {
						t.Fatalf("n %d bias %d: acc[%d] = %d → %g, want %g", n, bias, j, acc[j], v[j], want)
					}
				}
				for j := got; j < len(v); j++ {
					if v[j] != -7 {
						t.Fatalf("n %d bias %d: wrote v[%d] past the %d it did", n, bias, j, got)
					}
				}
			}
		}
	})
}

// TestQEpilogueRowKernel checks the backend's fused requantizing epilogue
// row at every level bitwise against qepiWant, and against the unfused
// passes (DequantRow32, two VecRow32, Requantize8 at that level): bitwise
// with a clamp, within one step with hardswish (its fused multiply-adds
// round less often) where acc + ib does not overflow int32: clamp and hardswish activations, with and without
// the affine, uint8 and int8 outputs, extreme accumulators and biases,
// output scales that saturate and that hit ties.
func TestQEpilogueRowKernel(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		k := op.Active().QEpilogueRow8
		if k == nil {
			return
		}
		r := rand.New(rand.NewPCG(7, 8))
		acc := []int32{math.MaxInt32, math.MinInt32, 0, -1, 1}
		for range 300 {
			acc = append(acc, int32(r.Uint32()), int32(r.IntN(20001)-10000), int32(r.IntN(201)-100))
		}
		inf := float32(math.Inf(1))
		for ci, c := range [][2]float32{{-inf, inf}, {0, inf}, {-0.5, 6}, {-inf, inf}} {
			hs := ci == 3
			for _, signed := range []bool{false, true} {
				for _, affine := range []bool{false, true} {
					for _, ib := range []int32{0, 7, -12345} {
						p := op.QEpilogue8{IB: ib, M: float32(r.Float64() * 1e-3), B: float32(r.NormFloat64()), Lo: c[0], Hi: c[1],
							HardSwish: hs, PostMul: 1, Inv: float32(1 / (0.01 + r.Float64()*0.05)), Zero: float32(r.IntN(256)), QLo: 0, QHi: 255}
						if hs {
							p.Lo, p.Hi = -inf, inf
						}
						if affine {
							p.PostMul, p.PostAdd = float32(r.NormFloat64()), float32(r.NormFloat64())
						}
						if signed {
							p.Zero -= 128
							p.QLo, p.QHi = -128, 127
						}
						if ib == 7 {
							p.Inv = 4 // x·Inv often exactly half-integer: ties
							p.M = 1.0 / 8
						}
						dst := make([]byte, len(acc))
						n := k(dst, acc, &p)
						if n < len(acc)-32 || n > len(acc) {
							t.Fatalf("QEpilogueRow8 did %d of %d", n, len(acc))
						}
						// The unfused passes at this level, then their Go tails.
						v := make([]float32, n)
						j0 := op.Active().DequantRow32(v, acc[:n], ib, p.M, p.B, p.Lo, p.Hi, hs)
						for j := j0; j < n; j++ {
							x := min(max(float32(float32(acc[j]+ib)*p.M)+p.B, p.Lo), p.Hi)
							if hs {
								x = x * min(max(x+3, 0), 6) * (1.0 / 6)
							}
							v[j] = x
						}
						if affine {
							if !op.Active().VecRow32('*', v, v, []float32{p.PostMul}, 0) || !op.Active().VecRow32('+', v, v, []float32{p.PostAdd}, 0) {
								t.Fatal("VecRow32 declined a scalar row")
							}
						}
						unfused := make([]byte, n)
						j0 = op.Active().Requantize8(unfused, v, p.Inv, p.Zero, signed)
						for j := j0; j < n; j++ {
							q := min(max(float32(math.RoundToEven(float64(v[j]*p.Inv)))+p.Zero, p.QLo), p.QHi)
							unfused[j] = byte(uint8(q))
							if signed {
								unfused[j] = byte(int8(q))
							}
						}
						want := qepiWant(&p, acc[:n])
						for j, a := range acc[:n] {
							d := int(unfused[j]) - int(want[j])
							if signed {
								d = int(int8(unfused[j])) - int(int8(want[j]))
							}
							// With hardswish the int32 bias is added in float
							// (op.QEpilogue8.HardSwishFold): past int32 it no
							// longer wraps as the unfused passes' sum does.
							wraps := int64(a)+int64(ib) != int64(a+ib)
							if dst[j] != want[j] || d != 0 && !(hs && (d == 1 || d == -1 || wraps)) {
								t.Fatalf("clamp %v hardswish %v signed %v affine %v ib %d: acc %d → %d, unfused %d, want %d", c, hs, signed, affine, ib, a, dst[j], unfused[j], want[j])
							}
						}
					}
				}
			}
		}
	})
}

// qepiWant is op.QEpilogue8.Row's output for the accumulators acc: with
// a clamp, each step written out in Go; with hardswish, core/op's loop
// (its folded steps are checked against float64 in core/op's tests).
func qepiWant(p *op.QEpilogue8, acc []int32) []byte {
	want := make([]byte, len(acc))
	if p.HardSwish {
		prev := op.Use(nil)
		defer op.Use(prev)
		p.Row(want, acc)
		return want
	}
	for j, a := range acc {
		x := float32(float32(a+p.IB)*p.M) + p.B
		x = min(max(x, p.Lo), p.Hi)
		x = float32(x*p.PostMul) + p.PostAdd
		q := min(max(float32(math.RoundToEven(float64(float32(x*p.Inv))))+p.Zero, p.QLo), p.QHi)
		want[j] = byte(uint8(q))
		if p.QLo < 0 {
			want[j] = byte(int8(q))
		}
	}
	return want
}

// TestQEpilogueRowLengths runs the backend's fused requantizing epilogue
// row at every level on every length 0–100 (each tail and, at avx512,
// each mask; a length the kernel leaves is allowed only below its step
// of 16), each output bitwise against qepiWant and no byte written past
// the row: clamp and hardswish, uint8 and int8, with the identity affine
// (PostMul 1, PostAdd ±0: the avx512 kernels skip it), with an affine,
// and accumulators around hardswish's −3, 0 and 3 and the output's ties.
func TestQEpilogueRowLengths(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		k := op.Active().QEpilogueRow8
		if k == nil {
			return
		}
		r := rand.New(rand.NewPCG(9, 10))
		inf := float32(math.Inf(1))
		for n := range 101 {
			acc := make([]int32, n)
			for j := range acc {
				acc[j] = int32(r.IntN(2001) - 1000) // x = acc/128: [−7.8, 7.8]
				if j%7 == 3 {
					acc[j] = int32(r.Uint32())
				}
			}
			for _, hs := range []bool{false, true} {
				for _, signed := range []bool{false, true} {
					for affine := range 4 {
						p := op.QEpilogue8{IB: int32(r.IntN(21) - 10), M: 1.0 / 128, B: float32(r.IntN(5)-2) / 4, Lo: -inf, Hi: inf,
							HardSwish: hs, PostMul: 1, Inv: 8, Zero: float32(r.IntN(256)), QLo: 0, QHi: 255}
						if !hs {
							p.Lo, p.Hi = 0, 6
						}
						switch affine {
						case 1:
							p.PostAdd = float32(math.Copysign(0, -1))
						case 2:
							p.PostMul, p.PostAdd = 0.5, 0.25
						case 3:
							p.Zero = 0 // −0 + 0 is +0
						}
						if signed {
							p.Zero -= 128
							if affine == 3 {
								p.Zero = 0
							}
							p.QLo, p.QHi = -128, 127
						}
						dst := make([]byte, n+64)
						for j := range dst {
							dst[j] = 0xA5
						}
						got := k(dst[:n], acc, &p)
						if got > n || got < n-15 {
							t.Fatalf("n %d: QEpilogueRow8 did %d", n, got)
						}
						want := qepiWant(&p, acc[:got])
						for j, a := range acc[:got] {
							if dst[j] != want[j] {
								t.Fatalf("n %d hardswish %v signed %v affine %d: acc[%d] = %d → %d, want %d", n, hs, signed, affine, j, a, dst[j], want[j])
							}
						}
						for j := got; j < len(dst); j++ {
							if dst[j] != 0xA5 {
								t.Fatalf("n %d hardswish %v signed %v affine %d: wrote dst[%d] past the %d it did", n, hs, signed, affine, j, got)
							}
						}
					}
				}
			}
		}
	})
}

// TestQConvEpilogues runs qconv2d (per-row channels) and qgemm
// (per-column) at every level against the reference for each fused
// activation and output type with a float bias, with rows (99) that leave
// a tail past the vector rows.
func TestQConvEpilogues(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(11, 12))
		x := randBytes(r, tensor.Uint8, 1, 4, 9, 11)
		w := randBytes(r, tensor.Int8, 6, 4, 3, 3)
		ws := []float64{0.003, 0.004, 0.005, 0.006, 0.007, 0.008}
		fb := tensor.New(tensor.Float32, 6)
		for i := range fb.F32() {
			fb.F32()[i] = float32(r.NormFloat64())
		}
		cp := op.ConvParams{Pads: []int{1, 1, 1, 1}}
		for _, out := range []tensor.DType{tensor.Float32, tensor.Uint8, tensor.Int8} {
			for _, act := range []string{"", "relu", "clip", "hardswish", "sigmoid"} {
				qa := op.QuantAttrs(0.02, 9, ws, []int{0}, out, 0.03, 4).With("act", act).With("act_min", -0.3).With("act_max", 2.5)
				a := cp.Attrs()
				for k, v := range qa {
					a[k] = v
				}
				want := runRef(op.Lookup("qconv2d"), a, x, w, fb)
				if got := op.QConv2D(x, w, fb, cp, qa); !tensorsEqual(got, want) {
					t.Fatalf("qconv2d out %v act %q: backend differs from the reference", out, act)
				}
				// qgemm: per-column (output feature) scales and bias, 6 features × 37 rows
				xg, wg := randBytes(r, tensor.Uint8, 37, 20), randBytes(r, tensor.Int8, 20, 6)
				want = runRef(op.Lookup("qgemm"), qa, xg, wg, fb)
				if got := op.QGemm(xg, wg, fb, qa); !tensorsEqual(got, want) {
					t.Fatalf("qgemm out %v act %q: backend differs from the reference", out, act)
				}
			}
		}
	})
}

// TestQuantizeRowNearTies checks Quantize8 where a quotient estimated by
// multiplying with 1/scale would round the wrong way: values within a few
// ulps of (j + ½)·scale for scales that are not powers of two, tiny and
// huge scales, and a long random run, each against the division rounded
// half to even.
func TestQuantizeRowNearTies(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		k := op.Active().Quantize8
		if k == nil {
			return
		}
		r := rand.New(rand.NewPCG(13, 14))
		for _, sc := range []float32{0.0137, 0.1, 1.0 / 3, 0.0078125 * 1.1, 3.7, 1e-31, 1e31} {
			var x []float32
			for j := -400; j <= 400; j++ {
				v := (float32(j) + 0.5) * sc
				for d := -4; d <= 4; d++ {
					u := math.Float32bits(v)
					x = append(x, math.Float32frombits(uint32(int64(u)+int64(d))))
				}
			}
			for range 1 << 16 {
				x = append(x, float32(r.NormFloat64()*100)*sc)
			}
			for _, signed := range []bool{false, true} {
				zero, lo, hi := float32(128), 0.0, 255.0
				if signed {
					zero, lo, hi = 0, -128, 127
				}
				dst := make([]byte, len(x))
				n := k(dst, x, sc, zero, signed)
				for i, v := range x[:n] {
					want := min(max(math.RoundToEven(float64(v/sc))+float64(zero), lo), hi)
					got := float64(dst[i])
					if signed {
						got = float64(int8(dst[i]))
					}
					if got != want {
						t.Fatalf("scale %g signed %v: x = %g (x/scale %g) → %g, want %g", sc, signed, v, v/sc, got, want)
					}
				}
			}
		}
	})
}

// BenchmarkQEpilogueHSRow times op.QEpilogue8.Row with hardswish and
// PP-LCNetV3's affine into uint8 at every level (the backend's
// QEpilogueRow8 and the Go loop for what it leaves): a 60×60 plane (det's
// sizes) and a 12×20 one (rec's, where the per-row call counts).
func BenchmarkQEpilogueHSRow(b *testing.B) {
	saved := activeLevel.Load()
	defer func() { setLevel(saved); installKernels() }()
	r := rand.New(rand.NewPCG(15, 16))
	acc := make([]int32, 3600)
	for j := range acc {
		acc[j] = int32(r.IntN(40001) - 20000)
	}
	dst := make([]byte, len(acc))
	p := op.QEpilogue8{IB: 321, M: 3e-4, B: 0.1, HardSwish: true, PostMul: 1.1, PostAdd: -0.05,
		Inv: 1 / 0.04, Zero: 7, QLo: 0, QHi: 255}
	for _, l := range levels {
		setLevel(l)
		installKernels()
		for _, n := range []int{3600, 240} {
			b.Run(fmt.Sprintf("%s/n=%d", l.name, n), func(b *testing.B) {
				b.SetBytes(int64(4 * n))
				for b.Loop() {
					p.Row(dst[:n], acc[:n])
				}
			})
		}
	}
}
