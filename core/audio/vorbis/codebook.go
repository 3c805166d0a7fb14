package vorbis

import (
	"errors"
	"fmt"
	"math"
)

// codebook is one setup-header codebook (Vorbis I spec §3): a Huffman code
// over its entries and, for lookup types 1 and 2, the VQ vector of each.
type codebook struct {
	dims    int
	entries int
	// tree: node k's children are tree[2k] (bit 0) and tree[2k+1] (bit 1);
	// a value < 0 is the leaf of entry -v-1, 0 is absent (the root is node 0
	// and is never a child).
	tree   []int32
	single int       // the only used entry of a one-entry code, else -1
	vq     []float32 // entries × dims, nil without a lookup table
}

// readCodebook reads one codebook from the setup header; entries × dims
// may not exceed budget.
func readCodebook(r *bitReader, budget int) (*codebook, error) {
	if sync := r.read(24); sync != 0x564342 {
		return nil, fmt.Errorf("bad sync pattern %06x, want 564342", sync)
	}
	cb := &codebook{dims: int(r.read(16)), entries: int(r.read(24)), single: -1}
	if cb.dims == 0 || cb.entries == 0 {
		return nil, fmt.Errorf("%d dimensions × %d entries", cb.dims, cb.entries)
	}
	if cb.entries*cb.dims > budget {
		return nil, fmt.Errorf("%d dimensions × %d entries: over the %d values all codebooks may hold", cb.dims, cb.entries, maxBookValues)
	}
	lengths := make([]uint8, cb.entries)
	if ordered := r.bit(); !ordered {
		sparse := r.bit()
		for i := range lengths {
			if !sparse || r.bit() {
				lengths[i] = uint8(r.read(5) + 1)
			}
		}
	} else {
		cur := 0
		length := int(r.read(5)) + 1
		for cur < cb.entries {
			if length > 32 {
				return nil, errors.New("ordered codeword length above 32")
			}
			n := int(r.read(ilog(cb.entries - cur)))
			if cur+n > cb.entries {
				return nil, fmt.Errorf("ordered lengths cover %d entries, only %d exist", cur+n, cb.entries)
			}
			for i := cur; i < cur+n; i++ {
				lengths[i] = uint8(length)
			}
			cur += n
			length++
			if r.eop {
				return nil, errEOP
			}
		}
	}
	if r.eop {
		return nil, errEOP
	}
	if err := cb.buildTree(lengths); err != nil {
		return nil, err
	}
	switch lookup := r.read(4); lookup {
	case 0:
	case 1, 2:
		minV := float32Unpack(r.read(32))
		delta := float32Unpack(r.read(32))
		valueBits := int(r.read(4)) + 1
		sequence := r.bit()
		n := cb.entries * cb.dims
		if lookup == 1 {
			n = lookup1Values(cb.entries, cb.dims)
		}
		if n <= 0 || int64(n)*int64(valueBits) > int64(len(r.data))*8 {
			return nil, fmt.Errorf("%d lookup values do not fit the header", n)
		}
		mult := make([]uint32, n)
		for i := range mult {
			mult[i] = r.read(valueBits)
		}
		if r.eop {
			return nil, errEOP
		}
		cb.unquantize(lookup, mult, minV, delta, sequence)
	default:
		return nil, fmt.Errorf("lookup type %d, want 0, 1 or 2", lookup)
	}
	return cb, nil
}

var errEOP = errors.New("header ends early")

// float32Unpack decodes the spec's 32-bit float format (§9.2.2): a 21-bit
// mantissa, a 10-bit exponent biased by 788, and a sign bit. libvorbis keeps
// the result as a C float, so we do too.
func float32Unpack(x uint32) float32 {
	m := float64(x & 0x1fffff)
	if x&0x80000000 != 0 {
		m = -m
	}
	e := int((x & 0x7fe00000) >> 21)
	return float32(math.Ldexp(m, e-788))
}

// lookup1Values is the largest r with r^dims ≤ entries (§9.2.3).
func lookup1Values(entries, dims int) int {
	r := int(math.Floor(math.Exp(math.Log(float64(entries)) / float64(dims))))
	// Fix any floating-point rounding either way.
	for pow(r+1, dims) <= entries {
		r++
	}
	for r > 0 && pow(r, dims) > entries {
		r--
	}
	return r
}

func pow(b, e int) int {
	p := 1
	for range e {
		p *= b
		if p > 1<<30 {
			return p
		}
	}
	return p
}

// unquantize builds the VQ vectors (§3.2.1) in float32, as libvorbis does.
func (cb *codebook) unquantize(lookup uint32, mult []uint32, minV, delta float32, sequence bool) {
	cb.vq = make([]float32, cb.entries*cb.dims)
	nv := len(mult)
	for e := 0; e < cb.entries; e++ {
		var last float32
		div := 1
		for d := 0; d < cb.dims; d++ {
			off := e*cb.dims + d
			if lookup == 1 {
				off = (e / div) % nv
				div *= nv
			}
			v := float32(mult[off])*delta + minV + last
			if sequence {
				last = v
			}
			cb.vq[e*cb.dims+d] = v
		}
	}
}

// buildTree assigns codewords (§3.2.1): entries in order take the lowest
// unused codeword of their length, MSB first. The set of unused codewords is
// kept as a list of free subtree roots; over- or under-full codes are errors
// except the legal one-entry code.
func (cb *codebook) buildTree(lengths []uint8) error {
	type root struct {
		depth int
		code  uint64
	}
	free := []root{{0, 0}}
	used := 0
	for e, l := range lengths {
		if l == 0 {
			continue
		}
		used++
		cb.single = e
		depth := int(l)
		best := -1
		for i, f := range free {
			if f.depth <= depth && (best < 0 || f.code<<(depth-f.depth) < free[best].code<<(depth-free[best].depth)) {
				best = i
			}
		}
		if best < 0 {
			return fmt.Errorf("entry %d: no codeword of length %d left (overspecified code)", e, depth)
		}
		f := free[best]
		free = append(free[:best], free[best+1:]...)
		// Taking the leftmost leaf of f's subtree at this depth frees the
		// right sibling at each level on the way down.
		for d := f.depth + 1; d <= depth; d++ {
			free = append(free, root{d, f.code<<(d-f.depth) | 1})
		}
		code := f.code << (depth - f.depth)
		if err := cb.insert(code, depth, e); err != nil {
			return err
		}
	}
	if used != 1 {
		cb.single = -1
	}
	if used == 0 {
		return nil // a codebook no packet may use
	}
	if used > 1 && len(free) > 0 {
		return fmt.Errorf("%d codewords leave the code underspecified", used)
	}
	return nil
}

func (cb *codebook) insert(code uint64, depth, entry int) error {
	if cb.tree == nil {
		cb.tree = make([]int32, 2)
	}
	node := 0
	for i := depth - 1; i >= 0; i-- {
		b := int(code>>i) & 1
		slot := 2*node + b
		if i == 0 {
			cb.tree[slot] = int32(-entry - 1)
			return nil
		}
		next := cb.tree[slot]
		if next < 0 {
			return fmt.Errorf("entry %d: codeword prefix taken", entry)
		}
		if next == 0 {
			next = int32(len(cb.tree) / 2)
			cb.tree[slot] = next
			cb.tree = append(cb.tree, 0, 0)
		}
		node = int(next)
	}
	return nil
}

// decode reads one entry number, or -1 at end of packet or on a codeword
// the code does not have.
func (cb *codebook) decode(r *bitReader) int {
	if cb.single >= 0 {
		// One used entry: libvorbis spends one bit on it whatever it is.
		r.read(1)
		if r.eop {
			return -1
		}
		return cb.single
	}
	if cb.tree == nil {
		return -1
	}
	node := 0
	for {
		next := cb.tree[2*node+int(r.read(1))]
		if r.eop {
			return -1
		}
		if next < 0 {
			return int(-next - 1)
		}
		if next == 0 {
			return -1
		}
		node = int(next)
	}
}

// vector reads one entry and returns its VQ vector, or nil at end of packet.
func (cb *codebook) vector(r *bitReader) []float32 {
	e := cb.decode(r)
	if e < 0 || cb.vq == nil {
		return nil
	}
	return cb.vq[e*cb.dims : (e+1)*cb.dims]
}
