// Package nlp is the text kit (PaddleNLP's job): `paddle nlp tokenize` runs
// any core/tokenizer tokenizer (Hugging Face tokenizer.json, BERT vocab.txt,
// GPT-2 encoder.json + vocab.bpe) over stdin lines; `paddle nlp
// train|eval|predict|export` train text classifiers (TextCNN, bag of
// embeddings, BiLSTM/BiGRU, Transformer) on TSV/CSV/JSONL files and sequence
// taggers (BiLSTM-CRF, Transformer-CRF) on CoNLL files or the Brown corpus;
// `paddle serve nlp` serves a classifier.
//
// Where things are:
//
//	kit.go        the kit, its commands, and the classify/tag dispatch
//	tokenize.go   `paddle nlp tokenize`
//	textdata*.go  TSV/CSV/JSONL readers, label maps, word and char n-gram vocabularies, Brown genres
//	textcls_config.go textcls.go  classification config schema, train / eval / predict
//	textmodel*.go TextCNN, BoE, BiLSTM/BiGRU with attention pooling, Transformer encoder
//	export.go serve.go  classification export (model.onnx + inference.yaml), predict --model, serve
//	conll.go brown.go   CoNLL reader; Brown corpus, universal POS tags, proper-name spans
//	tag*.go       taggers: data, models (CRF from core/nn), runner, predict, export
//	spam.go fortunes.go  SpamAssassin and fortunes (language id) data sets, `paddle nlp dataset`
package nlp

import (
	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/cli/predict"
	"paddle/core/kit"
)

// Kit returns the nlp kit.
func Kit() *cmdutil.Kit {
	return &cmdutil.Kit{
		Kit: (&kit.Kit{
			Name:          "nlp",
			Short:         "Text (PaddleNLP): tokenizers identical to Hugging Face's, text classification, sequence labelling",
			PredictRecord: PredictRecord,
		}).WithTasks(
			// Model.name a tagger → tagging (tagrunner.go), else text classification.
			kit.Task{Name: "tag", Match: IsTaggingConfig, Schema: TagSchema(), Build: buildTagging},
			kit.Task{Name: "cls", Schema: TextSchema(), Build: build},
		),
		Serve: Serve, // paddle serve nlp
		Commands: func(f *cmdutil.Factory, k *kit.Kit) []*cobra.Command {
			return []*cobra.Command{newCmdTokenize(f, nil), predictCmd(predict.NewCmdPredict(f, k, nil)), newCmdDataset(f)}
		},
	}
}

// predictCmd says what the shared predict verb reads in this kit: text
// lines, not image paths.
func predictCmd(c *cobra.Command) *cobra.Command {
	c.Use = "predict --weights <checkpoint dir> <text file>... | -"
	c.Short = "Classify or tag text lines from files or stdin (-): jsonl {text, label, score} or {text, entities | tokens, tags}"
	c.Example = "  paddle nlp predict --weights output/textcnn_spam/best mails.txt\n" +
		"  printf 'Win a FREE prize now\\n' | paddle nlp predict --weights output/textcnn_spam/best -"
	return c
}
