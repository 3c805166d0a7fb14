package vorbis

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// FuzzDecode feeds damaged files to Decode: it must return an error or
// audio, never panic. Each input is tried as is and with its page CRCs
// repaired, so mutations reach the Vorbis layers behind the Ogg checksum.
func FuzzDecode(f *testing.F) {
	for _, name := range []string{"mono8k_qm1.ogg", "chan3_22k_q2.ogg"} {
		b := readFixture(f, name)
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	old := MaxSamples
	MaxSamples = 1 << 18 // keeps each input fast: a mutated header can ask for 255 channels
	f.Cleanup(func() { MaxSamples = old })
	f.Fuzz(func(t *testing.T, b []byte) {
		Decode(b)
		var fixed []byte
		for _, p := range splitPages(b) {
			q := append([]byte(nil), p...)
			fixCRC(q)
			fixed = append(fixed, q...)
		}
		Decode(fixed)
	})
}

// TestRandomDamage is a fixed-seed stand-in for fuzzing in ordinary test
// runs: 400 copies of two fixtures with random bit flips, byte changes,
// insertions and deletions (page CRCs repaired) must decode or fail
// cleanly, each within a second.
func TestRandomDamage(t *testing.T) {
	old := MaxSamples
	MaxSamples = 1 << 22
	defer func() { MaxSamples = old }()
	rng := rand.New(rand.NewPCG(3, 4))
	for _, name := range []string{"mono8k_qm1.ogg", "chan3_22k_q2.ogg"} {
		seed := readFixture(t, name)
		for it := range 200 {
			b := slices.Clone(seed)
			for range 1 + rng.IntN(4) {
				i := rng.IntN(len(b))
				switch rng.IntN(4) {
				case 0:
					b[i] ^= byte(1 << rng.IntN(8))
				case 1:
					b[i] = byte(rng.IntN(256))
				case 2:
					b = slices.Delete(b, i, i+1)
				default:
					b = slices.Insert(b, i, byte(rng.IntN(256)))
				}
			}
			var fixed []byte
			for _, p := range splitPages(b) {
				q := slices.Clone(p)
				fixCRC(q)
				fixed = append(fixed, q...)
			}
			start := time.Now()
			Decode(fixed)
			if d := time.Since(start); d > time.Second {
				t.Errorf("%s mutation %d: decode took %v", name, it, d)
			}
		}
	}
}
