package data

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// item is a sample: its dataset index and a value drawn from its RNG.
type item struct {
	Index int
	Draw  uint64
}

func intDataset(n int) Dataset[item] {
	return FuncDataset[item]{N: n, F: func(i int) (item, error) { return item{Index: i}, nil }}
}

// augmented draws a value from each sample's RNG, like a random transform would.
func augmented(n int) RandDataset[item] {
	return WithTransform(intDataset(n), TransformFunc[item](func(s *item, r *rand.Rand) (bool, error) {
		s.Draw = r.Uint64()
		return true, nil
	}))
}

func collectItems(s []item) ([]item, error) { return slices.Clone(s), nil }

func runEpoch[B any](t *testing.T, seq iter.Seq2[B, error]) []B {
	t.Helper()
	var out []B
	for b, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

func TestLoaderDeterministicAcrossWorkers(t *testing.T) {
	ds := augmented(103)
	var ref [][]item
	for _, workers := range []int{0, 1, 2, 4} {
		l := NewLoader(ds, LoaderOptions{BatchSize: 8, Shuffle: true, Workers: workers, Seed: 42}, collectItems)
		got := runEpoch(t, l.Epoch(context.Background(), 3))
		if ref == nil {
			ref = got
			continue
		}
		if fmt.Sprint(got) != fmt.Sprint(ref) {
			t.Errorf("workers=%d: batches differ from workers=0", workers)
		}
	}
	l := NewLoader(ds, LoaderOptions{BatchSize: 8, Shuffle: true, Workers: 2, Seed: 42}, collectItems)
	if again := runEpoch(t, l.Epoch(context.Background(), 3)); fmt.Sprint(again) != fmt.Sprint(ref) {
		t.Error("the same epoch twice gave different batches")
	}
	if other := runEpoch(t, l.Epoch(context.Background(), 4)); fmt.Sprint(other) == fmt.Sprint(ref) {
		t.Error("epochs 3 and 4 gave the same batches")
	}
	if tail := runEpoch(t, l.EpochFrom(context.Background(), 3, 5)); fmt.Sprint(tail) != fmt.Sprint(ref[5:]) {
		t.Error("EpochFrom(3, 5) differs from the last batches of epoch 3")
	}
	l2 := NewLoader(ds, LoaderOptions{BatchSize: 8, Shuffle: true, Workers: 2, Seed: 43}, collectItems)
	if other := runEpoch(t, l2.Epoch(context.Background(), 3)); fmt.Sprint(other) == fmt.Sprint(ref) {
		t.Error("seeds 42 and 43 gave the same batches")
	}
}

func TestLoaderEverySampleOnce(t *testing.T) {
	for _, dropLast := range []bool{false, true} {
		for _, workers := range []int{0, 3} {
			name := fmt.Sprintf("drop_last=%v/workers=%d", dropLast, workers)
			l := NewLoader(intDataset(50), LoaderOptions{BatchSize: 7, Shuffle: true, DropLast: dropLast, Workers: workers, Seed: 1}, collectItems)
			batches := runEpoch(t, l.Epoch(context.Background(), 0))
			wantBatches := 8 // ceil(50/7)
			if dropLast {
				wantBatches = 7
			}
			if len(batches) != wantBatches || l.Len() != wantBatches {
				t.Errorf("%s: %d batches (Len %d), want %d", name, len(batches), l.Len(), wantBatches)
			}
			seen := map[int]int{}
			for i, b := range batches {
				if len(b) != 7 && (dropLast || i != len(batches)-1) {
					t.Errorf("%s: batch %d has %d samples", name, i, len(b))
				}
				for _, s := range b {
					seen[s.Index]++
				}
			}
			for idx, n := range seen {
				if n != 1 {
					t.Errorf("%s: sample %d seen %d times", name, idx, n)
				}
			}
			if want := wantBatches * 7; dropLast && len(seen) != want || !dropLast && len(seen) != 50 {
				t.Errorf("%s: %d distinct samples", name, len(seen))
			}
		}
	}
	// Without shuffle the order is 0..N-1.
	l := NewLoader(intDataset(5), LoaderOptions{BatchSize: 2, Workers: 2}, collectItems)
	if got := fmt.Sprint(runEpoch(t, l.Epoch(context.Background(), 0))); got != "[[{0 0} {1 0}] [{2 0} {3 0}] [{4 0}]]" {
		t.Errorf("sequential batches = %s", got)
	}
}

func TestLoaderErrorNamesSample(t *testing.T) {
	boom := errors.New("corrupt image")
	ds := FuncDataset[item]{N: 100, F: func(i int) (item, error) {
		if i == 57 {
			return item{}, boom
		}
		return item{Index: i}, nil
	}}
	for _, workers := range []int{0, 3} {
		l := NewLoader(ds, LoaderOptions{BatchSize: 10, Workers: workers}, collectItems)
		var errs []error
		good := 0
		for _, err := range l.Epoch(context.Background(), 0) {
			if err != nil {
				errs = append(errs, err)
				continue
			}
			good++
		}
		var se *SampleError
		if len(errs) != 1 || !errors.As(errs[0], &se) || se.Index != 57 || !errors.Is(errs[0], boom) {
			t.Fatalf("workers=%d: errors %v, want one SampleError for index 57", workers, errs)
		}
		if !strings.Contains(errs[0].Error(), "sample 57: corrupt image") {
			t.Errorf("message %q", errs[0])
		}
		if good != 5 { // batches 0-4 precede the bad one, in order
			t.Errorf("workers=%d: %d good batches before the error, want 5", workers, good)
		}
	}
	// A collate error is reported too.
	l := NewLoader(intDataset(4), LoaderOptions{BatchSize: 2, Workers: 1}, func([]item) (int, error) { return 0, errors.New("ragged") })
	for _, err := range l.Epoch(context.Background(), 0) {
		if err == nil || !strings.Contains(err.Error(), "ragged") {
			t.Errorf("collate error = %v", err)
		}
	}
}

// settles waits until the goroutine count falls back to at most base.
func settles(t *testing.T, base int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > base {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines, want <= %d\n%s", runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestLoaderCancel(t *testing.T) {
	var gets atomic.Int64
	slow := FuncDataset[item]{N: 10000, F: func(i int) (item, error) {
		gets.Add(1)
		time.Sleep(200 * time.Microsecond)
		return item{Index: i}, nil
	}}
	base := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l := NewLoader(slow, LoaderOptions{BatchSize: 4, Workers: 4, Prefetch: 8}, collectItems)
	n := 0
	var last error
	for _, err := range l.Epoch(ctx, 0) {
		if err != nil {
			last = err
			break
		}
		if n++; n == 3 {
			cancel()
		}
	}
	if !errors.Is(last, context.Canceled) {
		t.Errorf("after cancel: err = %v, want context.Canceled", last)
	}
	settles(t, base)
	if g := gets.Load(); g > 200 {
		t.Errorf("workers read %d samples after a cancel at batch 3", g)
	}

	// Breaking out of the loop stops the workers too.
	for range l.Epoch(context.Background(), 1) {
		break
	}
	settles(t, base)

	// A context cancelled before the epoch starts yields only its error.
	ctx2, cancel2 := context.WithCancel(context.Background())
	cancel2()
	for _, w := range []int{0, 2} {
		l := NewLoader(intDataset(10), LoaderOptions{BatchSize: 2, Workers: w}, collectItems)
		for b, err := range l.Epoch(ctx2, 0) {
			if !errors.Is(err, context.Canceled) {
				t.Errorf("workers=%d: got batch %v, err %v", w, b, err)
			}
		}
	}
	settles(t, base)
}

func TestLoaderDropsRejectedSamples(t *testing.T) {
	ds := WithTransform(intDataset(10), TransformFunc[item](func(s *item, _ *rand.Rand) (bool, error) {
		return s.Index%2 == 0 && s.Index < 6, nil
	}))
	l := NewLoader(ds, LoaderOptions{BatchSize: 4, Workers: 2}, collectItems)
	got := fmt.Sprint(runEpoch(t, l.Epoch(context.Background(), 0)))
	// Batches [0..3] → {0,2}; [4..7] → {4}; [8,9] → all dropped, skipped.
	if got != "[[{0 0} {2 0}] [{4 0}]]" {
		t.Errorf("batches = %s", got)
	}
	if _, err := ds.Get(3); err == nil {
		t.Error("Get of a dropped sample: no error")
	}
}

func TestLoaderPanicReachesConsumer(t *testing.T) {
	ds := FuncDataset[item]{N: 20, F: func(i int) (item, error) {
		if i == 13 {
			panic("bug in dataset")
		}
		return item{Index: i}, nil
	}}
	base := runtime.NumGoroutine()
	defer func() {
		if r := recover(); r != "bug in dataset" {
			t.Errorf("recovered %v", r)
		}
		settles(t, base)
	}()
	l := NewLoader(ds, LoaderOptions{BatchSize: 2, Workers: 3}, collectItems)
	for range l.Epoch(context.Background(), 0) {
	}
	t.Error("no panic")
}

func TestSamplers(t *testing.T) {
	r := Random{N: 20, Seed: 5}
	a, b, c := r.Indices(0), r.Indices(0), r.Indices(1)
	if !slices.Equal(a, b) || slices.Equal(a, c) {
		t.Error("Random: same epoch must repeat, next epoch must differ")
	}
	if s := slices.Sorted(slices.Values(a)); !slices.Equal(s, Sequential{N: 20}.Indices(0)) {
		t.Errorf("Random is not a permutation: %v", a)
	}

	w, err := NewWeightedRandom([]float64{1, 0, 3}, 8000, true, 9)
	if err != nil {
		t.Fatal(err)
	}
	cnt := [3]int{}
	for _, i := range w.Indices(0) {
		cnt[i]++
	}
	if cnt[1] != 0 || cnt[0] < 1800 || cnt[0] > 2200 || cnt[0]+cnt[2] != 8000 {
		t.Errorf("weighted counts %v, want about [2000 0 6000]", cnt)
	}
	nr, err := NewWeightedRandom([]float64{5, 0, 1, 1, 100}, 4, false, 2)
	if err != nil {
		t.Fatal(err)
	}
	got := nr.Indices(3)
	if s := slices.Sorted(slices.Values(got)); !slices.Equal(s, []int{0, 2, 3, 4}) {
		t.Errorf("without replacement drew %v, want each of 0,2,3,4 once", got)
	}
	for _, tt := range []struct {
		w []float64
		n int
		r bool
	}{{[]float64{0, 0}, 1, true}, {[]float64{1, -1}, 1, true}, {[]float64{1, 0}, 2, false}, {[]float64{1}, 0, true}} {
		if _, err := NewWeightedRandom(tt.w, tt.n, tt.r, 0); err == nil {
			t.Errorf("NewWeightedRandom(%v, %d, %v): no error", tt.w, tt.n, tt.r)
		}
	}
	// A weighted sampler drives the loader, duplicates and all.
	l := NewLoader(augmented(3), LoaderOptions{BatchSize: 5, Sampler: w, Workers: 2}, collectItems)
	if n := len(runEpoch(t, l.Epoch(context.Background(), 0))); n != 1600 {
		t.Errorf("%d batches, want 1600", n)
	}
}

type countStream struct{ n int }

func (s countStream) Samples(ctx context.Context, epoch int) iter.Seq2[item, error] {
	return func(yield func(item, error) bool) {
		for i := range s.n {
			if ctx.Err() != nil || !yield(item{Index: epoch*100 + i}, nil) {
				return
			}
		}
	}
}

func TestIterableLoader(t *testing.T) {
	l := NewIterableLoader(countStream{5}, LoaderOptions{BatchSize: 2}, collectItems)
	if got := fmt.Sprint(runEpoch(t, l.Epoch(context.Background(), 1))); got != "[[{100 0} {101 0}] [{102 0} {103 0}] [{104 0}]]" {
		t.Errorf("batches = %s", got)
	}
	l = NewIterableLoader(countStream{5}, LoaderOptions{BatchSize: 2, DropLast: true}, collectItems)
	if n := len(runEpoch(t, l.Epoch(context.Background(), 0))); n != 2 {
		t.Errorf("drop_last: %d batches, want 2", n)
	}
}

type sample struct {
	Img   Image
	Label int
}

func TestComposeAndOnImage(t *testing.T) {
	calls := 0
	count := TransformFunc[sample](func(*sample, *rand.Rand) (bool, error) { calls++; return true, nil })
	tr := Compose(
		OnImage(func(s *sample) *Image { return &s.Img }, Transform[Image](CenterCropImage{W: 2, H: 2})),
		count,
		TransformFunc[sample](func(s *sample, _ *rand.Rand) (bool, error) { return s.Label != 3, nil }),
		count,
	)
	s := sample{Img: *img3(4, 4), Label: 1}
	keep, err := tr.Apply(&s, rand.New(rand.NewPCG(1, 1)))
	if err != nil || !keep || s.Img.W != 2 || s.Img.At(0, 0, 0) != 11 || calls != 2 {
		t.Errorf("keep=%v err=%v size %dx%d calls %d", keep, err, s.Img.W, s.Img.H, calls)
	}
	s = sample{Img: *img3(4, 4), Label: 3}
	if keep, _ := tr.Apply(&s, nil); keep || calls != 3 {
		t.Errorf("a dropped sample must stop the chain: keep=%v calls=%d", keep, calls)
	}
	s = sample{Img: *img3(1, 1)}
	_, err = tr.Apply(&s, nil)
	if err == nil || !strings.Contains(err.Error(), "transform 0") || !strings.Contains(err.Error(), "does not fit") {
		t.Errorf("err = %v", err)
	}
}
