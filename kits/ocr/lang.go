package ocr

import (
	"fmt"
	"io/fs"
	"path/filepath"

	"paddle/configs"
	"paddle/core/cli/iostreams"
	"paddle/core/graph"
	"paddle/core/onnx"
	"paddle/core/onnx/onnxpb"
	"paddle/core/runtime"
)

// Languages of `ocr predict --lang`.
const (
	LangCh = "ch" // ch_PP-OCRv4_rec with ppocr_keys_v1.txt: PaddleOCR 2.x's default
	LangEn = "en" // English: configs/ocr/en_dict.txt + space (EnglishChars)
)

// ParseLang checks a --lang value ("" means LangCh).
func ParseLang(s string) (string, error) {
	switch s {
	case "", LangCh:
		return LangCh, nil
	case LangEn:
		return LangEn, nil
	}
	return "", fmt.Errorf("unknown language %q (known: %s, %s)", s, LangCh, LangEn)
}

// DefaultSpaceMode is the space mode a language gets when --space-mode is not
// given: PaddleOCR's decoding for ch (exact to PaddleOCR 2.x), gaps for en.
func DefaultSpaceMode(lang string) string {
	if lang == LangEn {
		return SpaceGaps
	}
	return SpaceCTC
}

// EnglishChars returns the English recogniser's CTC classes: blank, the 94
// printable ASCII characters of the embedded configs/ocr/en_dict.txt, space.
func EnglishChars() ([]string, error) {
	b, err := fs.ReadFile(configs.FS, "ocr/en_dict.txt")
	if err != nil {
		return nil, fmt.Errorf("embedded configs/ocr/en_dict.txt: %w", err)
	}
	return ParseDict(b, true), nil
}

// SliceRecHead keeps the classes keep (indices into the model's output classes, in
// the order given) of a CTC recognition model whose output is
// Softmax(MatMul(x, W) + b), as PaddleOCR's exports of SVTR_LCNet end: W [D, C] and
// b [C] are Constant nodes or initializers; their columns are cut to keep and the
// output's class dimension set to len(keep).
func SliceRecHead(m *onnxpb.Model, keep []int) error {
	h, err := recHeadOf(m)
	if err != nil {
		return err
	}
	g, w, b, D, C, wv, bv := m.Graph, h.w, h.b, h.D, h.C, h.wv, h.bv
	K := len(keep)
	nw, nb := make([]float32, D*K), make([]float32, K)
	for j, k := range keep {
		if k < 0 || k >= C {
			return fmt.Errorf("recognition model: class %d out of range (the model has %d)", k, C)
		}
		nb[j] = bv[k]
		for d := 0; d < D; d++ {
			nw[d*K+j] = wv[d*C+k]
		}
	}
	*w = *onnxpb.FromFloat32s(w.Name, []int64{int64(D), int64(K)}, nw)
	*b = *onnxpb.FromFloat32s(b.Name, []int64{int64(K)}, nb)
	if tt := g.Output[0].Type; tt != nil && tt.TensorType != nil && tt.TensorType.Shape != nil {
		if dims := tt.TensorType.Shape.Dim; len(dims) > 0 {
			dims[len(dims)-1] = onnxpb.Dim{Value: int64(K), HasValue: true}
		}
	}
	return nil
}

// recHead is the end of a CTC recognition model: Softmax(MatMul(x, W) + b).
type recHead struct {
	mm, add, sm *onnxpb.Node
	w, b        *onnxpb.Tensor
	D, C        int       // W is [D, C]
	wv, bv      []float32 // W's and b's values
}

// recHeadOf finds m's head: its last three nodes, MatMul → Add → Softmax.
func recHeadOf(m *onnxpb.Model) (recHead, error) {
	g := m.Graph
	if g == nil || len(g.Output) != 1 || len(g.Node) < 3 {
		return recHead{}, fmt.Errorf("recognition model: want one output after MatMul, Add, Softmax")
	}
	n := len(g.Node)
	h := recHead{mm: g.Node[n-3], add: g.Node[n-2], sm: g.Node[n-1]}
	if h.mm.OpType != "MatMul" || h.add.OpType != "Add" || h.sm.OpType != "Softmax" ||
		len(h.mm.Input) != 2 || len(h.add.Input) != 2 || h.add.Input[0] != h.mm.Output[0] || h.sm.Input[0] != h.add.Output[0] {
		return recHead{}, fmt.Errorf("recognition model: the graph does not end in MatMul → Add → Softmax (ends %s → %s → %s)", h.mm.OpType, h.add.OpType, h.sm.OpType)
	}
	var err error
	if h.w, err = constTensor(g, h.mm.Input[1]); err != nil {
		return recHead{}, err
	}
	if h.b, err = constTensor(g, h.add.Input[1]); err != nil {
		return recHead{}, err
	}
	if len(h.w.Dims) != 2 || len(h.b.Dims) != 1 || h.b.Dims[0] != h.w.Dims[1] {
		return recHead{}, fmt.Errorf("recognition model: head weights %v and bias %v, want [D, C] and [C]", h.w.Dims, h.b.Dims)
	}
	h.D, h.C = int(h.w.Dims[0]), int(h.w.Dims[1])
	if h.wv, err = h.w.Float32s(); err != nil {
		return recHead{}, fmt.Errorf("recognition model: head weights: %w", err)
	}
	if h.bv, err = h.b.Float32s(); err != nil {
		return recHead{}, fmt.Errorf("recognition model: head bias: %w", err)
	}
	return h, nil
}

// UpsampleRecHead gives a CTC recognition model whose output is
// Softmax(MatMul(x, W) + b) f output steps per feature step: W [D, C] and b [C]
// become [D, f·C] and [f·C], repeated f times, and a Reshape to (N, f·T, C)
// comes before the softmax. A model so upsampled decodes as before (greedy CTC
// merges the repeated steps), and a fine-tuned one can write a doubled letter
// inside one feature step (docs/ocr.md, "Stage 7").
func UpsampleRecHead(m *onnxpb.Model, f int) error {
	if f < 2 {
		return fmt.Errorf("recognition model: upsampling factor %d, want 2 or more", f)
	}
	h, err := recHeadOf(m)
	if err != nil {
		return err
	}
	D, C := h.D, h.C
	nw, nb := make([]float32, D*f*C), make([]float32, f*C)
	for s := range f {
		copy(nb[s*C:], h.bv)
		for d := range D {
			copy(nw[d*f*C+s*C:d*f*C+(s+1)*C], h.wv[d*C:(d+1)*C])
		}
	}
	*h.w = *onnxpb.FromFloat32s(h.w.Name, []int64{int64(D), int64(f * C)}, nw)
	*h.b = *onnxpb.FromFloat32s(h.b.Name, []int64{int64(f * C)}, nb)
	g := m.Graph
	shape, up := h.add.Output[0]+"_steps", h.add.Output[0]+"_up"
	g.Initializer = append(g.Initializer, onnxpb.FromInt64s(shape, []int64{3}, []int64{0, -1, int64(C)}))
	reshape := &onnxpb.Node{Name: up, OpType: "Reshape", Input: []string{h.add.Output[0], shape}, Output: []string{up}}
	g.Node = append(g.Node[:len(g.Node)-1], reshape, h.sm)
	h.sm.Input[0] = up
	if tt := g.Output[0].Type; tt != nil && tt.TensorType != nil && tt.TensorType.Shape != nil {
		if dims := tt.TensorType.Shape.Dim; len(dims) == 3 && dims[1].HasValue {
			dims[1].Value *= int64(f)
		}
	}
	return nil
}

// RecSteps returns a CTC recognition model's output steps per feature column:
// UpsampleRecHead's factor, read from its head (Add → Reshape → Softmax, the
// bias f times the Reshape's classes); 1 for any other model.
func RecSteps(m *onnxpb.Model) int {
	g := m.Graph
	if g == nil || len(g.Node) < 3 {
		return 1
	}
	n := len(g.Node)
	add, rs, sm := g.Node[n-3], g.Node[n-2], g.Node[n-1]
	if add.OpType != "Add" || rs.OpType != "Reshape" || sm.OpType != "Softmax" || len(add.Input) != 2 || len(rs.Input) != 2 ||
		rs.Input[0] != add.Output[0] || sm.Input[0] != rs.Output[0] {
		return 1
	}
	b, err := constTensor(g, add.Input[1])
	if err != nil || len(b.Dims) != 1 {
		return 1
	}
	shape, err := constTensor(g, rs.Input[1])
	if err != nil {
		return 1
	}
	dims, err := shape.Int64s()
	if err != nil || len(dims) == 0 || dims[len(dims)-1] <= 0 || b.Dims[0]%dims[len(dims)-1] != 0 {
		return 1
	}
	return int(b.Dims[0] / dims[len(dims)-1])
}

// constTensor finds the tensor called name: an initializer or a Constant node's value.
func constTensor(g *onnxpb.Graph, name string) (*onnxpb.Tensor, error) {
	for _, t := range g.Initializer {
		if t.Name == name {
			return t, nil
		}
	}
	for _, nd := range g.Node {
		if nd.OpType == "Constant" && len(nd.Output) == 1 && nd.Output[0] == name {
			if a := nd.Attr("value"); a != nil && a.T != nil {
				return a.T, nil
			}
		}
	}
	return nil, fmt.Errorf("recognition model: %s is not a constant", name)
}

// EnglishRecBase returns the starting point of the English recogniser from
// the store folder store (the ppocrv4 files): ch_PP-OCRv4_rec with its CTC
// head cut to the classes of EnglishChars (blank, en_dict, space), which the
// Chinese dictionary all has, and those classes. scripts/ocr_en_init writes it
// to a file for training.
func EnglishRecBase(store string) (*onnxpb.Model, []string, error) {
	chChars, err := LoadDict(filepath.Join(store, storeDict), true)
	if err != nil {
		return nil, nil, fmt.Errorf("rec dictionary: %w", err)
	}
	en, err := EnglishChars()
	if err != nil {
		return nil, nil, err
	}
	index := map[string]int{}
	for i, c := range chChars {
		if _, ok := index[c]; !ok {
			index[c] = i
		}
	}
	keep := make([]int, len(en))
	for i, c := range en[1 : len(en)-1] {
		k, ok := index[c]
		if !ok {
			return nil, nil, fmt.Errorf("English class %q is not in %s", c, storeDict)
		}
		keep[i+1] = k
	}
	keep[len(keep)-1] = len(chChars) - 1 // the space class
	path := filepath.Join(store, storeRec)
	m, err := onnxpb.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("recognition model %s: %w", path, err)
	}
	if err := SliceRecHead(m, keep); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, en, nil
}

// EnglishRecModel returns --lang en's recogniser: EnglishRecBase with the
// neck and head the project trained (the embedded ppocrv4-en weights).
func EnglishRecModel(store string) (*onnxpb.Model, []string, error) {
	m, en, err := EnglishRecBase(store)
	if err != nil {
		return nil, nil, err
	}
	if err := applyEnglishWeights(m); err != nil {
		return nil, nil, err
	}
	return m, en, nil
}

// loadEnglishRec loads EnglishRecModel(store) for inference, with its RecSteps.
func loadEnglishRec(store string, threads int, int8 bool, p Profile, progress func(int, string) iostreams.Progress) (Model, []string, int, error) {
	m, en, err := EnglishRecModel(store)
	if err != nil {
		return nil, nil, 0, err
	}
	steps := RecSteps(m)
	if int8 {
		load := func() (*graph.Graph, error) {
			m, _, err := EnglishRecModel(store)
			if err != nil {
				return nil, err
			}
			return onnx.Import(m)
		}
		path, err := int8Model(store, "rec-en", "en_"+storeRec, storeSHA256(storeRec)+"+"+storeSHA256(storeDict)+"+en+"+englishSHA256(), load, p, progress)
		if err != nil {
			return nil, nil, 0, err
		}
		if path != "" {
			mod, err := loadModel("English recognition", path, threads)
			return mod, en, steps, err
		}
	}
	g, err := onnx.Import(m)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("English recognition model: %w", err)
	}
	pr, err := runtime.New(g, runtime.Options{Threads: threads})
	if err != nil {
		return nil, nil, 0, fmt.Errorf("English recognition model: %w", err)
	}
	return pr, en, steps, nil
}
