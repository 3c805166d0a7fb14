package nn

import (
	"reflect"
	"unsafe"

	"paddle/core/ag"
	"paddle/core/op"
)

// Reducer sums buffers element-wise across the ranks of a data-parallel
// run, in place, on every rank (core/dist's Comm is one).
type Reducer interface {
	Size() int
	AllreduceF32(buf []float32) error
	AllreduceF64(buf []float64) error
}

// CollectiveError is the panic a synchronised batch norm or SumAcross
// raises when its all-reduce fails (the training loop turns it into its
// error). What says which ("sync batch norm").
type CollectiveError struct {
	What string
	Err  error
}

func (e *CollectiveError) Error() string { return e.What + ": " + e.Err.Error() }

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

// syncForward is Forward in training over all ranks' samples
// (op.BatchNormTrainAcross: the fused kernel's arithmetic with its
// per-channel float64 sums all-reduced), the running statistics from those.
func (b *BatchNorm) syncForward(x, w, bias *ag.Var) *ag.Var {
	s := x.Shape()
	count := []float64{float64(s.NumElements() / s[1])}
	reduce := func(buf []float64) {
		if err := b.sync.AllreduceF64(buf); err != nil {
			panic(&CollectiveError{What: "sync batch norm", Err: err})
		}
	}
	reduce(count)
	o := ag.Apply(op.BatchNormTrainAcross(reduce), op.Attrs{"epsilon": b.eps}, x, w, bias)
	b.track(o[1].T, o[2].T, int(count[0]))
	return o[0]
}
