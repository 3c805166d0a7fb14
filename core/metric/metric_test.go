package metric

import (
	"math"
	"testing"
)

func TestTopK(t *testing.T) {
	m := NewTopK(1, 2)
	// 3 samples, 3 classes; worked by hand:
	// s0: true 0, scores 0.7 0.2 0.1 -> rank 0 (top1, top2)
	// s1: true 2, scores 0.5 0.1 0.4 -> rank 1 (top2 only)
	// s2: true 1, scores 0.3 0.3 0.4 -> class 0 ties and has lower index, class 2 beats: rank 2 (neither)
	m.Update([]float32{0.7, 0.2, 0.1, 0.5, 0.1, 0.4, 0.3, 0.3, 0.4}, 3, []int{0, 2, 1})
	r := m.Result()
	if r.Values["top1"] != 1.0/3 || r.Values["top2"] != 2.0/3 || r.Count != 3 || r.Main != "top1" {
		t.Fatalf("got %+v", r)
	}
	if r.String() != "top1=0.33333 top2=0.66667" {
		t.Fatalf("String() = %q", r.String())
	}
	m.Reset()
	if m.Result().Count != 0 {
		t.Fatal("Reset kept samples")
	}
}

// A diverged model's NaN scores must not count as correct: NaN ranks above
// numbers (torch.topk), ties between NaNs go to the lower class index.
func TestTopKWithNaN(t *testing.T) {
	nan := float32(math.NaN())
	m := NewTopK(1, 2)
	// s0: true 1 is NaN, class 0 NaN too and lower → rank 1 (top2 only)
	// s1: true 0 is 0.9 but class 2 is NaN → rank 1 (top2 only)
	// s2: true 2 is NaN, the rest numbers → rank 0
	// s3: all NaN, true 2 → rank 2 (neither)
	m.Update([]float32{nan, nan, 0.1, 0.9, 0.05, nan, 0.5, 0.4, nan, nan, nan, nan}, 3, []int{1, 0, 2, 2})
	r := m.Result()
	if r.Values["top1"] != 0.25 || r.Values["top2"] != 0.75 {
		t.Fatalf("got %+v, want top1 0.25, top2 0.75", r.Values)
	}
}
