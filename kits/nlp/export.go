package nlp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/graph/trace"
	pio "paddle/core/io"
	"paddle/core/metric"
	"paddle/core/op"
	"paddle/core/quant"
	"paddle/core/runtime"
	"paddle/core/tensor"
	"paddle/core/tokenizer"
	"paddle/core/workflow"
)

// Export and predict --model. `paddle nlp export` traces the classifier in
// eval mode with a softmax on top: input "input_ids" (batch, seq_len)
// int64, both dynamic, padded with 0; output "probs" (batch, classes). The
// export directory holds model.onnx, inference.yaml, config.yaml and the
// text-to-ids tables (vocab.txt, or the tokenizer's files under
// tokenizer/), so predict --model and serve need nothing else:
//
//	Global: {model_name: BoE}
//	PreProcess:
//	  transform_ops:
//	    - TextToIds: {unit: char, ngram: 3, vocab_file: vocab.txt, max_seq_len: 300, min_len: 1, pad_id: 0}
//	PostProcess: {name: Topk, topk: 1, label_list: [bg, cs, ...]}
//	Inputs: [{name: input_ids, shape: [-1, -1], dtype: int64}]

// TextToIdsOp is the PreProcess op of an nlp export: how a text becomes
// ids. VocabFile (a WordVocab: [PAD], [UNK], units) with Unit and NGram as
// Segmenter, or TokenizerFile (a core/tokenizer file or folder, ids shifted
// up by IDOffset, no special tokens). Paths are relative to the export
// directory. Texts keep MaxSeqLen units and are padded with PadID to at
// least MinLen ids.
type TextToIdsOp struct {
	Unit          string `yaml:"unit,omitempty"`
	NGram         int    `yaml:"ngram,omitempty"`
	VocabFile     string `yaml:"vocab_file,omitempty"`
	TokenizerFile string `yaml:"tokenizer_file,omitempty"`
	IDOffset      int    `yaml:"id_offset,omitempty"`
	MaxSeqLen     int    `yaml:"max_seq_len"`
	MinLen        int    `yaml:"min_len"`
	PadID         int    `yaml:"pad_id"`
}

// textPreProcess is inference.yaml's PreProcess section.
type textPreProcess struct {
	TransformOps []config.Component `yaml:"transform_ops"`
}

// textPostProcess is inference.yaml's PostProcess section.
type textPostProcess struct {
	Name      string   `yaml:"name"`
	Topk      int      `yaml:"topk"`
	LabelList []string `yaml:"label_list"`
}

// textInferenceSchema checks an nlp export's inference.yaml.
func textInferenceSchema() *config.Schema {
	return workflow.InferenceSchema((*textPreProcess)(nil), (*textPostProcess)(nil), map[string]any{"TextToIds": (*TextToIdsOp)(nil)}, "name")
}

var (
	_ workflow.Exporter   = (*textRunner)(nil)
	_ workflow.Calibrator = (*textRunner)(nil)
)

// Export writes the checkpoint env.Weights as an export directory.
func (r *textRunner) Export(_ context.Context, env workflow.Env, dir string) error {
	model, err := r.newModel(env.Weights)
	if err != nil {
		return err
	}
	if _, err := workflow.LoadCheckpoint(env.Weights, model, nil); err != nil {
		return err
	}
	// example: 2 texts of max(min_len, 6) ids, no padding (sizes > 1, see trace's doc)
	l := max(model.MinLen(), 6)
	ex := tensor.New(tensor.Int64, 2, l)
	for i := range ex.I64() {
		ex.I64()[i] = int64(min(2+(i*7)%max(r.enc.Size()-2, 1), r.enc.Size()-1))
	}
	spec := trace.InputSpec{Name: "input_ids", Shape: []int{-1, -1}, DimNames: []string{"batch", "seq_len"}}
	g, err := trace.Func(model, []trace.InputSpec{spec}, []*tensor.Tensor{ex}, []string{"probs"},
		func(xs []*ag.Var) []*ag.Var { return []*ag.Var{ag.Softmax(model.Logits(xs[0], false), -1)} })
	if err != nil {
		return fmt.Errorf("export %s: %w", r.model.Name, err)
	}
	tt := TextToIdsOp{MaxSeqLen: r.global.MaxSeqLen, MinLen: model.MinLen(), PadID: PadID}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	switch e := r.enc.(type) {
	case *WordVocab:
		tt.Unit, tt.NGram, tt.VocabFile = e.Seg.Unit, e.Seg.NGram, "vocab.txt"
		if err := pio.WriteFileAtomic(filepath.Join(dir, tt.VocabFile), []byte(strings.Join(e.Words, "\n")+"\n"), 0o644); err != nil {
			return fmt.Errorf("export: %w", err)
		}
	case *tokEncoder:
		tt.IDOffset = 1
		if tt.TokenizerFile, err = copyTokenizer(r.global.Tokenizer, filepath.Join(dir, "tokenizer")); err != nil {
			return fmt.Errorf("export: Global.tokenizer: %w", err)
		}
	default:
		return fmt.Errorf("export: text encoder %T cannot be written", r.enc)
	}
	inf := &workflow.Inference{
		Global:      workflow.InferenceGlobal{ModelName: r.model.Name},
		PreProcess:  map[string]any{"transform_ops": []any{map[string]any{"TextToIds": tt}}},
		PostProcess: textPostProcess{Name: "Topk", Topk: 1, LabelList: r.labels.Names},
	}
	return workflow.WriteExport(dir, g, inf, r.cfg)
}

// copyTokenizer copies a tokenizer file, or a GPT-2 folder's encoder.json
// and vocab.bpe, into dst and returns its path relative to dst's parent.
func copyTokenizer(src, dst string) (string, error) {
	st, err := os.Stat(src)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return "", err
	}
	files := []string{src}
	rel := filepath.Join(filepath.Base(dst), filepath.Base(src))
	if st.IsDir() {
		files = []string{filepath.Join(src, "encoder.json"), filepath.Join(src, "vocab.bpe")}
		rel = filepath.Base(dst)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		if err := pio.WriteFileAtomic(filepath.Join(dst, filepath.Base(f)), b, 0o644); err != nil {
			return "", err
		}
	}
	return rel, nil
}

// textScorer turns texts into class probabilities, from a checkpoint's
// model or an export's graph.
type textScorer struct {
	enc            TextEncoder
	maxLen, minLen int
	labels         []string
	input          string // the export's input name
	// probs maps ids (N, L) to probabilities (N, classes), row-major.
	probs func(ids *tensor.Tensor) ([]float32, error)
}

// ids encodes one text as a (1, L) batch, padded to minLen.
func (s *textScorer) ids(text string) *tensor.Tensor {
	ids := s.enc.Encode(text, s.maxLen)
	x := tensor.New(tensor.Int64, 1, max(len(ids), s.minLen, 1))
	copy(x.I64(), ids)
	return x
}

// Classify returns the most probable label of text with its probability
// (rounded to 5 decimals).
func (s *textScorer) Classify(text string) (TextPrediction, error) {
	p, err := s.probs(s.ids(text))
	if err != nil {
		return TextPrediction{}, err
	}
	if len(p) != len(s.labels) {
		return TextPrediction{}, fmt.Errorf("the model gives %d scores for %d labels", len(p), len(s.labels))
	}
	c := metric.Argmax(p)
	return TextPrediction{Text: text, Label: s.labels[c], Score: math.Round(float64(p[c])*1e5) / 1e5}, nil
}

// checkpointScorer loads the checkpoint weights into the config's model.
func (r *textRunner) checkpointScorer(weights string) (*textScorer, error) {
	model, err := r.newModel(weights)
	if err != nil {
		return nil, err
	}
	if _, err := workflow.LoadCheckpoint(weights, model, nil); err != nil {
		return nil, err
	}
	return &textScorer{enc: r.enc, maxLen: r.global.MaxSeqLen, minLen: model.MinLen(), labels: r.labels.Names,
		probs: func(ids *tensor.Tensor) (p []float32, err error) {
			defer shapeGuard(&err)
			ag.NoGrad(func() { p = ag.Softmax(model.Logits(ag.Const(ids), false), -1).T.Contiguous().F32() })
			return p, nil
		}}, nil
}

// loadExportScorer reads an export directory (paddle nlp export) into a
// scorer running model.onnx on core/runtime.
func loadExportScorer(dir string, threads int) (*textScorer, error) {
	p, cfg, err := workflow.ReadExport(dir, textInferenceSchema(), runtime.Options{Threads: threads})
	if err != nil {
		return nil, err
	}
	var pre textPreProcess
	var post textPostProcess
	inputs, err := workflow.DecodeInference(cfg, &pre, &post)
	if err != nil {
		return nil, err
	}
	file := filepath.Join(dir, workflow.ExportInferenceFile)
	if len(inputs) != 1 || len(inputs[0].Shape) != 2 || len(post.LabelList) == 0 || len(pre.TransformOps) != 1 {
		return nil, fmt.Errorf("%s: want one (batch, seq_len) input, a label_list and one TextToIds op", file)
	}
	var tt TextToIdsOp
	if err := pre.TransformOps[0].Decode(&tt); err != nil {
		return nil, err
	}
	s := &textScorer{maxLen: tt.MaxSeqLen, minLen: tt.MinLen, labels: post.LabelList}
	switch {
	case tt.VocabFile != "":
		seg, err := NewSegmenter(tt.Unit, tt.NGram)
		if err != nil {
			return nil, fmt.Errorf("%s: TextToIds: %w", file, err)
		}
		if s.enc, err = ReadWordVocab(filepath.Join(dir, tt.VocabFile), seg); err != nil {
			return nil, err
		}
	case tt.TokenizerFile != "":
		tok, err := tokenizer.Load(filepath.Join(dir, tt.TokenizerFile))
		if err != nil {
			return nil, fmt.Errorf("%s: TextToIds.tokenizer_file: %w", file, err)
		}
		if tt.IDOffset != 1 {
			return nil, fmt.Errorf("%s: TextToIds.id_offset %d: only 1 is supported", file, tt.IDOffset)
		}
		s.enc = &tokEncoder{tok}
	default:
		return nil, fmt.Errorf("%s: TextToIds needs vocab_file or tokenizer_file", file)
	}
	in, out := inputs[0].Name, p.OutputNames()[0]
	s.input = in
	s.probs = func(ids *tensor.Tensor) ([]float32, error) {
		res, err := p.Run(map[string]*tensor.Tensor{in: ids})
		if err != nil {
			return nil, err
		}
		return res[out].Contiguous().F32(), nil
	}
	return s, nil
}

// CalibrationFeed is the text classifier's workflow.Calibrator (`export
// --quantize`): calib is a text file, one text a line as predict reads
// them (blank lines skipped); each of the first count texts (0: all)
// becomes ids as predict --model dir encodes it.
func (r *textRunner) CalibrationFeed(dir, calib string, count int) (quant.Feed, int, error) {
	s, err := loadExportScorer(dir, 0)
	if err != nil {
		return nil, 0, err
	}
	if st, err := os.Stat(calib); err != nil {
		return nil, 0, fmt.Errorf("--calib: %w", err)
	} else if st.IsDir() {
		return nil, 0, fmt.Errorf("--calib %s: want a text file, one text a line (the nlp classifier calibrates on texts), not a folder", calib)
	}
	var texts []string
	errFull := errors.New("enough texts")
	err = eachLineOf(context.Background(), nil, calib, func(line string) error {
		if strings.TrimSpace(line) == "" {
			return nil
		}
		texts = append(texts, line)
		if count > 0 && len(texts) == count {
			return errFull
		}
		return nil
	})
	if err != nil && err != errFull {
		return nil, 0, fmt.Errorf("--calib: %w", err)
	}
	if len(texts) == 0 {
		return nil, 0, fmt.Errorf("--calib %s: no texts (one text a line)", calib)
	}
	return func(i int) (map[string]*tensor.Tensor, error) {
		return map[string]*tensor.Tensor{s.input: s.ids(texts[i])}, nil
	}, len(texts), nil
}

// shapeGuard turns an *op.ShapeError raised by a model into an error (the
// one panic that crosses package APIs); any other panic is a bug and keeps
// its stack.
func shapeGuard(err *error) {
	if r := recover(); r != nil {
		se, ok := r.(*op.ShapeError)
		if !ok {
			panic(r)
		}
		*err = fmt.Errorf("model: %w", se)
	}
}
