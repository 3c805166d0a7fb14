package cpu

import "encoding/binary"

// The AVX2 int8 kernel on bytes (vpmaddubsw) sums pairs of unsigned ×
// signed byte products into saturating int16; with the signed operand in
// [-64, 63] (7-bit weights: a model quantized with reduce-range) the sums
// stay within 2·255·64 = 32640 and it is exact. These find whether an
// operand is that narrow.

// s8Narrow reports whether every byte of s, read as int8, lies in
// [-64, 63]: whether its bits 7 and 6 are equal, eight bytes at a time.
func s8Narrow(s []byte) bool {
	const top = 0x8080808080808080
	var acc uint64
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := binary.LittleEndian.Uint64(s[i:])
		acc |= x ^ x<<1 // bit 6 of each byte onto its bit 7
	}
	for _, v := range s[i:] {
		acc |= uint64(v ^ v<<1)
	}
	return acc&top == 0
}

// s8NarrowMat reports s8Narrow of the rows×cols matrix at s (rows ld
// apart).
func s8NarrowMat(s []byte, ld, rows, cols int) bool {
	for r := range rows {
		if !s8Narrow(s[r*ld:][:cols]) {
			return false
		}
	}
	return true
}

// s8NarrowRows reports s8Narrow of B's k rows of n bytes addressed by
// rows.
func s8NarrowRows(b []byte, rows bRows, k, n int) bool {
	for p := range k {
		if !s8Narrow(b[rows.at(p):][:n]) {
			return false
		}
	}
	return true
}
