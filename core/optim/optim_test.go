package optim

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"paddle/core/ag"
	"paddle/core/nn"
	"paddle/core/tensor"
)

type torchRef struct {
	A, B  []float64
	P0    []float64
	Cases map[string]struct {
		Options    map[string]any
		Trajectory [][]float64
	}
	Clip struct {
		MaxNorm float64 `json:"max_norm"`
		Norm    float64
		G1, G2  []float64
	}
	Schedules struct {
		OneCycle struct {
			MaxLR      float64 `json:"max_lr"`
			TotalSteps int     `json:"total_steps"`
			LR         []float64
		}
		Cosine struct {
			LR0    float64 `json:"lr0"`
			TMax   int     `json:"t_max"`
			EtaMin float64 `json:"eta_min"`
			LR     []float64
		}
	}
}

func loadRef(t *testing.T) torchRef {
	t.Helper()
	b, err := os.ReadFile("testdata/optim_torch.json")
	if err != nil {
		t.Fatal(err)
	}
	var r torchRef
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

func param2(vals ...float64) []nn.Param {
	return []nn.Param{{Name: "w", V: ag.Param(tensor.FromSlice(append([]float64(nil), vals...), len(vals)))}}
}

// setGrad sets the gradient a·p + b (the field the reference script uses).
func setGrad(ps []nn.Param, a, b []float64) {
	p := ps[0].V.T.F64()
	g := make([]float64, len(p))
	for i := range p {
		g[i] = a[i]*p[i] + b[i]
	}
	ps[0].V.Grad = tensor.FromSlice(g, len(g))
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol*(1+math.Abs(b)) }

func newOpt(t *testing.T, name string, ps []nn.Param) Optimizer {
	t.Helper()
	var o Optimizer
	var err error
	switch name {
	case "sgd":
		o, err = NewSGD(ps, SGDOptions{LR: 0.1})
	case "sgd_momentum":
		o, err = NewSGD(ps, SGDOptions{LR: 0.1, Momentum: 0.9, Dampening: 0.1, WeightDecay: 0.01})
	case "sgd_nesterov":
		o, err = NewSGD(ps, SGDOptions{LR: 0.1, Momentum: 0.9, Nesterov: true, WeightDecay: 0.01})
	case "adam":
		o, err = NewAdam(ps, AdamOptions{LR: 0.1, Beta1: 0.8, Beta2: 0.95, Eps: 1e-6, WeightDecay: 0.1})
	case "adamw":
		o, err = NewAdamW(ps, AdamOptions{LR: 0.1, WeightDecay: 0.1})
	case "rmsprop":
		o, err = NewRMSProp(ps, RMSPropOptions{LR: 0.01, Alpha: 0.9})
	case "rmsprop_centered":
		o, err = NewRMSProp(ps, RMSPropOptions{LR: 0.01, Alpha: 0.9, Eps: 1e-6, Momentum: 0.5, Centered: true, WeightDecay: 0.1})
	default:
		t.Fatalf("no optimizer %q", name)
	}
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestOptimizersMatchTorch(t *testing.T) {
	ref := loadRef(t)
	if len(ref.Cases) != 7 {
		t.Fatalf("reference has %d cases, want 7", len(ref.Cases))
	}
	for name, c := range ref.Cases {
		t.Run(name, func(t *testing.T) {
			ps := param2(ref.P0...)
			o := newOpt(t, name, ps)
			for step, want := range c.Trajectory {
				setGrad(ps, ref.A, ref.B)
				o.Step()
				got := ps[0].V.T.F64()
				for i := range want {
					if !near(got[i], want[i], 1e-12) {
						t.Fatalf("step %d: p = %v, torch %v", step+1, got, want)
					}
				}
			}
		})
	}
}

// Two steps worked by hand, p0 = (1, -2), the gradient fixed at g = (0.5, -1):
//
//	SGD lr=0.1 momentum=0.9: buf1 = g, p1 = p0 - 0.1·g = (0.95, -1.9);
//	buf2 = 0.9·g + g = (0.95, -1.9), p2 = p1 - 0.1·buf2 = (0.855, -1.71).
//	Adam lr=0.1: m1 = 0.1·g, v1 = 0.001·g², m̂ = g, v̂ = g², p1 = p0 - 0.1·g/|g| = (0.9, -1.9);
//	m2 = 0.19·g, v2 = 0.001999·g², m̂ = g, v̂ = g², p2 = (0.8, -1.8) (to ~1e-8 from eps).
//	SGD lr=0.1 momentum=0.9 Nesterov: buf1 = g, p1 = p0 - 0.1·(g + 0.9·g) = (0.905, -1.81);
//	buf2 = 1.9·g, p2 = p1 - 0.1·(g + 0.9·1.9·g) = p1 - 0.271·g = (0.7695, -1.539).
//	SGD lr=0.1 L2 weight decay 0.1: g1 = g + 0.1·p0 = (0.6, -1.2), p1 = (0.94, -1.88);
//	g2 = g + 0.1·p1 = (0.594, -1.188), p2 = (0.8806, -1.7612).
//	AdamW lr=0.1 wd=0.1: p ← 0.99·p, then the Adam step above (-0.1·sign g):
//	p1 = (0.89, -1.88), p2 = (0.89·0.99 - 0.1, -1.88·0.99 + 0.1) = (0.7811, -1.7612).
//	RMSProp lr=0.01 α=0.9: s1 = 0.1·g², p1 = p0 - 0.01·sign(g)/√0.1 = p0 ∓ 0.0316227766;
//	s2 = 0.19·g², p2 = p1 ∓ 0.01/√0.19 = p1 ∓ 0.0229415734.
func TestTwoStepsByHand(t *testing.T) {
	r1, r2 := 0.01/math.Sqrt(0.1), 0.01/math.Sqrt(0.19)
	g := tensor.FromSlice([]float64{0.5, -1}, 2)
	tests := []struct {
		name string
		mk   func(ps []nn.Param) (Optimizer, error)
		want [2][]float64
	}{
		{"sgd-momentum", func(ps []nn.Param) (Optimizer, error) { return NewSGD(ps, SGDOptions{LR: 0.1, Momentum: 0.9}) },
			[2][]float64{{0.95, -1.9}, {0.855, -1.71}}},
		{"adam", func(ps []nn.Param) (Optimizer, error) { return NewAdam(ps, AdamOptions{LR: 0.1}) },
			[2][]float64{{0.9, -1.9}, {0.8, -1.8}}},
		{"sgd-nesterov", func(ps []nn.Param) (Optimizer, error) {
			return NewSGD(ps, SGDOptions{LR: 0.1, Momentum: 0.9, Nesterov: true})
		}, [2][]float64{{0.905, -1.81}, {0.7695, -1.539}}},
		{"sgd-l2", func(ps []nn.Param) (Optimizer, error) { return NewSGD(ps, SGDOptions{LR: 0.1, WeightDecay: 0.1}) },
			[2][]float64{{0.94, -1.88}, {0.8806, -1.7612}}},
		{"adamw", func(ps []nn.Param) (Optimizer, error) { return NewAdamW(ps, AdamOptions{LR: 0.1, WeightDecay: 0.1}) },
			[2][]float64{{0.89, -1.88}, {0.7811, -1.7612}}},
		{"rmsprop", func(ps []nn.Param) (Optimizer, error) { return NewRMSProp(ps, RMSPropOptions{LR: 0.01, Alpha: 0.9}) },
			[2][]float64{{1 - r1, -2 + r1}, {1 - r1 - r2, -2 + r1 + r2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps := param2(1, -2)
			o, err := tt.mk(ps)
			if err != nil {
				t.Fatal(err)
			}
			for s := range 2 {
				ps[0].V.Grad = g.Clone()
				o.Step()
				got := ps[0].V.T.F64()
				for i := range got {
					if !near(got[i], tt.want[s][i], 1e-7) {
						t.Fatalf("step %d: %v, want %v", s+1, got, tt.want[s])
					}
				}
			}
		})
	}
}

func TestStateRoundTrip(t *testing.T) {
	ref := loadRef(t)
	for name := range ref.Cases {
		t.Run(name, func(t *testing.T) {
			ps := param2(ref.P0...)
			o := newOpt(t, name, ps)
			setGrad(ps, ref.A, ref.B)
			o.Step()
			st := o.State()
			saved := ps[0].V.T.Clone()
			setGrad(ps, ref.A, ref.B)
			o.Step()
			want := ps[0].V.T.Clone()

			ps2 := param2(saved.F64()...)
			o2 := newOpt(t, name, ps2)
			if err := o2.LoadState(st); err != nil {
				t.Fatal(err)
			}
			setGrad(ps2, ref.A, ref.B)
			o2.Step()
			if !tensor.AllClose(ps2[0].V.T, want, 0, 0) {
				t.Fatalf("after reload %v, want %v", ps2[0].V.T, want)
			}
		})
	}
	o := newOpt(t, "adam", param2(1, 2))
	if err := o.LoadState(map[string]*tensor.Tensor{"v.exp_avg": tensor.New(tensor.Float64, 2)}); err == nil {
		t.Error("LoadState accepted a key of an unknown parameter")
	}
}

func TestSkipsParamsWithoutGrad(t *testing.T) {
	ps := []nn.Param{
		{Name: "a", V: ag.Param(tensor.FromSlice([]float32{1, 2}, 2))},
		{Name: "b", V: ag.Param(tensor.FromSlice([]float32{3, 4}, 2))},
	}
	o, _ := NewAdam(ps, AdamOptions{LR: 0.5})
	ps[0].V.Grad = tensor.FromSlice([]float32{1, 1}, 2)
	o.Step()
	if got := ps[1].V.T.F32(); got[0] != 3 || got[1] != 4 {
		t.Errorf("param without grad changed: %v", got)
	}
	if got := ps[0].V.T.F32(); math.Abs(float64(got[0])-0.5) > 1e-6 {
		t.Errorf("param with grad: %v, want 0.5, 1.5", got)
	}
	if _, ok := o.State()["b.exp_avg"]; ok {
		t.Error("state created for a param without grad")
	}
}

func TestClipGradNorm(t *testing.T) {
	ref := loadRef(t)
	ps := []nn.Param{
		{Name: "a", V: ag.Param(tensor.New(tensor.Float32, 3))},
		{Name: "b", V: ag.Param(tensor.New(tensor.Float32, 2, 2))},
		{Name: "c", V: ag.Param(tensor.New(tensor.Float32, 2))}, // no grad: skipped
	}
	ps[0].V.Grad = tensor.FromSlice([]float32{3, -4, 1}, 3)
	ps[1].V.Grad = tensor.FromSlice([]float32{2, 0.5, -1, 2.5}, 2, 2)
	norm := ClipGradNorm(ps, ref.Clip.MaxNorm)
	if !near(norm, ref.Clip.Norm, 1e-6) {
		t.Errorf("norm %v, torch %v", norm, ref.Clip.Norm)
	}
	for i, want := range [][]float64{ref.Clip.G1, ref.Clip.G2} {
		got := ps[i].V.Grad.Float64s()
		for j := range want {
			if !near(got[j], want[j], 1e-6) {
				t.Fatalf("grad %d = %v, torch %v", i, got, want)
			}
		}
	}
	// below the limit nothing changes
	before := ps[0].V.Grad.Clone()
	ClipGradNorm(ps, 100)
	if !tensor.AllClose(before, ps[0].V.Grad, 0, 0) {
		t.Error("clipping changed gradients under the limit")
	}
}
