package vorbis

import (
	"slices"
	"testing"
)

// TestResiduePartition checks how residue types 0 and 1 place VQ vectors
// (§8.6.3, 8.6.4) — libvorbis's encoder only writes types 1 and 2, so the
// fixtures never reach type 0. A 2-entry, 2-dimensional book with
// codewords 0 → (1, 2) and 1 → (3, 4) reads entries 0 1 1 0 into a
// partition of 8: type 0 interleaves with stride 8/2 = 4, type 1 does not.
func TestResiduePartition(t *testing.T) {
	cb := &codebook{entries: 2, dims: 2, single: -1, vq: []float32{1, 2, 3, 4}}
	if err := cb.buildTree([]uint8{1, 1}); err != nil {
		t.Fatal(err)
	}
	bits := []byte{0b0110} // entries 0, 1, 1, 0, LSB first
	for _, tt := range []struct {
		kind int
		want []float32
	}{
		{0, []float32{1, 3, 3, 1, 2, 4, 4, 2}},
		{1, []float32{1, 2, 3, 4, 3, 4, 1, 2}},
	} {
		v := make([]float32, 8)
		res := &residue{kind: tt.kind}
		if !res.partition(newBitReader(bits), cb, v) {
			t.Fatalf("type %d: end of packet", tt.kind)
		}
		if !slices.Equal(v, tt.want) {
			t.Errorf("type %d: %v, want %v", tt.kind, v, tt.want)
		}
	}
	// Past the end of the packet the partition stops.
	if (&residue{kind: 1}).partition(newBitReader(nil), cb, make([]float32, 8)) {
		t.Error("empty packet decoded a partition")
	}
}
