package workflow

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"paddle/core/ag"
	"paddle/core/dist"
	"paddle/core/nn"
	"paddle/core/tensor"
)

// chain is a model of n float32 vectors of 300 applied one after the other
// (h = tanh(h·p)), so the backward pass finishes them last to first.
type chain []nn.Param

func newChain(n int, seed uint64) chain {
	r := rand.New(rand.NewPCG(seed, 1))
	c := make(chain, n)
	for i := range c {
		t := tensor.New(tensor.Float32, 300)
		for k := range t.F32() {
			t.F32()[k] = float32(r.NormFloat64())
		}
		c[i] = nn.Param{Name: fmt.Sprintf("p%d", i), V: ag.Param(t)}
	}
	return c
}

func (c chain) Params() []nn.Param { return c }

// loss runs the parameters named by use, in order, over a fixed input.
func (c chain) loss(use ...int) *ag.Var {
	x := tensor.New(tensor.Float32, 300)
	for k := range x.F32() {
		x.F32()[k] = float32(k%7) / 7
	}
	h := ag.Const(x)
	for _, i := range use {
		h = ag.Tanh(ag.Mul(h, c[i].V))
	}
	return ag.Sum(h, nil, false)
}

func (c chain) grads() [][]float32 {
	out := make([][]float32, len(c))
	for i, p := range c {
		if p.V.Grad != nil {
			out[i] = slices.Clone(p.V.Grad.F32())
		}
	}
	return out
}

// fakeComm is rank 0 of 2 whose partner holds the same values: an
// all-reduce doubles the buffer. It records when each all-reduce starts:
// which bucket (its length) and whether the first parameter (the last one
// the backward pass finishes) already had its gradient.
type fakeComm struct {
	dist.Local
	first  *ag.Var
	starts []string
}

func (f *fakeComm) Size() int { return 2 }

func (f *fakeComm) IallreduceF32(b []float32) (dist.Request, error) {
	when := "during"
	if f.first.Grad != nil {
		when = "after"
	}
	f.starts = append(f.starts, fmt.Sprintf("%d %s", len(b), when))
	return f, f.AllreduceF32(b)
}

func (f *fakeComm) AllreduceF32(b []float32) error {
	for i := range b {
		b[i] *= 2
	}
	return nil
}

func (f *fakeComm) Wait() error { return nil }

// TestBucketsStartDuringBackward: the parameters go into buckets of about
// the bucket size in reverse registration order; a bucket's all-reduce
// starts in the backward pass as soon as its gradients are final, in
// order, and the averaged gradients are the one-process ones. A bucket
// holding a parameter the step does not use starts after the backward
// pass (with it, every later bucket), and that parameter keeps no gradient;
// a backward pass that is not armed (an accumulation micro-batch) starts
// nothing.
func TestBucketsStartDuringBackward(t *testing.T) {
	const bucket = 2 * 300 * 4 // two parameters a bucket
	for _, tc := range []struct {
		name   string
		params int
		use    []int
		armed  bool
		starts []string
	}{
		// buckets [p3 p2] [p1 p0]: 600 gradients and 2 counts each
		{"all used", 4, []int{0, 1, 2, 3}, true, []string{"602 during", "602 after"}},
		// [p4 p3] [p2 p1] [p0]: p4 unused holds the first bucket back
		{"one unused", 5, []int{0, 1, 2, 3}, true, []string{"602 after", "602 after", "301 after"}},
		{"not armed", 4, []int{0, 1, 2, 3}, false, []string{"602 after", "602 after"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := newChain(tc.params, 1)
			want.loss(tc.use...).Backward()
			m := newChain(tc.params, 1)
			c := &fakeComm{first: m[0].V}
			r, err := newRanks(c, m, bucket)
			if err != nil {
				t.Fatal(err)
			}
			r.overlap()
			defer r.close()
			if tc.armed {
				r.arm()
			}
			m.loss(tc.use...).Backward()
			if err := r.averageGrads(); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(c.starts, tc.starts) {
				t.Errorf("all-reduces started %q, want %q", c.starts, tc.starts)
			}
			got, exp := m.grads(), want.grads()
			for i := range exp {
				if (got[i] == nil) != (exp[i] == nil) || !slices.Equal(got[i], exp[i]) {
					t.Errorf("%s: averaged gradient differs from one process's (nil: %v, %v)", m[i].Name, got[i] == nil, exp[i] == nil)
				}
			}
		})
	}
}

// TestBucketsUnusedOnOneRank: a parameter only rank 1 uses gets half rank
// 1's gradient on both ranks (rank 0 counts as zero); ranks whose buckets
// start at different times (rank 0's first bucket waits for the end of its
// backward pass) still pair their all-reduces in order.
func TestBucketsUnusedOnOneRank(t *testing.T) {
	comms := dist.Group(2)
	uses := [][]int{{0, 1, 2}, {0, 1, 2, 3}}
	got := make([][][]float32, 2)
	alone := make([][][]float32, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for rank := range 2 {
		ref := newChain(4, 1)
		ref.loss(uses[rank]...).Backward()
		alone[rank] = ref.grads()
		m := newChain(4, 1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := newRanks(comms[rank], m, 300*4)
			if err != nil {
				errs[rank] = err
				return
			}
			r.overlap()
			defer r.close()
			r.arm()
			m.loss(uses[rank]...).Backward()
			errs[rank] = r.averageGrads()
			got[rank] = m.grads()
		}()
	}
	wg.Wait()
	for rank := range 2 {
		if errs[rank] != nil {
			t.Fatalf("rank %d: %v", rank, errs[rank])
		}
		for i := range 4 {
			a, b := alone[0][i], alone[1][i]
			for k := range got[rank][i] {
				var x float32
				if a != nil {
					x = a[k]
				}
				if want := (x + b[k]) * 0.5; got[rank][i][k] != want {
					t.Fatalf("rank %d p%d[%d] = %v, want %v (the mean of %v and %v)", rank, i, k, got[rank][i][k], want, x, b[k])
				}
			}
		}
	}
}
