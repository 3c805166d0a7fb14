package op

import "paddle/core/tensor"

// bstrides returns strides of a contiguous tensor of shape s viewed as broadcast to out.
func bstrides(s, out tensor.Shape) []int {
	st := make([]int, len(out))
	cs := tensor.ContiguousStrides(s)
	off := len(out) - len(s)
	for i := off; i < len(out); i++ {
		if s[i-off] != 1 {
			st[i] = cs[i-off]
		}
	}
	return st
}

// forBroadcast2 calls f(o, ia, ib) for every output position o of shape out,
// with ia and ib the flat indices into contiguous inputs of shapes sa and sb.
func forBroadcast2(out, sa, sb tensor.Shape, f func(o, ia, ib int)) {
	n := out.NumElements()
	if n == 0 {
		return
	}
	if sa.Equal(out) && sb.Equal(out) {
		for i := range n {
			f(i, i, i)
		}
		return
	}
	ta, tb := bstrides(sa, out), bstrides(sb, out)
	r := len(out)
	idx := make([]int, r)
	ia, ib := 0, 0
	for o := range n {
		f(o, ia, ib)
		for ax := r - 1; ax >= 0; ax-- {
			idx[ax]++
			ia += ta[ax]
			ib += tb[ax]
			if idx[ax] < out[ax] {
				break
			}
			ia -= idx[ax] * ta[ax]
			ib -= idx[ax] * tb[ax]
			idx[ax] = 0
		}
	}
}

// unbroadcast sums g (shape of a broadcast result) back down to shape s.
func unbroadcast(g *T, s tensor.Shape) *T {
	if g.Shape().Equal(s) {
		return g
	}
	return SumTo(g, s)
}
