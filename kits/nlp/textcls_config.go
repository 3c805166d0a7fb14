package nlp

import (
	"paddle/core/config"
	"paddle/core/optim"
)

// Text classification configs (`paddle nlp train|eval|predict -c`) have the
// sections Global / Model / Optimizer / DataLoader, as PaddleClas's:
//
//	Global:     {epochs: 5, seed: 42, max_seq_len: 256, vocab_size: 30000, min_freq: 2, output_dir: ...}
//	Model:      {name: TextCNN, embedding_dim: 64, num_filters: 64, widths: [3, 4, 5]}
//	Optimizer:  {name: Adam, lr: {name: Const, learning_rate: 0.001}}
//	DataLoader: {Train: {dataset: {name: TSVDataset, data_file: train.tsv}, sampler: {batch_size: 32, shuffle: true}}, Eval: ...}
//
// Models: BoE, TextCNN (textmodel.go), BiLSTM, BiGRU, Transformer
// (textmodel_seq.go). Datasets: TSVDataset, JSONLDataset, CSVDataset
// (textdata_formats.go).

// TextGlobalOpts is the Global section.
type TextGlobalOpts struct {
	Epochs         int    `yaml:"epochs" check:"min=1"`
	Seed           uint64 `yaml:"seed"`
	OutputDir      string `yaml:"output_dir"`
	EvalInterval   int    `yaml:"eval_interval"`    // epochs
	SaveInterval   int    `yaml:"save_interval"`    // epochs
	PrintBatchStep int    `yaml:"print_batch_step"` // log every N steps
	MaxSteps       int    `yaml:"max_steps"`        // stop early (tests, smoke runs)
	MaxSeqLen      int    `yaml:"max_seq_len"`      // words (or characters) kept per text (default 256)
	// Unit is what the built vocabulary holds: "word" (default: lower-cased
	// runs of letters and digits, other characters alone) or "char"
	// (characters, with NGram > 1 every 1..NGram character n-gram).
	Unit  string `yaml:"unit"`
	NGram int    `yaml:"ngram"`
	// The word vocabulary is rebuilt from the training file on every run
	// (deterministic: by falling count, then by word), so train, eval and
	// predict agree as long as that file is unchanged.
	VocabSize int `yaml:"vocab_size"` // entries incl. [PAD] and [UNK] (default 30000)
	// Tokenizer, when set, replaces the word vocabulary: a core/tokenizer
	// file (tokenizer.json, BERT vocab.txt, GPT-2 folder) whose ids + 1 the
	// model embeds (0 pads); special tokens are not added.
	Tokenizer string `yaml:"tokenizer"`
	MinFreq   int    `yaml:"min_freq"`   // drop rarer words (default 2)
	LabelFile string `yaml:"label_file"` // one label a line; default: the training file's labels, sorted
	Device    string `yaml:"device"`     // accepted; --device decides
}

// TextDataLoaderOpts is the DataLoader section.
type TextDataLoaderOpts struct {
	Train *TextSplitOpts `yaml:"Train"`
	Eval  *TextSplitOpts `yaml:"Eval"`
}

// TextSplitOpts configure one split.
type TextSplitOpts struct {
	Dataset config.Component `yaml:"dataset"`
	Sampler TextSamplerOpts  `yaml:"sampler"`
}

// TextSamplerOpts are the batching keys.
type TextSamplerOpts struct {
	BatchSize int  `yaml:"batch_size" check:"min=1"`
	Shuffle   bool `yaml:"shuffle"`
	DropLast  bool `yaml:"drop_last"`
}

// TSVDatasetOpts read a `text<TAB>label` file.
type TSVDatasetOpts struct {
	DataFile string `yaml:"data_file"`
	Limit    int    `yaml:"limit"` // keep every k-th line so that about Limit remain (0: all)
}

// TextSchema is the schema of text classification configs.
func TextSchema() *config.Schema {
	s := &config.Schema{
		Sections: map[string]any{
			"Global":     (*TextGlobalOpts)(nil),
			"Model":      (*config.Component)(nil),
			"Optimizer":  (*optim.Config)(nil),
			"DataLoader": (*TextDataLoaderOpts)(nil),
		},
		Selector: "name",
	}
	config.Attach(s, "Model", models)
	config.Attach(s, "DataLoader.*.dataset", textDatasets)
	return s
}
