package scratch

import (
	"testing"
)

// Every size maps to the smallest class that holds it, and a buffer's
// capacity to the largest class it can serve.
func TestClasses(t *testing.T) {
	for n := 1; n < 1<<16; n++ {
		c := classOf(n)
		if size(c) < n || (c > 0 && size(c-1) >= n) {
			t.Fatalf("classOf(%d) = %d (size %d; the class below has %d)", n, c, size(c), size(max(c-1, 0)))
		}
		if size(c) > n+n/4+4 {
			t.Fatalf("class %d of size %d wastes more than a quarter of %d", c, size(c), n)
		}
	}
	for n := 4; n < 1<<16; n++ {
		c := classBelow(n)
		if size(c) > n || size(c+1) <= n {
			t.Fatalf("classBelow(%d) = %d (size %d; the class above has %d)", n, c, size(c), size(c+1))
		}
	}
	for _, n := range []int{1 << 20, 3<<20 + 1, 1<<40 - 3} {
		if c := classOf(n); size(c) < n || size(c-1) >= n {
			t.Fatalf("classOf(%d) = %d", n, c)
		}
	}
}

// Get gives n elements, zeroed when asked, and reuses a buffer put back
// in the same class (the pool may drop it: a GC may run between, so the
// reuse is only checked to be correct when it happens).
func TestGetPut(t *testing.T) {
	p := Get[float32](1000, false)
	if len(*p) != 1000 || cap(*p) != size(classOf(1000)) {
		t.Fatalf("len %d cap %d", len(*p), cap(*p))
	}
	for i := range *p {
		(*p)[i] = 7
	}
	Put(p)
	q := Get[float32](990, true)
	if len(*q) != 990 {
		t.Fatalf("len %d", len(*q))
	}
	for i, v := range *q {
		if v != 0 {
			t.Fatalf("zeroed buffer has %v at %d", v, i)
		}
	}
	Put(q)
	// another class never serves a request it is too small for
	small := Get[float64](100, false)
	Put(small)
	big := Get[float64](5000, false)
	if cap(*big) < 5000 {
		t.Fatalf("cap %d for 5000", cap(*big))
	}
	// a foreign buffer of odd capacity goes to the class below it, whose
	// requests it can always hold (a class above would slice past its cap)
	odd := make([]int32, 1001)
	Put(&odd)
	want := size(classBelow(1001))
	if r := Get[int32](want, false); len(*r) != want {
		t.Fatalf("len %d, want %d", len(*r), want)
	}
	if e := Get[byte](0, true); len(*e) != 0 {
		t.Fatal("Get(0) not empty")
	}
}

func TestNoAllocsWhenReused(t *testing.T) {
	Put(Get[float32](1<<16, false))
	allocs := testing.AllocsPerRun(100, func() {
		p := Get[float32](1<<16, false)
		Put(p)
	})
	if allocs > 0 {
		t.Fatalf("%v allocations per Get/Put of a pooled size", allocs)
	}
}
