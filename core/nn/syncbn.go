package nn

import (
	"fmt"
	"reflect"
	"unsafe"

	"paddle/core/ag"
	"paddle/core/op"
	"paddle/core/tensor"
)

// Reducer sums buffers element-wise across the ranks of a data-parallel
// run, in place, on every rank (core/dist's Comm is one).
type Reducer interface {
	Size() int
	AllreduceF32(buf []float32) error
	AllreduceF64(buf []float64) error
}

// CollectiveError is the panic a synchronised batch norm raises when its
// all-reduce fails (the training loop turns it into its error).
type CollectiveError struct{ Err error }

func (e *CollectiveError) Error() string { return "sync batch norm: " + e.Err.Error() }

// Unwrap returns the all-reduce's error.
func (e *CollectiveError) Unwrap() error { return e.Err }

// SyncBatchNorm makes every BatchNorm in m (found by walking its fields)
// synchronised over r, as PaddlePaddle's SyncBatchNorm.convert_sync_batchnorm
// does: in training the batch mean and variance are those of the samples
// of all ranks together (two all-reduces a layer forward, two backward), so
// R ranks of batch b train as one process of batch R·b. r nil, or of one
// rank, makes them plain again. It returns how many layers it changed.
func SyncBatchNorm(m Module, r Reducer) int {
	if r != nil && r.Size() <= 1 {
		r = nil
	}
	own := map[*ag.Var]bool{} // running means of m's own buffers: only those count
	for _, p := range Buffers(m) {
		own[p.V] = true
	}
	n := 0
	seen := map[uintptr]bool{}
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer:
			if v.IsNil() || seen[v.Pointer()] {
				return
			}
			seen[v.Pointer()] = true
			if v.Type() == reflect.TypeFor[*BatchNorm]() {
				// Pointer works on unexported fields too, where Interface does not
				b := (*BatchNorm)(unsafe.Pointer(v.Pointer()))
				if own[b.RunningMean] {
					b.sync = r
					n++
				}
				return
			}
			walk(v.Elem())
		case reflect.Interface:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Struct:
			for i := range v.NumField() {
				walk(v.Field(i))
			}
		case reflect.Slice, reflect.Array:
			for i := range v.Len() {
				walk(v.Index(i))
			}
		case reflect.Map:
			it := v.MapRange()
			for it.Next() {
				walk(it.Value())
			}
		}
	}
	walk(reflect.ValueOf(m))
	return n
}

// syncForward is Forward in training over all ranks' samples: the mean and
// the biased variance (two passes, in float64) from sums
// all-reduced across ranks, the running statistics from those.
func (b *BatchNorm) syncForward(x, w, bias *ag.Var) *ag.Var {
	s := x.Shape()
	c := s[1]
	axes := []int{0}
	for i := 2; i < len(s); i++ {
		axes = append(axes, i)
	}
	count := []float64{float64(s.NumElements() / c)}
	if err := b.sync.AllreduceF64(count); err != nil {
		panic(&CollectiveError{err})
	}
	n := count[0]
	// in float64, as the fused kernel accumulates: float32 sums over a
	// whole batch's pixels lose digits a single process keeps
	dt := x.DType()
	x64, w64, b64 := ag.Cast(x, tensor.Float64), ag.Cast(w, tensor.Float64), ag.Cast(bias, tensor.Float64)
	all := allReduce(b.sync)
	mean := ag.MulScalar(all(ag.Sum(x64, axes, true)), 1/n)
	d := ag.Sub(x64, mean)
	v := ag.MulScalar(all(ag.Sum(ag.Mul(d, d), axes, true)), 1/n)
	shape := make([]int, len(s))
	for i := range shape {
		shape[i] = 1
	}
	shape[1] = c
	y := ag.Mul(d, ag.Rsqrt(ag.AddScalar(v, b.eps)))
	y = ag.Add(ag.Mul(y, ag.Reshape(w64, shape...)), ag.Reshape(b64, shape...))
	b.track(mean.T, v.T, int(n))
	return ag.Cast(y, dt)
}

// allReduce returns the differentiable sum over r's ranks: the forward
// all-reduces the value, the backward the gradient (every rank's loss
// depends on every rank's share of the sum).
func allReduce(r Reducer) func(x *ag.Var) *ag.Var {
	reduce := func(t *tensor.Tensor) {
		var err error
		switch t.DType() {
		case tensor.Float32:
			err = r.AllreduceF32(t.F32())
		case tensor.Float64:
			err = r.AllreduceF64(t.F64())
		default:
			err = fmt.Errorf("dtype %v cannot be all-reduced", t.DType())
		}
		if err != nil {
			panic(&CollectiveError{err})
		}
	}
	d := &op.Def{
		Name: "all_reduce_sum", Arity: 1,
		Infer: func(in []op.Meta, _ op.Attrs) ([]op.Meta, error) { return in[:1], nil },
		Ref: func(out, in []*op.T, _ op.Attrs) {
			out[0].CopyFrom(in[0])
			reduce(out[0])
		},
		VJP: func(c *op.VJPCtx) []*op.T {
			g := c.GradOut[0].Contiguous().Clone()
			reduce(g)
			return []*op.T{g}
		},
	}
	return func(x *ag.Var) *ag.Var { return ag.Apply(d, nil, x)[0] }
}
