package op

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// fmaExact is x·y + z rounded once to float32, through math/big: the sum
// exact, then float32's nearest, ties to even.
func fmaExact(x, y, z float32) float32 {
	p := new(big.Float).SetPrec(2000).SetFloat64(float64(x))
	p.Mul(p, big.NewFloat(float64(y)))
	p.Add(p, big.NewFloat(float64(z)))
	f, _ := p.Float32()
	return f
}

// TestFMA32 checks fma32 against the exact sum rounded once: random
// operands, and sums within 2⁻⁴⁰ of a midpoint between two float32s
// that round to that midpoint in float64 (where float32(x·y + z) in
// float64 rounds twice, wrongly for half of them: the test counts them,
// so it fails if it stops reaching the case), both signs, subnormal
// results, midpoints between subnormals.
func TestFMA32(t *testing.T) {
	type abc struct{ x, y, z float32 }
	var cases []abc
	r := rand.New(rand.NewPCG(21, 22))
	for range 20000 {
		cases = append(cases, abc{float32(r.NormFloat64()), float32(r.NormFloat64() * 1e3), float32(r.NormFloat64())},
			abc{float32(r.IntN(1<<24)) / (1 << 20), float32(r.IntN(1<<24)) / (1 << 22), float32(r.IntN(1 << 20))})
	}
	for i := 1; i <= 300; i++ {
		z := float32(r.NormFloat64() * math.Pow(2, float64(r.IntN(40)-20)))
		h := float32(math.Ldexp(1, int(math.Ilogb(float64(z)))-24)) // half z's ulp
		d := float32(i) * 0x1p-23
		// (1 + d)·h(1 − d) = h − h·d²: just inside the midpoint on the
		// side of zero (z > 0) or, added to −h, away from zero.
		cases = append(cases, abc{1 + d, h * (1 - d), z}, abc{1 + d, -h * (1 - d), z}, abc{-(1 + d), h * (1 - d), -z})
	}
	for range 2000 { // results below float32's normal range
		cases = append(cases, abc{float32(r.NormFloat64()) * 0x1p-70, float32(r.NormFloat64()) * 0x1p-60, float32(r.NormFloat64()) * 0x1p-128})
	}
	for i := 1; i < 16; i++ { // the same just inside a midpoint between subnormals
		d := float32(i) * 0x1p-20
		z := float32(2*r.IntN(1<<20)+1) * 0x1p-149
		cases = append(cases, abc{(1 + d) * 0x1p-75, (1 - d) * 0x1p-75, z}, abc{(1 + d) * 0x1p-75, -(1 - d) * 0x1p-75, -z})
	}
	twice := 0
	for _, c := range cases {
		want := fmaExact(c.x, c.y, c.z)
		if got := fma32(c.x, c.y, c.z); got != want && !(got == 0 && want == 0) {
			t.Fatalf("fma32(%g, %g, %g) = %g, want %g", c.x, c.y, c.z, got, want)
		}
		if float32(float64(c.x)*float64(c.y)+float64(c.z)) != want {
			twice++
		}
	}
	if twice < 100 {
		t.Fatalf("only %d cases where rounding twice is wrong: the midpoint cases are not reached", twice)
	}
}

// TestQEpilogueHardSwishRow checks the Go loop of QEpilogue8.Row with
// hardswish (HardSwishFold, fma32) against the epilogue computed in
// float64: equal wherever the float64 value before rounding is not
// within 10⁻³ of a rounding boundary, within one step there; uint8 and
// int8, with and without the affine, large and negative accumulators.
func TestQEpilogueHardSwishRow(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	acc := []int32{math.MaxInt32 / 2, math.MinInt32 / 2, 0, -1, 1}
	for range 5000 {
		acc = append(acc, int32(r.IntN(40001)-20000), int32(r.IntN(2001)-1000))
	}
	dst := make([]byte, len(acc))
	near := 0
	for trial := range 40 {
		p := QEpilogue8{IB: int32(r.IntN(2001) - 1000), M: float32(1e-4 + r.Float64()*1e-3), B: float32(r.NormFloat64()),
			HardSwish: true, PostMul: 1, Inv: float32(1 / (0.01 + r.Float64()*0.05)), Zero: float32(r.IntN(256)), QLo: 0, QHi: 255}
		if trial%2 == 1 {
			p.PostMul, p.PostAdd = float32(r.NormFloat64()), float32(r.NormFloat64())
		}
		if trial%4 >= 2 {
			p.Zero -= 128
			p.QLo, p.QHi = -128, 127
		}
		p.Row(dst, acc)
		for j, a := range acc {
			x := float64(int64(a)+int64(p.IB))*float64(p.M) + float64(p.B)
			x = x * min(max(x+3, 0), 6) / 6
			y := (x*float64(p.PostMul)+float64(p.PostAdd))*float64(p.Inv) + float64(p.Zero)
			want := min(max(math.RoundToEven(y), float64(p.QLo)), float64(p.QHi))
			got := float64(dst[j])
			if p.QLo < 0 {
				got = float64(int8(dst[j]))
			}
			_, f := math.Modf(math.Abs(y))
			if math.Abs(f-0.5) < 1e-3 {
				near++
				if math.Abs(got-want) > 1 {
					t.Fatalf("%+v: acc %d → %v, want %v ± 1 (y %v)", p, a, got, want, y)
				}
			} else if got != want {
				t.Fatalf("%+v: acc %d → %v, want %v (y %v)", p, a, got, want, y)
			}
		}
	}
	t.Logf("%d outputs within 10⁻³ of a tie", near)
}
