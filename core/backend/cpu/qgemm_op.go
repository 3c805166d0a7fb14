package cpu

import (
	"unsafe"

	"paddle/core/op"
	"paddle/core/tensor"
)

// matmulInteger is the fast kernel of core/op's matmul_integer: QGEMM on
// the raw bytes, then the zero points' corrections
//
//	Σ (a-za)(b-zb) = Σ ab - za·Σ_k b - zb·Σ_k a + k·za·zb,
//
// exact in int32 (wrapping arithmetic keeps the identity). QGEMM takes one
// signed and one unsigned operand; when both have the same signedness,
// one operand's sign bit is flipped (v ^ 0x80 is v ∓ 128 in the other
// type) and its zero point moved by the same 128.
func matmulInteger(out, in []*op.T, _ op.Attrs) bool {
	a, b := in[0], in[1]
	as := a.Shape()
	m, k, n := as[len(as)-2], as[len(as)-1], b.Shape()[1]
	ab, bb := rawBytes(a), rawBytes(b)
	aSigned, bSigned := a.DType() == tensor.Int8, b.DType() == tensor.Int8
	za, zb := op.IntZeros(in, 0), op.IntZeros(in, 1)
	if za == nil {
		za = []int{0}
	}
	if zb == nil {
		zb = []int{0}
	}
	if aSigned == bSigned {
		if aSigned { // int8 × int8: a becomes uint8, a+128
			ab = flipSign(ab)
			za = shiftZeros(za, 128)
			aSigned = false
		} else { // uint8 × uint8: b becomes int8, b-128
			bb = flipSign(bb)
			zb = shiftZeros(zb, -128)
		}
	}
	c := out[0].I32()
	batches := len(c) / max(m*n, 1)
	anyZero := func(z []int) bool {
		for _, v := range z {
			if v != 0 {
				return true
			}
		}
		return false
	}
	var colSum []int32
	if anyZero(za) {
		colSum = make([]int32, n)
		for p := range k {
			for j, v := range bb[p*n : (p+1)*n] {
				colSum[j] += byteVal(v, !aSigned)
			}
		}
	}
	zbNonzero := anyZero(zb)
	rowSum := make([]int32, m)
	for bi := range batches {
		abi, cbi := ab[bi*m*k:(bi+1)*m*k], c[bi*m*n:(bi+1)*m*n]
		QGEMM(m, n, k, abi, k, aSigned, bb, n, cbi, n)
		if colSum == nil && !zbNonzero {
			continue
		}
		if zbNonzero {
			for i := range m {
				var s int32
				for _, v := range abi[i*k : (i+1)*k] {
					s += byteVal(v, aSigned)
				}
				rowSum[i] = s
			}
		}
		for i := range m {
			zai := int32(za[min(i, len(za)-1)])
			row := cbi[i*n : (i+1)*n]
			for j := range row {
				zbj := int32(zb[min(j, len(zb)-1)])
				var corr int32
				if colSum != nil {
					corr -= zai * colSum[j]
				}
				if zbNonzero {
					corr += int32(k)*zai*zbj - zbj*rowSum[i]
				}
				row[j] += corr
			}
		}
	}
	return true
}

// rawBytes is a uint8 or int8 tensor's memory.
func rawBytes(t *op.T) []byte {
	if t.DType() == tensor.Int8 {
		s := t.I8()
		if len(s) == 0 {
			return nil
		}
		return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s))
	}
	return t.U8()
}

func flipSign(s []byte) []byte {
	out := make([]byte, len(s))
	for i, v := range s {
		out[i] = v ^ 0x80
	}
	return out
}

func shiftZeros(z []int, d int) []int {
	out := make([]int, len(z))
	for i, v := range z {
		out[i] = v + d
	}
	return out
}
