package nlp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/config"
	"paddle/core/tokenizer"
)

// tokenizeOptions are the inputs of `paddle nlp tokenize`.
type tokenizeOptions struct {
	Factory   *cmdutil.Factory
	Path      string // --tokenizer
	NoSpecial bool   // --no-special-tokens
	Threads   int
}

func newCmdTokenize(f *cmdutil.Factory, runF func(*tokenizeOptions) error) *cobra.Command {
	opts := &tokenizeOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "tokenize --tokenizer PATH",
		Short: "Tokenize stdin lines with a Hugging Face, BERT or GPT-2 tokenizer",
		Long: "Reads text from stdin, one text per line (split on \\n only: \\r stays part of the\n" +
			"text), and writes one JSON object per line:\n" +
			"  {\"ids\": [...], \"tokens\": [...], \"offsets\": [[start, end], ...]}\n" +
			"with offsets in Unicode code points of the line, as Hugging Face reports them.\n" +
			"Special tokens (BOS, [CLS] ... [SEP]) are added as Hugging Face's encode does,\n" +
			"unless --no-special-tokens. Invalid UTF-8 is replaced by U+FFFD first.\n\n" +
			"PATH is a tokenizer.json, a BERT-style vocab.txt (or a one-char-per-line\n" +
			"character list), or a folder with tokenizer.json, GPT-2's encoder.json +\n" +
			"vocab.bpe, or vocab.txt.",
		Example: "  echo 'Hello world' | paddle nlp tokenize --tokenizer qwen3/tokenizer.json\n" +
			"  paddle nlp tokenize --tokenizer gpt2/ --no-special-tokens < corpus.txt > ids.jsonl",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Path == "" {
				return cmdutil.FlagErrorf("--tokenizer is required")
			}
			opts.Threads = f.Settings.Threads
			if runF != nil {
				return runF(opts)
			}
			return tokenizeRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Path, "tokenizer", "", "tokenizer.json, vocab.txt, or a folder (encoder.json + vocab.bpe)")
	cmd.Flags().BoolVar(&opts.NoSpecial, "no-special-tokens", false, "do not add the post-processor's special tokens")
	cmdutil.SupportsFormats(cmd, "jsonl")
	return cmd
}

// tokenized is one output line.
type tokenized struct {
	IDs     []int    `json:"ids"`
	Tokens  []string `json:"tokens"`
	Offsets [][2]int `json:"offsets"`
}

const tokenizeBatch = 256

func tokenizeRun(opts *tokenizeOptions) error {
	tok, err := tokenizer.Load(opts.Path)
	if err != nil {
		return config.Usage(err)
	}
	io := opts.Factory.IOStreams
	return tokenizeStream(tok, io.In, io.Out, !opts.NoSpecial, max(1, opts.Threads))
}

// tokenizeStream reads lines on one goroutine and encodes whatever has
// arrived (up to a batch) in parallel, so piped input runs at full speed and
// interactive input is answered line by line.
func tokenizeStream(tok *tokenizer.Tokenizer, in io.Reader, out io.Writer, special bool, threads int) error {
	lines := make(chan string, 4*tokenizeBatch)
	readErr := make(chan error, 1)
	go func() {
		defer close(lines)
		r := bufio.NewReaderSize(in, 1<<16)
		for {
			s, err := r.ReadString('\n')
			if len(s) > 0 || (err == nil) {
				lines <- strings.ToValidUTF8(strings.TrimSuffix(s, "\n"), "\uFFFD")
			}
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = nil
				}
				readErr <- err
				return
			}
		}
	}()
	w := bufio.NewWriterSize(out, 1<<16)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	batch := make([]string, 0, tokenizeBatch)
	for first := range lines {
		batch = append(batch[:0], first)
	fill:
		for len(batch) < tokenizeBatch {
			select {
			case s, ok := <-lines:
				if !ok {
					break fill
				}
				batch = append(batch, s)
			default:
				break fill
			}
		}
		encs, err := tok.EncodeEach(batch, special, threads) // one line, one encode: no padding across lines
		if err != nil {
			return err
		}
		for _, e := range encs {
			buf.Reset()
			t := tokenized{IDs: e.IDs, Tokens: e.Tokens, Offsets: e.Offsets}
			if t.IDs == nil {
				t.IDs, t.Tokens, t.Offsets = []int{}, []string{}, [][2]int{}
			}
			if err := enc.Encode(t); err != nil {
				return err
			}
			if _, err := w.Write(buf.Bytes()); err != nil {
				return fmt.Errorf("write: %w", err)
			}
		}
		if len(lines) == 0 {
			if err := w.Flush(); err != nil {
				return fmt.Errorf("write: %w", err)
			}
		}
	}
	if err := <-readErr; err != nil {
		return fmt.Errorf("read stdin: %w", err)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}
