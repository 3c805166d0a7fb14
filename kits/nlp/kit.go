// Package nlp is the text kit (PaddleNLP's job). So far it has the
// tokenizers: `paddle nlp tokenize` runs any core/tokenizer tokenizer
// (Hugging Face tokenizer.json, BERT vocab.txt, GPT-2 encoder.json +
// vocab.bpe) over stdin lines.
//
// Where things are:
//
//	kit.go       the kit and its commands
//	tokenize.go  `paddle nlp tokenize`
package nlp

import (
	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/kit"
)

// Kit returns the nlp kit.
func Kit() *kit.Kit {
	return &kit.Kit{
		Name:  "nlp",
		Short: "Text (PaddleNLP): tokenizers identical to Hugging Face's",
		Commands: func(f *cmdutil.Factory, k *kit.Kit) []*cobra.Command {
			return []*cobra.Command{newCmdTokenize(f, nil)}
		},
	}
}
