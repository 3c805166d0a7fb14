package op

import (
	"fmt"
	"math"

	"paddle/core/tensor"
)

// ONNX LSTM and GRU. The sequence length is dynamic, so they cannot be
// unrolled into primitives at import time; each is one op (forward only: a recurrent model imported for fine-tuning
// needs the nn layers instead) whose kernel follows the ONNX equations:
// directions forward/reverse/bidirectional, optional bias, sequence_lens,
// initial states, layout 0 (seq, batch, ·) and 1 (batch, seq, ·), clip,
// input_forget (LSTM) and linear_before_reset (GRU). Peepholes and
// non-default activations are not supported.
//
// Inputs are X, W, R followed by the optional ones named in attribute
// "present" (letters B S H C: bias, sequence_lens, initial_h, initial_c).

var (
	_ = define(&Def{Name: "onnx_lstm", Export: exportRNN("LSTM"), Arity: -1, Infer: rnnInfer(4, 3), Ref: rnnRef(true)})
	_ = define(&Def{Name: "onnx_gru", Export: exportRNN("GRU"), Arity: -1, Infer: rnnInfer(3, 2), Ref: rnnRef(false)})
)

// rnnDims are the sizes of one call: T steps, B batch, I inputs, H hidden, D directions.
type rnnDims struct{ T, B, I, H, D int }

func rnnShape(in []Meta, a Attrs, gates int) (rnnDims, error) {
	x, w := in[0].Shape, in[1].Shape
	if len(x) != 3 || len(w) != 3 {
		return rnnDims{}, fmt.Errorf("want X (seq, batch, input) and W (dirs, %d·hidden, input), got %v and %v", gates, x, w)
	}
	d := rnnDims{T: x[0], B: x[1], I: x[2], D: w[0], H: a.Int("hidden_size", w[1]/gates)}
	if a.Int("layout", 0) == 1 {
		d.T, d.B = x[1], x[0]
	}
	if w[1] != gates*d.H || w[2] != d.I || !in[2].Shape.Equal(tensor.Shape{d.D, gates * d.H, d.H}) {
		return d, fmt.Errorf("W %v and R %v do not match hidden size %d and input size %d", w, in[2].Shape, d.H, d.I)
	}
	if dirs := rnnDirs(a); dirs != d.D {
		return d, fmt.Errorf("direction %q wants %d directions, W has %d", a.Str("direction", "forward"), dirs, d.D)
	}
	return d, nil
}

func rnnDirs(a Attrs) int {
	if a.Str("direction", "forward") == "bidirectional" {
		return 2
	}
	return 1
}

func rnnInfer(gates, nout int) func(in []Meta, a Attrs) ([]Meta, error) {
	return func(in []Meta, a Attrs) ([]Meta, error) {
		if len(in) < 3 {
			return nil, fmt.Errorf("want inputs X, W, R, got %d", len(in))
		}
		if !in[0].DType.IsFloat() {
			return nil, fmt.Errorf("want a float X, got %v", in[0].DType)
		}
		d, err := rnnShape(in, a, gates)
		if err != nil {
			return nil, err
		}
		y := tensor.Shape{d.T, d.D, d.B, d.H}
		st := tensor.Shape{d.D, d.B, d.H}
		if a.Int("layout", 0) == 1 {
			y, st = tensor.Shape{d.B, d.T, d.D, d.H}, tensor.Shape{d.B, d.D, d.H}
		}
		out := []Meta{{DType: in[0].DType, Shape: y}}
		for range nout - 1 {
			out = append(out, Meta{DType: in[0].DType, Shape: st})
		}
		return out, nil
	}
}

// rnnArgs are a call's inputs as float64 slices in layout 0.
type rnnArgs struct {
	x, w, r, b, h0, c0 []float64
	lens               []int
}

func rnnRef(lstm bool) func(out, in []*T, a Attrs) {
	gates := 3
	if lstm {
		gates = 4
	}
	return func(out, in []*T, a Attrs) {
		metas := []Meta{MetaOf(in[0]), MetaOf(in[1]), MetaOf(in[2])}
		d, _ := rnnShape(metas, a, gates)
		layout1 := a.Int("layout", 0) == 1
		var g rnnArgs
		x := in[0]
		if layout1 {
			x = x.Transpose(1, 0, 2).Contiguous()
		}
		g.x, g.w, g.r = x.Float64s(), in[1].Float64s(), in[2].Float64s()
		k := 3
		for _, p := range a.Str("present", "") {
			t := in[k]
			k++
			switch p {
			case 'B':
				g.b = t.Float64s()
			case 'S':
				for _, v := range t.Float64s() {
					g.lens = append(g.lens, int(v))
				}
			case 'H', 'C':
				if layout1 {
					t = t.Transpose(1, 0, 2).Contiguous()
				}
				if p == 'H' {
					g.h0 = t.Float64s()
				} else {
					g.c0 = t.Float64s()
				}
			}
		}
		y := make([]float64, d.T*d.D*d.B*d.H)
		hT := make([]float64, d.D*d.B*d.H)
		cT := make([]float64, d.D*d.B*d.H)
		for dir := range d.D {
			reverse := a.Str("direction", "forward") == "reverse" || dir == 1
			rnnDirection(lstm, d, dir, reverse, g, a, y, hT, cT)
		}
		outs := [][]float64{y, hT, cT}
		for i, o := range out {
			t := tensor.FromSlice(outs[i], o.Shape()...)
			if layout1 {
				if i == 0 { // (T, D, B, H) → (B, T, D, H)
					t = tensor.FromSlice(outs[i], d.T, d.D, d.B, d.H).Transpose(2, 0, 1, 3)
				} else {
					t = tensor.FromSlice(outs[i], d.D, d.B, d.H).Transpose(1, 0, 2)
				}
			}
			o.CopyFrom(t.Cast(o.DType()))
		}
	}
}

func sigm(v float64) float64 { return 1 / (1 + math.Exp(-v)) }

// rnnDirection runs one direction over every batch entry.
func rnnDirection(lstm bool, d rnnDims, dir int, reverse bool, g rnnArgs, a Attrs, y, hT, cT []float64) {
	gates := 3
	if lstm {
		gates = 4
	}
	G := gates * d.H
	w := g.w[dir*G*d.I : (dir+1)*G*d.I]
	r := g.r[dir*G*d.H : (dir+1)*G*d.H]
	var wb, rb []float64
	if g.b != nil {
		wb, rb = g.b[dir*2*G:dir*2*G+G], g.b[dir*2*G+G:(dir+1)*2*G]
	}
	clip := a.Float("clip", 0)
	inputForget := a.Int("input_forget", 0) != 0
	lbr := a.Int("linear_before_reset", 0) != 0
	xg := make([]float64, G) // x·Wᵀ + Wb
	hg := make([]float64, G) // h·Rᵀ + Rb
	h := make([]float64, d.H)
	c := make([]float64, d.H)
	for b := range d.B {
		clear(h)
		clear(c)
		if g.h0 != nil {
			copy(h, g.h0[(dir*d.B+b)*d.H:])
		}
		if g.c0 != nil {
			copy(c, g.c0[(dir*d.B+b)*d.H:])
		}
		n := d.T
		if g.lens != nil {
			n = min(g.lens[b], d.T)
		}
		for s := range n {
			t := s
			if reverse {
				t = n - 1 - s
			}
			xt := g.x[(t*d.B+b)*d.I : (t*d.B+b+1)*d.I]
			for j := range G {
				acc, acc2 := 0.0, 0.0
				for i, v := range xt {
					acc += v * w[j*d.I+i]
				}
				for i, v := range h {
					acc2 += v * r[j*d.H+i]
				}
				if wb != nil {
					acc += wb[j]
					acc2 += rb[j]
				}
				xg[j], hg[j] = acc, acc2
			}
			cl := func(v float64) float64 {
				if clip > 0 {
					return max(-clip, min(clip, v))
				}
				return v
			}
			H := d.H
			if lstm { // gate order i, o, f, c
				for j := range H {
					ig := sigm(cl(xg[j] + hg[j]))
					og := sigm(cl(xg[H+j] + hg[H+j]))
					fg := sigm(cl(xg[2*H+j] + hg[2*H+j]))
					if inputForget {
						fg = 1 - ig
					}
					cc := math.Tanh(cl(xg[3*H+j] + hg[3*H+j]))
					c[j] = fg*c[j] + ig*cc
					h[j] = og * math.Tanh(c[j])
				}
			} else { // gate order z, r, h
				var hr []float64
				if !lbr {
					// (r ⊙ h)·Rhᵀ + Rbh needs r first
					rv := make([]float64, H)
					for j := range H {
						rv[j] = sigm(cl(xg[H+j]+hg[H+j])) * h[j]
					}
					hr = make([]float64, H)
					for j := range H {
						acc := 0.0
						for i, v := range rv {
							acc += v * r[(2*H+j)*d.H+i]
						}
						if rb != nil {
							acc += rb[2*H+j]
						}
						hr[j] = acc
					}
				}
				nh := make([]float64, H)
				for j := range H {
					z := sigm(cl(xg[j] + hg[j]))
					rg := sigm(cl(xg[H+j] + hg[H+j]))
					var hh float64
					if lbr {
						hh = math.Tanh(cl(xg[2*H+j] + rg*hg[2*H+j]))
					} else {
						hh = math.Tanh(cl(xg[2*H+j] + hr[j]))
					}
					nh[j] = (1-z)*hh + z*h[j]
				}
				copy(h, nh)
			}
			copy(y[((t*d.D+dir)*d.B+b)*d.H:], h)
		}
		copy(hT[(dir*d.B+b)*d.H:], h)
		copy(cT[(dir*d.B+b)*d.H:], c)
	}
}
