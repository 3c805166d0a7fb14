package data

import "math/rand/v2"

// Stream tags keep the RNGs used for different purposes independent even
// when they are derived from the same (seed, epoch).
const (
	tagSampler uint64 = 0x5a4d504c45520001 // sampler permutations
	tagSample  uint64 = 0x53414d504c450002 // per-sample augmentation
)

// splitmix64 is a bijective 64-bit mixer (Steele et al., "Fast splittable
// pseudorandom number generators", 2014); it decorrelates nearby inputs.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

func deriveRand(tag, seed uint64, epoch, k int) *rand.Rand {
	a := splitmix64(seed ^ tag)
	b := splitmix64(a ^ uint64(epoch))
	return rand.New(rand.NewPCG(b, splitmix64(b^uint64(k)^tag)))
}

// SampleRand returns the augmentation RNG of the k-th sample drawn in an
// epoch (k counts positions in the sampler's order, so a sample drawn twice
// by a sampler with replacement gets two different draws). The Loader uses
// it; it is exported so a test or tool can reproduce one sample exactly.
func SampleRand(seed uint64, epoch, k int) *rand.Rand {
	return deriveRand(tagSample, seed, epoch, k)
}
