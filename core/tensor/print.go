package tensor

import (
	"fmt"
	"strings"
)

// String prints t like NumPy, eliding the middle of long axes.
func (t *Tensor) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "tensor(%v, %v) ", t.dtype, t.shape)
	if len(t.shape) == 0 {
		b.WriteString(t.fmtElem(t.offset))
		return b.String()
	}
	t.format(&b, 0, t.offset)
	return b.String()
}

const printEdge = 3

func (t *Tensor) format(b *strings.Builder, ax, flat int) {
	b.WriteByte('[')
	n := t.shape[ax]
	for i := 0; i < n; i++ {
		if n > 2*printEdge && i == printEdge {
			b.WriteString("..., ")
			i = n - printEdge - 1
			continue
		}
		if ax == len(t.shape)-1 {
			b.WriteString(t.fmtElem(flat + i*t.strides[ax]))
		} else {
			t.format(b, ax+1, flat+i*t.strides[ax])
		}
		if i < n-1 {
			b.WriteString(", ")
		}
	}
	b.WriteByte(']')
}

func (t *Tensor) fmtElem(flat int) string {
	v := t.getFlat(flat)
	switch {
	case t.dtype == Bool:
		return fmt.Sprint(v != 0)
	case t.dtype.IsFloat():
		return fmt.Sprintf("%.4g", v)
	}
	return fmt.Sprintf("%d", int64(v))
}
