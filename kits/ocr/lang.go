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
	g := m.Graph
	if g == nil || len(g.Output) != 1 || len(g.Node) < 3 {
		return fmt.Errorf("recognition model: want one output after MatMul, Add, Softmax")
	}
	n := len(g.Node)
	mm, add, sm := g.Node[n-3], g.Node[n-2], g.Node[n-1]
	if mm.OpType != "MatMul" || add.OpType != "Add" || sm.OpType != "Softmax" ||
		len(mm.Input) != 2 || len(add.Input) != 2 || add.Input[0] != mm.Output[0] || sm.Input[0] != add.Output[0] {
		return fmt.Errorf("recognition model: the graph does not end in MatMul → Add → Softmax (ends %s → %s → %s)", mm.OpType, add.OpType, sm.OpType)
	}
	w, err := constTensor(g, mm.Input[1])
	if err != nil {
		return err
	}
	b, err := constTensor(g, add.Input[1])
	if err != nil {
		return err
	}
	if len(w.Dims) != 2 || len(b.Dims) != 1 || b.Dims[0] != w.Dims[1] {
		return fmt.Errorf("recognition model: head weights %v and bias %v, want [D, C] and [C]", w.Dims, b.Dims)
	}
	D, C := int(w.Dims[0]), int(w.Dims[1])
	wv, err := w.Float32s()
	if err != nil {
		return fmt.Errorf("recognition model: head weights: %w", err)
	}
	bv, err := b.Float32s()
	if err != nil {
		return fmt.Errorf("recognition model: head bias: %w", err)
	}
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

// loadEnglishRec loads EnglishRecModel(store) for inference.
func loadEnglishRec(store string, threads int, int8 bool, p Profile, progress func(int, string) iostreams.Progress) (Model, []string, error) {
	m, en, err := EnglishRecModel(store)
	if err != nil {
		return nil, nil, err
	}
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
			return nil, nil, err
		}
		if path != "" {
			mod, err := loadModel("English recognition", path, threads)
			return mod, en, err
		}
	}
	g, err := onnx.Import(m)
	if err != nil {
		return nil, nil, fmt.Errorf("English recognition model: %w", err)
	}
	pr, err := runtime.New(g, runtime.Options{Threads: threads})
	if err != nil {
		return nil, nil, fmt.Errorf("English recognition model: %w", err)
	}
	return pr, en, nil
}
