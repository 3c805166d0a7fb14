package nlp

import (
	"context"
	"fmt"
	"path/filepath"

	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/graph"
	"paddle/core/graph/trace"
	"paddle/core/nn"
	"paddle/core/runtime"
	"paddle/core/tensor"
	"paddle/core/workflow"
)

// Export of a tagger: model.onnx computes the emissions from word ids
// "words" (batch, seq) and, with char features, char ids "chars" (batch,
// seq, max_word_len), both int64 with dynamic batch and length, output
// "emissions" (batch, seq, tags). The CRF is not in the graph: its
// transitions go to inference.yaml's PostProcess and predict --model runs
// Viterbi in Go after the ONNX model. inference.yaml also holds the word
// and char vocabularies (PreProcess TagEncode) and the tag names.

// tagEncodeOpts is the TagEncode transform: how tokens become ids.
type tagEncodeOpts struct {
	Tokenizer    string   `yaml:"tokenizer"` // "words_punct": tokenizeText
	Lowercase    bool     `yaml:"lowercase"`
	DigitsToZero bool     `yaml:"digits_to_zero"`
	MaxWordLen   int      `yaml:"max_word_len"` // 0: no char input
	WordVocab    []string `yaml:"word_vocab"`   // id = position; 0 pads, 1 unknown
	CharVocab    []string `yaml:"char_vocab,omitempty"`
}

// tagPostProcess is inference.yaml's PostProcess for taggers.
type tagPostProcess struct {
	Name        string      `yaml:"name"` // CRFViterbi or Argmax
	LabelList   []string    `yaml:"label_list"`
	Transitions [][]float64 `yaml:"transitions,omitempty"` // (K, K): previous tag, next tag
	Start       []float64   `yaml:"start_transitions,flow,omitempty"`
	End         []float64   `yaml:"end_transitions,flow,omitempty"`
}

type tagPreProcess struct {
	TransformOps []config.Component `yaml:"transform_ops"`
}

func tagInferenceSchema() *config.Schema {
	return workflow.InferenceSchema((*tagPreProcess)(nil), (*tagPostProcess)(nil), map[string]any{"TagEncode": (*tagEncodeOpts)(nil)}, "name")
}

var _ workflow.Exporter = (*tagRunner)(nil)

// Export writes the checkpoint env.Weights as an export directory.
func (r *tagRunner) Export(_ context.Context, env workflow.Env, dir string) error {
	model, err := r.newModel(env.Weights)
	if err != nil {
		return err
	}
	if _, err := workflow.LoadCheckpoint(env.Weights, model, nil); err != nil {
		return err
	}
	g, err := traceTagger(model)
	if err != nil {
		return fmt.Errorf("export %s: %w", r.model.Name, err)
	}
	enc := tagEncodeOpts{Tokenizer: "words_punct", Lowercase: true, DigitsToZero: true, WordVocab: r.enc.words.Items}
	if model.UsesChars() {
		enc.MaxWordLen, enc.CharVocab = model.wordLen, r.enc.chars.Items
	}
	post := tagPostProcess{Name: "Argmax", LabelList: r.labels.Names}
	if model.CRF != nil {
		c := model.CRF.Chain()
		post.Name, post.Start, post.End = "CRFViterbi", c.Start, c.End
		for i := range c.K {
			post.Transitions = append(post.Transitions, c.Trans[i*c.K:(i+1)*c.K])
		}
	}
	inf := &workflow.Inference{
		Global:      workflow.InferenceGlobal{ModelName: r.model.Name},
		PreProcess:  map[string]any{"transform_ops": []any{map[string]any{"TagEncode": enc}}},
		PostProcess: post,
	}
	return workflow.WriteExport(dir, g, inf, r.cfg)
}

// traceTagger traces the emissions with dynamic batch and sequence length.
func traceTagger(model *Tagger) (*graph.Graph, error) {
	specs := []trace.InputSpec{{Name: "words", Shape: []int{-1, -1}, DimNames: []string{"batch", "seq"}}}
	words := tensor.FromSlice([]int64{2, 3, 4, 1, 5, 2}, 2, 3) // batch > 1: see trace's doc
	examples := []*tensor.Tensor{words}
	if model.UsesChars() {
		c := model.wordLen
		specs = append(specs, trace.InputSpec{Name: "chars", Shape: []int{-1, -1, c}, DimNames: []string{"batch", "seq", ""}})
		chars := tensor.New(tensor.Int64, 2, 3, c)
		for i := range 6 {
			chars.I64()[i*c] = int64(2 + i%3)
		}
		examples = append(examples, chars)
	}
	return trace.Func(model, specs, examples, []string{"emissions"}, func(xs []*ag.Var) []*ag.Var {
		var ch *ag.Var
		if len(xs) > 1 {
			ch = xs[1]
		}
		return []*ag.Var{model.Emissions(xs[0], ch, nil, false)}
	})
}

// predictTagExport tags text lines with the export directory env.Model on
// core/runtime, decoding the emissions with the exported CRF.
func predictTagExport(ctx context.Context, env workflow.Env, args []string) error {
	p, cfg, err := workflow.ReadExport(env.Model, tagInferenceSchema(), runtime.Options{})
	if err != nil {
		return err
	}
	var pre tagPreProcess
	var post tagPostProcess
	if err := cfg.Decode("PreProcess", &pre); err != nil {
		return err
	}
	if err := cfg.Decode("PostProcess", &post); err != nil {
		return err
	}
	file := filepath.Join(env.Model, workflow.ExportInferenceFile)
	if len(pre.TransformOps) != 1 || pre.TransformOps[0].Name != "TagEncode" {
		return fmt.Errorf("%s: PreProcess.transform_ops: want one TagEncode", file)
	}
	var o tagEncodeOpts
	if err := pre.TransformOps[0].Decode(&o); err != nil {
		return err
	}
	k := len(post.LabelList)
	if len(o.WordVocab) < 2 || k == 0 {
		return fmt.Errorf("%s: want a word_vocab and a label_list", file)
	}
	labels, err := NewLabelMap(post.LabelList)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	enc := &tagEncoder{words: newTagVocab(o.WordVocab), labels: labels, wordLen: o.MaxWordLen}
	if o.MaxWordLen > 0 {
		enc.chars = newTagVocab(o.CharVocab)
	}
	var chain *nn.CRFChain
	switch post.Name {
	case "CRFViterbi":
		if len(post.Transitions) != k || len(post.Start) != k || len(post.End) != k {
			return fmt.Errorf("%s: PostProcess: want %d×%d transitions and %d start/end scores", file, k, k, k)
		}
		chain = &nn.CRFChain{K: k, Start: post.Start, End: post.End}
		for _, row := range post.Transitions {
			if len(row) != k {
				return fmt.Errorf("%s: PostProcess.transitions: a row of %d, want %d", file, len(row), k)
			}
			chain.Trans = append(chain.Trans, row...)
		}
	case "Argmax":
	default:
		return fmt.Errorf("%s: PostProcess.name %q (want CRFViterbi or Argmax)", file, post.Name)
	}
	out := p.OutputNames()[0]
	return tagLines(ctx, env, args, isSpanTags(labels.Names), func(toks []string) ([]string, error) {
		b, err := enc.batch([]TagSentence{{Tokens: toks}})
		if err != nil {
			return nil, err
		}
		in := map[string]*tensor.Tensor{"words": b.Words}
		if b.Chars != nil {
			in["chars"] = b.Chars
		}
		res, err := p.Run(in)
		if err != nil {
			return nil, err
		}
		em := res[out]
		var path [][]int
		if chain != nil {
			path = chain.DecodeBatch(em, b.Lengths)
		} else {
			path = argmaxPaths(em, b.Lengths)
		}
		tags := make([]string, len(path[0]))
		for i, c := range path[0] {
			tags[i] = labels.Names[c]
		}
		return tags, nil
	})
}
