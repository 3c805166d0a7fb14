package rectrain

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"paddle/core/tensor"
)

// PaddleOCR's names for the imported PP-OCRv4 rec (SVTR_LCNet): a .pdparams
// trained with PaddleOCR loads into Backbone ONNXModel (workflow.PaddleNamer).

// paddleParamName matches the names Paddle gives parameters (conv2d_157.w_0,
// layer_norm_43.b_0), which paddle2onnx keeps; its own helpers are p2o.*.
var paddleParamName = regexp.MustCompile(`\.(w|b)_\d+$`)

func isPaddleParam(name string) bool {
	return paddleParamName.MatchString(name) && !strings.HasPrefix(name, "p2o.")
}

// ppocrv4RecStages is PPLCNetV3's NET_CONFIG_rec
// (ppocr/modeling/backbones/rec_lcnetv3.py): per stage, each block's
// use_se (kernels, strides and channels come with the weights).
var ppocrv4RecStages = [][]bool{{false}, {false, false}, {false, false},
	{false, false, false, false, false}, {true, true, false, false}}

// ppocrv4RecNames lists PaddleOCR's structured names of the PP-OCRv4 rec
// model (PPLCNetV3 after LearnableRepLayer.rep(), MultiHead's CTC branch:
// the svtr SequenceEncoder of depth 2 and CTCHead's fc) in the order the
// exported program first uses them.
func ppocrv4RecNames() []string {
	bn := func(p string) []string {
		return []string{p + "weight", p + "bias", p + "_mean", p + "_variance"}
	}
	out := append([]string{"backbone.conv1.conv.weight"}, bn("backbone.conv1.bn.")...)
	rep := func(p string) []string {
		return []string{p + "reparam_conv.weight", p + "reparam_conv.bias", p + "lab.scale", p + "lab.bias",
			p + "act.lab.scale", p + "act.lab.bias"}
	}
	for s, blocks := range ppocrv4RecStages {
		for j, se := range blocks {
			p := "backbone.blocks" + strconv.Itoa(s+2) + "." + strconv.Itoa(j) + "."
			out = append(out, rep(p+"dw_conv.")...)
			if se {
				out = append(out, p+"se.conv1.weight", p+"se.conv1.bias", p+"se.conv2.weight", p+"se.conv2.bias")
			}
			out = append(out, rep(p+"pw_conv.")...)
		}
	}
	const enc = "head.ctc_encoder.encoder."
	convBN := func(c string) []string { return append([]string{enc + c + ".conv.weight"}, bn(enc+c+".norm.")...) }
	out = append(append(out, convBN("conv1")...), convBN("conv2")...)
	for b := range 2 {
		for _, l := range []string{"norm1", "mixer.qkv", "mixer.proj", "norm2", "mlp.fc1", "mlp.fc2"} {
			p := enc + "svtr_block." + strconv.Itoa(b) + "." + l + "."
			out = append(out, p+"weight", p+"bias")
		}
	}
	out = append(out, enc+"norm.weight", enc+"norm.bias")
	for _, c := range []string{"conv3", "conv4", "conv1x1"} {
		out = append(out, convBN(c)...)
	}
	return append(out, "head.ctc_head.fc.weight", "head.ctc_head.fc.bias")
}

// paddleNames pairs the graph's Paddle parameters, in the order its nodes
// first use them, with ppocrv4RecNames; nil when the graph is not laid out
// as PP-OCRv4 rec (another count of parameters).
func (m *importedRec) paddleNames() map[string]string {
	if m.pdNames != nil {
		return m.pdNames
	}
	var order []string
	seen := map[string]bool{}
	for _, n := range m.g.Nodes {
		for _, v := range n.In {
			if v.Const != nil && isPaddleParam(v.Name) && !seen[v.Name] {
				seen[v.Name] = true
				order = append(order, v.Name)
			}
		}
	}
	names := ppocrv4RecNames()
	m.pdNames = map[string]string{}
	if len(order) != len(names) {
		return m.pdNames
	}
	for i, n := range order {
		m.pdNames[n] = names[i]
	}
	return m.pdNames
}

// PaddleName maps an imported tensor (named by its Paddle parameter name in
// the ONNX file, e.g. conv2d_157.w_0) to PaddleOCR's structured name. Linear
// weights are (in, out) in the graph as in Paddle: none is transposed. A
// graph that is not PP-OCRv4 rec's keeps its own names, which no PaddleOCR
// file has, so loading one fails naming the tensors.
func (m *importedRec) PaddleName(name string) (string, bool) {
	if pd, ok := m.paddleNames()[name]; ok {
		return pd, false
	}
	return name, false
}

// paddleTrainOnly are the MultiHead branches PaddleOCR trains beside CTC
// (NRTR's before_gtc and gtc_head, or sar_head); inference has none.
var paddleTrainOnly = []string{"head.before_gtc.", "head.gtc_head.", "head.sar_head."}

// PaddlePrepare folds each LearnableRepLayer's training branches into the
// one conv its rep() makes (reparam_conv), as PaddleOCR's export does, and
// sets aside the training-only heads (workflow.PaddlePreparer).
func (m *importedRec) PaddlePrepare(t map[string]*tensor.Tensor) ([]string, error) {
	var used []string
	for name := range t {
		for _, p := range paddleTrainOnly {
			if strings.HasPrefix(name, p) {
				used = append(used, name)
			}
		}
		pre, ok := strings.CutSuffix(name, "conv_kxk.0.conv.weight")
		if !ok {
			continue
		}
		if _, ok := t[pre+"reparam_conv.weight"]; ok {
			continue
		}
		w, b, u, err := repFold(t, pre)
		if err != nil {
			return nil, err
		}
		t[pre+"reparam_conv.weight"], t[pre+"reparam_conv.bias"] = w, b
		used = append(used, u...)
	}
	return used, nil
}

// repEps is the epsilon of the branches' BatchNorm2D (Paddle's default).
const repEps = 1e-5

// repFold is LearnableRepLayer._get_kernel_bias for the layer at prefix pre:
// the sum over conv_kxk.i, conv_1x1 (padded to k×k) and identity (a BN on
// an identity kernel) of each branch's conv weight scaled by gamma/std,
// and of beta − mean·gamma/std.
func repFold(t map[string]*tensor.Tensor, pre string) (w, b *tensor.Tensor, used []string, err error) {
	get := func(n string) ([]float64, []int, error) {
		v, ok := t[pre+n]
		if !ok {
			return nil, nil, fmt.Errorf("%s%s is missing (the other branches of the re-parameterisable layer are there)", pre, n)
		}
		used = append(used, pre+n)
		return v.Float64s(), v.Shape(), nil
	}
	bnScale := func(p string, cout int) (s, shift []float64, err error) {
		var v [4][]float64
		for i, n := range []string{"weight", "bias", "_mean", "_variance"} {
			if v[i], _, err = get(p + n); err != nil {
				return nil, nil, err
			}
			if len(v[i]) != cout {
				return nil, nil, fmt.Errorf("%s%s%s has %d values, want %d", pre, p, n, len(v[i]), cout)
			}
		}
		s, shift = make([]float64, cout), make([]float64, cout)
		for c := range cout {
			s[c] = v[0][c] / math.Sqrt(v[3][c]+repEps)
			shift[c] = v[1][c] - v[2][c]*s[c]
		}
		return s, shift, nil
	}
	k0, shape, err := get("conv_kxk.0.conv.weight")
	if err != nil {
		return nil, nil, nil, err
	}
	if len(shape) != 4 || shape[2] != shape[3] {
		return nil, nil, nil, fmt.Errorf("%sconv_kxk.0.conv.weight is %v, want (out, in/groups, k, k)", pre, shape)
	}
	cout, cinG, k := shape[0], shape[1], shape[2]
	per := cinG * k * k
	kern, bias := make([]float64, len(k0)), make([]float64, cout)
	add := func(wv []float64, kw int, s, shift []float64) {
		for o := range cout {
			for i := range cinG {
				for y := range kw {
					for x := range kw {
						ky, kx := y+(k-kw)/2, x+(k-kw)/2
						kern[o*per+(i*k+ky)*k+kx] += wv[((o*cinG+i)*kw+y)*kw+x] * s[o]
					}
				}
			}
			bias[o] += shift[o]
		}
	}
	for i := 0; ; i++ {
		p := "conv_kxk." + strconv.Itoa(i) + "."
		if _, ok := t[pre+p+"conv.weight"]; !ok {
			break
		}
		wv, sh, err := get(p + "conv.weight")
		if err != nil {
			return nil, nil, nil, err
		}
		if !tensor.Shape(sh).Equal(tensor.Shape(shape)) {
			return nil, nil, nil, fmt.Errorf("%s%sconv.weight is %v, want %v", pre, p, sh, shape)
		}
		s, shift, err := bnScale(p+"bn.", cout)
		if err != nil {
			return nil, nil, nil, err
		}
		add(wv, k, s, shift)
	}
	if _, ok := t[pre+"conv_1x1.conv.weight"]; ok {
		wv, sh, err := get("conv_1x1.conv.weight")
		if err != nil {
			return nil, nil, nil, err
		}
		if !tensor.Shape(sh).Equal(tensor.Shape{cout, cinG, 1, 1}) {
			return nil, nil, nil, fmt.Errorf("%sconv_1x1.conv.weight is %v, want %v", pre, sh, []int{cout, cinG, 1, 1})
		}
		s, shift, err := bnScale("conv_1x1.bn.", cout)
		if err != nil {
			return nil, nil, nil, err
		}
		add(wv, 1, s, shift)
	}
	if _, ok := t[pre+"identity.weight"]; ok {
		s, shift, err := bnScale("identity.", cout)
		if err != nil {
			return nil, nil, nil, err
		}
		id := make([]float64, cout*cinG) // the 1×1 identity kernel: [c, c mod in/groups] = 1
		for c := range cout {
			id[c*cinG+c%cinG] = 1
		}
		add(id, 1, s, shift)
	}
	kf := make([]float32, len(kern))
	for i, v := range kern {
		kf[i] = float32(v)
	}
	bf := make([]float32, cout)
	for i, v := range bias {
		bf[i] = float32(v)
	}
	return tensor.FromSlice(kf, shape...), tensor.FromSlice(bf, cout), used, nil
}
