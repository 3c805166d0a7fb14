package metric

// PairwiseSum adds a like NumPy's pairwise_sum (np.add.reduce, hence np.sum
// and np.mean, on a contiguous array of the same dtype): a plain loop under 8
// values, 8 running sums in blocks of up to 128, halves (the first rounded
// down to a multiple of 8) above that. Metrics use it so their means match
// the Python references bit for bit.
func PairwiseSum[T float32 | float64](a []T) T {
	n := len(a)
	switch {
	case n < 8:
		var s T
		for _, v := range a {
			s += v
		}
		return s
	case n <= 128:
		var r [8]T
		copy(r[:], a[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			for j := range 8 {
				r[j] += a[i+j]
			}
		}
		s := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			s += a[i]
		}
		return s
	}
	n2 := n / 2
	n2 -= n2 % 8
	return PairwiseSum(a[:n2]) + PairwiseSum(a[n2:])
}
