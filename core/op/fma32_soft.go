//go:build !(arm64 || amd64.v3)

package op

import "math"

// fma32 is x·y + z rounded once to float32, as a fused multiply-add: the
// product is exact in float64, and the sum rounded to float64 rounds to
// the right float32 unless it fell exactly halfway between two float32s
// (or below float32's normal range, where fewer bits remain); then
// fma32Odd redoes it.
func fma32(x, y, z float32) float32 {
	s := float64(float64(x)*float64(y)) + float64(z)
	if math.Float64bits(s)&(1<<29-1) == 1<<28 || math.Abs(s) < 0x1p-125 {
		return fma32Odd(x, y, z)
	}
	return float32(s)
}

// fma32Odd is fma32 through the sum rounded to odd, which float32()
// rounds correctly (Boldo and Melquiond, 2008): the sum rounded to
// nearest when exact or odd, else its neighbour on the side of the exact
// sum.
func fma32Odd(x, y, z float32) float32 {
	p, c := float64(float64(x)*float64(y)), float64(z)
	s := p + c
	v := s - p
	e := (p - (s - v)) + (c - v) // p + c − s exactly (TwoSum)
	if b := math.Float64bits(s); e != 0 && b&1 == 0 {
		if (e > 0) == (s > 0) {
			s = math.Float64frombits(b + 1)
		} else {
			s = math.Float64frombits(b - 1)
		}
	}
	return float32(s)
}
