package vorbis

// bitReader reads a packet's bits LSB first (Vorbis I spec §2.1.4). Reading
// past the end yields zeros and sets eop: headers treat that as an error,
// audio packets as "the rest is zero" as the spec asks.
type bitReader struct {
	data []byte
	pos  int // bit position
	eop  bool
}

func newBitReader(b []byte) *bitReader { return &bitReader{data: b} }

// read returns the next n bits (0 ≤ n ≤ 32) as an unsigned value.
func (r *bitReader) read(n int) uint32 {
	var v uint32
	for i := 0; i < n; {
		byteIdx := r.pos >> 3
		if byteIdx >= len(r.data) {
			r.eop = true
			r.pos += n - i
			return v
		}
		shift := r.pos & 7
		take := min(8-shift, n-i)
		bits := uint32(r.data[byteIdx]>>shift) & (1<<take - 1)
		v |= bits << i
		i += take
		r.pos += take
	}
	return v
}

// bit reads one bit.
func (r *bitReader) bit() bool { return r.read(1) == 1 }

// ilog is the number of bits needed to hold v (Vorbis I spec §9.2.1):
// ilog(0) = 0, ilog(1) = 1, ilog(7) = 3.
func ilog(v int) int {
	n := 0
	for v > 0 {
		n++
		v >>= 1
	}
	return n
}
