package data

// DistributedBatch is the part of Inner's order that rank Rank of Ranks
// reads, as PaddlePaddle's DistributedBatchSampler splits an epoch: the
// order is padded with its own first indices to a multiple of Ranks
// (so every rank gets ceil(N/Ranks) samples), then each rank takes, from
// every stretch of Ranks×BatchSize indices, the BatchSize ones at
// Rank×BatchSize; a last shorter stretch is split evenly. So the k-th
// batches of all ranks together are the k-th batch of Ranks×BatchSize of
// one process over the same order. (Paddle pads before shuffling; this pads
// after, so the permutation is the single process's.)
type DistributedBatch struct {
	Inner       Sampler
	BatchSize   int
	Rank, Ranks int
}

// Indices returns this rank's indices of the epoch.
func (s DistributedBatch) Indices(epoch int) []int {
	order := s.Inner.Indices(epoch)
	n, nr, b := len(order), max(s.Ranks, 1), max(s.BatchSize, 1)
	if n == 0 {
		return nil
	}
	per := (n + nr - 1) / nr
	total := per * nr
	for len(order) < total { // pad with the order's own start (cyclically when N < Ranks)
		order = append(order, order[:min(total-len(order), n)]...)
	}
	last := total % (b * nr) // the final, shorter stretch
	out := make([]int, 0, per)
	for i := s.Rank * b; i < total-last; i += b * nr {
		out = append(out, order[i:i+b]...)
	}
	l := last / nr
	tail := order[total-last:]
	return append(out, tail[s.Rank*l:(s.Rank+1)*l]...)
}

// position maps the start p of one of this rank's batches (of BatchSize,
// from the start) to its position in the epoch's order of n indices, so a
// sample gets the random draws it gets in one process (SampleRand).
func (s DistributedBatch) position(n int) func(p int) int {
	nr, b := max(s.Ranks, 1), max(s.BatchSize, 1)
	total := (n + nr - 1) / nr * nr
	last := total % (b * nr)
	main := (total - last) / nr // this rank's indices before the last stretch
	return func(p int) int {
		if p < main {
			return p/b*b*nr + s.Rank*b + p%b
		}
		return total - last + s.Rank*(last/nr) + p - main
	}
}

// Shard returns a Loader like l that reads rank's part of every epoch
// (DistributedBatch over l's sampler) out of ranks, each sample with the
// random draws it gets from l.
func (l *Loader[S, B]) Shard(rank, ranks int) *Loader[S, B] {
	c := *l
	c.sampler = DistributedBatch{Inner: l.sampler, BatchSize: l.opts.BatchSize, Rank: rank, Ranks: ranks}
	return &c
}

// SplitGroup is rank's part of one batch g of a global batch (a group of
// sample indices a kit formed itself, by length) split across ranks: ranks
// consecutive parts of ceil(len(g)/ranks) indices, the last ones padded with
// g's own first indices (cyclically when g is shorter than ranks), as
// PaddlePaddle's DistributedBatchSampler pads an epoch. Every rank gets a
// batch of the same size, and the parts together are g when ranks divides
// its length; g is length-sorted by the kit, so each part stays so.
func SplitGroup(g []int, rank, ranks int) []int {
	nr := max(ranks, 1)
	if len(g) == 0 {
		return nil
	}
	per := (len(g) + nr - 1) / nr
	out := make([]int, per)
	for k := range out {
		out[k] = g[(rank*per+k)%len(g)]
	}
	return out
}
