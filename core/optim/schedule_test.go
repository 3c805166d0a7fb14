package optim

import (
	"math"
	"testing"

	"paddle/core/ag"
	"paddle/core/nn"
	"paddle/core/tensor"
)

func TestSchedulesMatchTorch(t *testing.T) {
	ref := loadRef(t)
	oc := OneCycle{MaxLR: ref.Schedules.OneCycle.MaxLR, TotalSteps: ref.Schedules.OneCycle.TotalSteps}
	for i, want := range ref.Schedules.OneCycle.LR {
		if got := oc.LR(i); !near(got, want, 1e-9) {
			t.Fatalf("OneCycle.LR(%d) = %v, torch %v", i, got, want)
		}
	}
	c := ref.Schedules.Cosine
	cos := Cosine{LearningRate: c.LR0, TMax: c.TMax, EtaMin: c.EtaMin}
	for i, want := range c.LR {
		if got := cos.LR(i); !near(got, want, 1e-9) {
			t.Fatalf("Cosine.LR(%d) = %v, torch %v", i, got, want)
		}
	}
}

func TestSchedulesByHand(t *testing.T) {
	pw, err := NewPiecewise([]int{10, 20}, []float64{0.1, 0.01, 0.001})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		s    Schedule
		step int
		want float64
	}{
		{"step-0", StepDecay{0.1, 3, 0.5}, 0, 0.1},
		{"step-2", StepDecay{0.1, 3, 0.5}, 2, 0.1},
		{"step-7", StepDecay{0.1, 3, 0.5}, 7, 0.025}, // 0.1·0.5²
		{"piecewise-9", pw, 9, 0.1},
		{"piecewise-10", pw, 10, 0.01},
		{"piecewise-25", pw, 25, 0.001},
		{"cosine-half", Cosine{1, 10, 0}, 5, 0.5},
		{"cosine-after", Cosine{1, 10, 0.1}, 30, 0.1},
		{"poly-quarter", Polynomial{1, 4, 0.2, 2}, 1, 0.2 + 0.8*0.5625}, // (1-1/4)² = 0.5625
		{"poly-end", Polynomial{1, 4, 0.2, 2}, 9, 0.2},
		{"warmup-0", LinearWarmup{Constant(1), 4, 0, 1}, 0, 0},
		{"warmup-1", LinearWarmup{Constant(1), 4, 0, 1}, 1, 0.25},
		{"warmup-shifts", LinearWarmup{StepDecay{1, 2, 0.1}, 4, 0, 1}, 6, 0.1}, // inner step 2
		{"per-epoch", PerEpoch{StepDecay{1, 1, 0.5}, 10}, 25, 0.25},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.s.LR(tt.step); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("LR(%d) = %v, want %v", tt.step, got, tt.want)
			}
		})
	}
	oc := OneCycle{MaxLR: 1, TotalSteps: 11, EndLR: 0.01}
	if got := oc.LR(10); math.Abs(got-0.01) > 1e-12 {
		t.Errorf("OneCycle with EndLR ends at %v, want 0.01", got)
	}
	if got := oc.LR(0); math.Abs(got-0.04) > 1e-12 { // starts at MaxLR/25
		t.Errorf("OneCycle LR(0) = %v, want 0.04", got)
	}
	if _, err := NewPiecewise([]int{5}, []float64{1}); err == nil {
		t.Error("NewPiecewise accepted 1 value for 1 boundary")
	}
}

func TestBuildSchedule(t *testing.T) {
	// PaddleOCR: Cosine over 10 epochs of 100 steps with 2 warm-up epochs
	s, err := BuildSchedule(LRConfig{Name: "Cosine", LearningRate: 0.001, WarmupEpoch: 2}, 10, 100)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.LR(100); math.Abs(got-0.0005) > 1e-12 {
		t.Errorf("warm-up midpoint %v, want 0.0005", got)
	}
	if got := s.LR(200); math.Abs(got-0.001) > 1e-12 {
		t.Errorf("end of warm-up %v, want 0.001", got)
	}
	if got := s.LR(200 + 500); math.Abs(got-0.0005) > 1e-12 {
		t.Errorf("cosine midpoint %v, want 0.0005", got)
	}
	p, err := BuildSchedule(LRConfig{Name: "Piecewise", DecayEpochs: []int{3}, Values: []float64{0.1, 0.01}}, 5, 10)
	if err != nil {
		t.Fatal(err)
	}
	if p.LR(29) != 0.1 || p.LR(30) != 0.01 {
		t.Errorf("piecewise boundary at epoch 3: %v %v", p.LR(29), p.LR(30))
	}
	if _, err := BuildSchedule(LRConfig{Name: "Bogus"}, 1, 1); err == nil {
		t.Error("unknown schedule name accepted")
	}
}

func TestEMA(t *testing.T) {
	ps := []nn.Param{{Name: "w", V: ag.Param(tensor.FromSlice([]float64{0, 10}, 2))}}
	e, err := NewEMA(ps, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	ps[0].V.T.F64()[0] = 1
	d := 0.9 * (1 - math.Exp(-1.0/2000))
	e.Update()
	if got, want := e.Shadow()["w"].F64()[0], (1 - d); math.Abs(got-want) > 1e-12 {
		t.Fatalf("shadow %v, want %v", got, want)
	}
	st := e.State()
	saved := e.CopyTo()
	if ps[0].V.T.F64()[0] != e.Shadow()["w"].F64()[0] {
		t.Error("CopyTo did not write the average")
	}
	e.Restore(saved)
	if ps[0].V.T.F64()[0] != 1 {
		t.Error("Restore did not put the weights back")
	}
	e2, _ := NewEMA(ps, 0.9)
	if err := e2.LoadState(st); err != nil {
		t.Fatal(err)
	}
	e.Update()
	e2.Update()
	if !tensor.AllClose(e.Shadow()["w"], e2.Shadow()["w"], 0, 0) {
		t.Error("EMA state did not round-trip")
	}
}

func TestEMACopiesNonFloatBuffers(t *testing.T) {
	bn, _ := nn.NewBatchNorm1D(nn.BatchNormOptions{NumFeatures: 2})
	ps := append(bn.Params(), bn.Buffers()...)
	e, err := NewEMA(ps, 0.99)
	if err != nil {
		t.Fatal(err)
	}
	bn.Forward(ag.Const(tensor.FromSlice([]float32{1, 2, 3, 5}, 2, 2)), true)
	e.Update()
	sh := e.Shadow()
	if sh["num_batches_tracked"].Item() != 1 {
		t.Errorf("int buffer shadow %v, want a copy (1)", sh["num_batches_tracked"].Item())
	}
	d := 0.99 * (1 - math.Exp(-1.0/2000))
	// running_mean moved from 0 to 0.1·(2, 3.5); the shadow moves (1-d) of that
	if got, want := sh["running_mean"].F32()[0], float32((1-d)*0.2); math.Abs(float64(got-want)) > 1e-7 {
		t.Errorf("running_mean shadow %v, want %v", got, want)
	}
}
