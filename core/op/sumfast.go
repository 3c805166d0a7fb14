package op

import (
	"sync"

	"paddle/core/parallel"
	"paddle/core/tensor"
)

// sumRows adds x (shape s, contiguous) over the axes marked in red into acc,
// the row-major output over the kept axes, accumulating in float64. Size-1
// axes are dropped and adjacent axes that are both reduced or both kept are
// merged, so the work is whole rows: a reduced innermost row is summed into
// one output, a kept one is added onto an output row. Large inputs with small
// outputs (bias gradients) are split across goroutines with private partial sums.
func sumRows[E fl](acc []float64, x []E, s tensor.Shape, red []bool) {
	if len(x) == 0 {
		return
	}
	var dims []int
	var rd []bool
	for i, d := range s {
		if d == 1 {
			continue
		}
		if n := len(dims); n > 0 && rd[n-1] == red[i] {
			dims[n-1] *= d
			continue
		}
		dims, rd = append(dims, d), append(rd, red[i])
	}
	if len(dims) == 0 {
		acc[0] += float64(x[0])
		return
	}
	ost := make([]int, len(dims)) // output strides; 0 on reduced axes
	m := 1
	for i := len(dims) - 1; i >= 0; i-- {
		if !rd[i] {
			ost[i] = m
			m *= dims[i]
		}
	}
	r := len(dims) - 1
	inner := dims[r]
	rows := len(x) / inner
	run := func(acc []float64, lo, hi int) {
		for row := lo; row < hi; row++ {
			o, q := 0, row
			for ax := r - 1; ax >= 0; ax-- {
				o += (q % dims[ax]) * ost[ax]
				q /= dims[ax]
			}
			xr := x[row*inner : (row+1)*inner]
			if rd[r] {
				s := 0.0
				for _, v := range xr {
					s += float64(v)
				}
				acc[o] += s
				continue
			}
			a := acc[o : o+inner]
			for i, v := range xr {
				a[i] += float64(v)
			}
		}
	}
	if len(x) < 1<<16 || len(acc) > 1<<14 || parallel.Threads() < 2 {
		run(acc, 0, rows)
		return
	}
	var mu sync.Mutex
	parallel.For(rows, max(1, (1<<15)/inner), func(lo, hi int) {
		part := make([]float64, len(acc))
		run(part, lo, hi)
		mu.Lock()
		for i, v := range part {
			acc[i] += v
		}
		mu.Unlock()
	})
}
