package op

import (
	"fmt"
	"math"
	"unsafe"

	"paddle/core/scratch"
	"paddle/core/tensor"
)

// Quantized arithmetic shared by the int8 ops (qgemm, qconv2d): their
// attributes and the epilogue that turns an int32 accumulator into the
// output.
//
// A quantized value q stands for the real number scale·(q - zero). The int8
// ops take an activation x (uint8 or int8, one scale and zero point), a
// weight w (int8 or uint8, one scale and zero point per output channel, or
// one for all) and an optional bias (int32 in units of x_scale·w_scale, as
// ONNX's QLinearConv; or float32, added after dequantizing); they
// accumulate Σ (x - x_zero)(w - w_zero) exactly in int32, then
//
//	v = x_scale·w_scale[c]·acc + float bias[c];  v = act(v)
//	v = v·post_mul + post_add   (when given: a scalar affine after the activation)
//	out = v (float32), or clamp(roundEven(v · (1/y_scale)) + y_zero) (uint8/int8),
//
// or the accumulator itself when out is int32 (ONNX ConvInteger).

// quantParams are the decoded attributes of a quantized op.
type quantParams struct {
	xScale float64
	xZero  int
	wScale []float64 // 1 or per output channel
	wZero  []int     // 1 or per output channel
	out    tensor.DType
	yScale float64
	yZero  int
	act    string  // "", "relu", "clip", "hardswish", "sigmoid"
	lo, hi float64 // clip's bounds
	// hasMul/hasAdd are set when v·postMul, then + postAdd (each step
	// rounded in float32) follow the activation: PP-LCNetV3's learnable
	// affine blocks after hardswish.
	hasMul, hasAdd   bool
	postMul, postAdd float32
}

// QuantAttrs builds the quantization attributes of qgemm and qconv2d:
// the activation's scale and zero point, the weight's per-channel (or
// single) scales and zero points, and the output dtype (float32, uint8,
// int8 or int32) with, for uint8/int8, its scale and zero point.
func QuantAttrs(xScale float64, xZero int, wScale []float64, wZero []int, out tensor.DType, yScale float64, yZero int) Attrs {
	return Attrs{"x_scale": xScale, "x_zero": xZero, "w_scale": append([]float64(nil), wScale...),
		"w_zero": append([]int(nil), wZero...), "out": out.String(), "y_scale": yScale, "y_zero": yZero}
}

func parseQuant(a Attrs, channels int) (quantParams, error) {
	q := quantParams{xScale: a.Float("x_scale", 1), xZero: a.Int("x_zero", 0),
		wScale: a.Floats("w_scale", []float64{1}), wZero: a.Ints("w_zero", []int{0}),
		yScale: a.Float("y_scale", 1), yZero: a.Int("y_zero", 0), act: a.Str("act", ""),
		lo: a.Float("act_min", math.Inf(-1)), hi: a.Float("act_max", math.Inf(1))}
	_, q.hasMul = a["post_mul"]
	_, q.hasAdd = a["post_add"]
	q.postMul, q.postAdd = float32(a.Float("post_mul", 1)), float32(a.Float("post_add", 0))
	var err error
	if q.out, err = tensor.ParseDType(a.Str("out", "float32")); err != nil {
		return q, fmt.Errorf("attribute out: %w", err)
	}
	switch q.out {
	case tensor.Float32, tensor.Uint8, tensor.Int8, tensor.Int32:
	default:
		return q, fmt.Errorf("attribute out = %v: want float32, uint8, int8 or int32", q.out)
	}
	if len(q.wScale) != 1 && len(q.wScale) != channels {
		return q, fmt.Errorf("w_scale has %d values: want 1 or one per output channel (%d)", len(q.wScale), channels)
	}
	if len(q.wZero) != 1 && len(q.wZero) != channels {
		return q, fmt.Errorf("w_zero has %d values: want 1 or one per output channel (%d)", len(q.wZero), channels)
	}
	if !(q.xScale > 0) || !(q.yScale > 0) {
		return q, fmt.Errorf("scales must be positive (x_scale %g, y_scale %g)", q.xScale, q.yScale)
	}
	for _, s := range q.wScale {
		if !(s > 0) {
			return q, fmt.Errorf("w_scale %v: scales must be positive", q.wScale)
		}
	}
	switch q.act {
	case "", "relu", "clip", "hardswish", "sigmoid":
	default:
		return q, fmt.Errorf("act %q: want relu, clip, hardswish, sigmoid or none", q.act)
	}
	return q, nil
}

// checkQuantInputs checks x and w's dtypes and an optional bias of the
// given channels; it returns the bias dtype (Invalid when absent).
func checkQuantInputs(in []Meta, channels int) (tensor.DType, error) {
	if d := in[0].DType; d != tensor.Uint8 && d != tensor.Int8 {
		return 0, fmt.Errorf("input x is %v: want uint8 or int8", d)
	}
	if d := in[1].DType; d != tensor.Uint8 && d != tensor.Int8 {
		return 0, fmt.Errorf("weight is %v: want int8 or uint8", d)
	}
	if len(in) < 3 {
		return tensor.Invalid, nil
	}
	b := in[2]
	if (b.DType != tensor.Int32 && b.DType != tensor.Float32) || len(b.Shape) != 1 || b.Shape[0] != channels {
		return 0, fmt.Errorf("bias %v %v: want int32 or float32 of shape [%d]", b.DType, b.Shape, channels)
	}
	return b.DType, nil
}

// zeroTensor is a zero point as an int32 tensor for matmul_integer: one
// value, or one per channel.
func zeroTensor(z []int) *T {
	v := make([]int32, len(z))
	for i, x := range z {
		v[i] = int32(x)
	}
	return tensor.FromSlice(v, len(v))
}

// quantEpilogue writes rows×cols outputs from acc (rows×cols, ld cols) into
// dst (row r at dst[off + r·ldd]), the channel of element (r, j) being r
// when perRow, else j.
type quantEpilogue struct {
	q      quantParams
	mul    []float32 // x_scale·w_scale per channel
	ibias  []int32
	fbias  []float32
	perRow bool
	post   [2]float32 // post_mul, post_add: rows of one for binRow
}

func newQuantEpilogue(q quantParams, channels int, bias *T, perRow bool) *quantEpilogue {
	e := &quantEpilogue{q: q, perRow: perRow, mul: make([]float32, channels), post: [2]float32{q.postMul, q.postAdd}}
	for c := range channels {
		e.mul[c] = float32(q.xScale * q.wScale[min(c, len(q.wScale)-1)])
	}
	if bias != nil {
		if bias.DType() == tensor.Int32 {
			e.ibias = bias.I32()
		} else {
			e.fbias = bias.F32()
		}
	}
	return e
}

// row dequantizes the accumulators of one output row (r, channel per row
// or per column as perRow says) into v and applies the activation.
func (e *quantEpilogue) row(v []float32, acc []int32, r, c0 int) {
	if e.perRow {
		m, b := e.mul[c0+r], float32(0)
		if e.fbias != nil {
			b = e.fbias[c0+r]
		}
		var ib int32
		if e.ibias != nil {
			ib = e.ibias[c0+r]
		}
		lo, hi, fused := e.clamp()
		hs := e.q.act == "hardswish"
		j0 := 0
		if k := Active().DequantRow32; k != nil && (fused || hs) {
			j0 = k(v, acc, ib, m, b, lo, hi, hs)
		}
		// float32(·) keeps the product rounded (no FMA), as the kernel.
		for j := j0; j < len(acc); j++ {
			x := min(max(float32(float32(acc[j]+ib)*m)+b, lo), hi)
			if hs {
				x = hardSwish32(x)
			}
			v[j] = x
		}
		if fused || hs {
			e.postAffine(v)
			return
		}
	} else {
		e.dequantCols(v, acc, c0)
	}
	switch e.q.act {
	case "relu":
		for j, x := range v {
			v[j] = max(x, 0)
		}
	case "clip":
		lo, hi := float32(e.q.lo), float32(e.q.hi)
		for j, x := range v {
			v[j] = min(max(x, lo), hi)
		}
	case "hardswish":
		for j, x := range v {
			v[j] = hardSwish32(x)
		}
	case "sigmoid":
		for j, x := range v {
			v[j] = float32(1 / (1 + math.Exp(-float64(x))))
		}
	}
	e.postAffine(v)
}

// dequantCols sets v[j] = float32(acc[j] + ibias[c0+j])·mul[c0+j] +
// fbias[c0+j] (the biases when there are), the backend's DequantCols32
// doing a prefix in one pass.
func (e *quantEpilogue) dequantCols(v []float32, acc []int32, c0 int) {
	var ib []int32
	var fb []float32
	if e.ibias != nil {
		ib = e.ibias[c0 : c0+len(acc)]
	}
	if e.fbias != nil {
		fb = e.fbias[c0 : c0+len(acc)]
	}
	m := e.mul[c0 : c0+len(acc)]
	j0 := 0
	if k := Active().DequantCols32; k != nil {
		j0 = k(v, acc, ib, m, fb)
	}
	if j0 == len(acc) {
		return
	}
	v, acc, m = v[j0:len(acc)], acc[j0:], m[j0:]
	if ib != nil { // the bias added and converted in one pass
		for j, a := range acc {
			v[j] = float32(a + ib[j0+j])
		}
	} else {
		for j, a := range acc {
			v[j] = float32(a)
		}
	}
	binRow(binMul, v, v, m, 1, 1) // the backend's vector row when it has one
	if fb != nil {
		binRow(binAdd, v, v, fb[j0:], 1, 1)
	}
}

// postAffine applies the scalar affine after the activation, when there
// is one: the multiply, then the add, each rounded as mul and add round.
func (e *quantEpilogue) postAffine(v []float32) {
	if e.q.hasMul {
		binRow(binMul, v, v, e.post[:1], 1, 0)
	}
	if e.q.hasAdd {
		binRow(binAdd, v, v, e.post[1:], 1, 0)
	}
}

// clamp is the activation as bounds of a clamp when it is one (none, relu,
// clip): the epilogue's dequantize row then applies it in the same pass.
func (e *quantEpilogue) clamp() (lo, hi float32, ok bool) {
	inf := float32(math.Inf(1))
	switch e.q.act {
	case "":
		return -inf, inf, true
	case "relu":
		return 0, inf, true
	case "clip":
		return float32(e.q.lo), float32(e.q.hi), true
	}
	return -inf, inf, false
}

// hardSwish32 is x·relu6(x+3)·(1/6), each step rounded in float32 (the
// int8 epilogue multiplies by 1/6 rounded rather than dividing: within
// one ulp of the float hardswish, far below an output step).
func hardSwish32(x float32) float32 { return x * min(max(x+3, 0), 6) * (1.0 / 6) }

// run writes the outputs of acc's rows×cols block whose first channel
// (row or column) is c0 into out starting at off, rows ldd apart.
func (e *quantEpilogue) run(acc []int32, rows, cols, c0 int, out *T, off, ldd int) {
	if e.q.out == tensor.Int32 {
		if e.ibias != nil {
			for r := range rows {
				a := acc[r*cols:][:cols]
				if e.perRow {
					b := e.ibias[c0+r]
					for j := range a {
						a[j] += b
					}
				} else {
					for j, b := range e.ibias[c0 : c0+cols] {
						a[j] += b
					}
				}
			}
		}
		o := out.I32()
		for r := range rows {
			copy(o[off+r*ldd:][:cols], acc[r*cols:][:cols])
		}
		return
	}
	if e.q.out == tensor.Float32 {
		o := out.F32()
		for r := range rows {
			e.row(o[off+r*ldd:][:cols], acc[r*cols:][:cols], r, c0)
		}
		return
	}
	lo, hi := float32(0), float32(255)
	if e.q.out == tensor.Int8 {
		lo, hi = -128, 127
	}
	inv, z := float32(1/e.q.yScale), float32(e.q.yZero)
	signed := e.q.out == tensor.Int8
	var o []byte
	if signed {
		o = int8Bytes(out.I8())
	} else {
		o = out.U8()
	}
	if cl, ch, fused := e.clamp(); e.perRow && (fused || e.q.act == "hardswish") {
		p := QEpilogue8{Lo: cl, Hi: ch, HardSwish: !fused, PostMul: 1, Inv: inv, Zero: z, QLo: lo, QHi: hi}
		if e.q.hasMul {
			p.PostMul = e.post[0]
		}
		if e.q.hasAdd {
			p.PostAdd = e.post[1]
		}
		for r := range rows {
			c := c0 + r
			p.M, p.B, p.IB = e.mul[c], 0, 0
			if e.fbias != nil {
				p.B = e.fbias[c]
			}
			if e.ibias != nil {
				p.IB = e.ibias[c]
			}
			p.Row(o[off+r*ldd:][:cols], acc[r*cols:][:cols])
		}
		return
	}
	vb := scratch.Get[float32](cols, false)
	defer scratch.Put(vb)
	v := (*vb)[:cols]
	for r := range rows {
		e.row(v, acc[r*cols:][:cols], r, c0)
		requantizeRow(o[off+r*ldd:][:cols], v, inv, z, lo, hi, signed)
	}
}

// int8Bytes views int8s as bytes (same memory).
func int8Bytes(s []int8) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s))
}

// QEpilogue8 holds one output channel's constants of a requantizing int8
// epilogue whose activation is a clamp or hardswish (QEpilogue8.Row).
type QEpilogue8 struct {
	IB        int32   // int32 bias
	M, B      float32 // dequantize: float32(acc+IB)·M, then + B
	Lo, Hi    float32 // the clamp activations' bounds (±Inf: none)
	HardSwish bool    // hardswish instead of the clamp
	// PostMul, PostAdd are the affine after the activation (1, 0 when
	// none: x·1 + 0 requantizes as x does).
	PostMul, PostAdd float32
	Inv, Zero        float32 // requantize: roundEven(x·Inv) + Zero
	QLo, QHi         float32 // the output type's range (-128..127 means int8)
}

// Row sets dst[j] to acc[j] through the whole epilogue in one pass, as
// uint8 or int8 bits, the backend's QEpilogueRow8 doing a prefix
// (bitwise). With a clamp: x = float32(acc[j]+IB)·M + B, clamped to [Lo,
// Hi], x·PostMul + PostAdd, clamp(roundEven(x·Inv) + Zero, QLo, QHi), each
// step rounded in float32 as the unfused passes round (bitwise equal to
// them). With hardswish, the same function folded into three fused
// multiply-adds (HardSwishFold): within rounding of the unfused passes,
// not bitwise.
func (p *QEpilogue8) Row(dst []byte, acc []int32) {
	j0 := 0
	if k := Active().QEpilogueRow8; k != nil {
		j0 = k(dst, acc, p)
	}
	if j0 == len(acc) {
		return
	}
	signed := p.QLo < 0
	var m, b3, k, k3, pz float32
	if p.HardSwish {
		m, b3, k, k3, pz = p.HardSwishFold()
	}
	for j := j0; j < len(acc); j++ {
		var q float32
		if p.HardSwish {
			u := fma32(float32(acc[j]), m, b3)
			y := fma32(fma32(u, k, k3), min(max(u, 0), 6), pz)
			q = roundEven32(y)
		} else {
			x := min(max(float32(float32(acc[j]+p.IB)*p.M)+p.B, p.Lo), p.Hi)
			x = float32(x*p.PostMul) + p.PostAdd
			q = roundEven32(float32(x*p.Inv)) + p.Zero
		}
		q = min(max(q, p.QLo), p.QHi)
		if signed {
			dst[j] = byte(int8(q))
		} else {
			dst[j] = uint8(q)
		}
	}
}

// HardSwishFold returns the constants of Row's hardswish epilogue. With
// a = float32(acc), u = a·m + b3 is the pre-activation plus 3 (b3 = IB·M
// + B + 3: the int32 bias folded in) and
//
//	y = (u·k + k3)·relu6(u) + pz,  k = PostMul·Inv/6, k3 = −PostMul·Inv/2, pz = PostAdd·Inv + Zero,
//
// is x·relu6(x+3)/6·PostMul + PostAdd requantized before rounding: the
// output is clamp(roundEven(y), QLo, QHi). u, u·k + k3 and y are each one
// fused multiply-add rounded once to float32 (the vector rows' vfmadd),
// relu6 a clamp; the constants are computed in float64 (k as s·(1/6), a
// multiply: the rows call this per channel row) and rounded to float32.
func (p *QEpilogue8) HardSwishFold() (m, b3, k, k3, pz float32) {
	s := float64(p.PostMul) * float64(p.Inv) // exact: two float32s
	b3 = float32(float64(float64(p.IB)*float64(p.M)) + float64(p.B) + 3)
	pz = float32(float64(float64(p.PostAdd)*float64(p.Inv)) + float64(p.Zero))
	return p.M, b3, float32(s * (1.0 / 6)), float32(s * -0.5), pz
}
