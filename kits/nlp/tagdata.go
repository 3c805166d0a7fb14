package nlp

import (
	"context"
	"fmt"
	"iter"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"

	"paddle/core/config"
	"paddle/core/tensor"
)

// Tagging configs have the classification configs' sections (Global,
// Model, Optimizer, DataLoader; see textcls_config.go) with a tagger as
// Model.name and these datasets:
//
//	DataLoader:
//	  Train: {dataset: {name: BrownDataset, task: pos, split: train}, sampler: {batch_size: 32, shuffle: true}}
//	  Eval:  {dataset: {name: CoNLLDataset, data_file: dev.conll, scheme: BIO, strict: true}, ...}
//
// Global.vocab_size and min_freq shape the word vocabulary (lower-cased,
// digits read as 0), Global.max_seq_len cuts training sentences (default
// 256), Global.label_file fixes the tag order (default: the training tags,
// sorted).

// BrownDatasetOpts read the Brown corpus (brown.go).
type BrownDatasetOpts struct {
	DataDir string `yaml:"data_dir"` // default ${PADDLE_CACHE}/data/brown
	Task    string `yaml:"task"`     // pos (universal tags) or ner (proper-noun spans, BIO)
	Split   string `yaml:"split"`    // train (450 files) or test (the 50 held-out files)
	Limit   int    `yaml:"limit"`    // keep every k-th sentence so that about Limit remain (0: all)
	Strict  bool   `yaml:"strict"`   // span F1 in seqeval's strict mode (IOB2) instead of the default
}

// CoNLLDatasetOpts read a CoNLL file (conll.go).
type CoNLLDatasetOpts struct {
	DataFile  string `yaml:"data_file"`
	TagColumn int    `yaml:"tag_column"` // default -1: the last column
	Scheme    string `yaml:"scheme"`     // BIO or BIOES: checks the tags; strict mode's scheme
	Limit     int    `yaml:"limit"`
	Strict    bool   `yaml:"strict"` // span F1 in seqeval's strict mode under scheme
}

// TagSchema is the schema of tagging configs: the classification configs'
// sections, with the taggers as Model and the tagging data sets.
func TagSchema() *config.Schema {
	s := TextSchema()
	s.Components, s.Kinds = nil, nil
	config.Attach(s, "Model", taggers)
	config.Attach(s, "DataLoader.*.dataset", tagDatasets)
	return s
}

// KitSchema is the nlp kit's schema, the tagging and classification
// schemas merged; a tagging config is validated against it, so a
// classification data set in one is reported by the tagging data sets'
// registry.
func KitSchema() *config.Schema { return config.MergeSchemas(TagSchema(), TextSchema()) }

// IsTaggingConfig reports whether cfg's Model.name is a tagger.
func IsTaggingConfig(cfg *config.Config) bool {
	n, ok := cfg.Node("Model.name")
	return ok && taggers.Has(n.Value)
}

// tagSplit is what a split's dataset component gives.
type tagSplit struct {
	sents  []TagSentence
	strict bool
	scheme string
}

// tagSource is a read tagging dataset component and its limit.
type tagSource struct {
	split tagSplit
	limit int
}

// tagDatasets are the data sets a tagging config's DataLoader.*.dataset can name.
var tagDatasets = newTagDatasets()

func newTagDatasets() *config.Registry[struct{}, tagSource] {
	r := config.NewRegistry[struct{}, tagSource]("tagging dataset")
	config.Add(r, "BrownDataset", BrownDatasetOpts{}, func(c config.Component, o BrownDatasetOpts, _ struct{}) (tagSource, error) {
		var out tagSplit
		dir := o.DataDir
		if dir == "" {
			dir = defaultBrownDir()
		}
		train, test, err := BrownFiles(dir)
		if err != nil {
			return tagSource{}, c.Errorf("%v", err)
		}
		files := train
		switch o.Split {
		case "train", "":
		case "test":
			files = test
		default:
			return tagSource{}, c.Errorf("split %q (want train or test)", o.Split)
		}
		if out.sents, err = ReadBrown(files, o.Task); err != nil {
			return tagSource{}, c.Errorf("%v", err)
		}
		out.strict, out.scheme = o.Strict, "BIO"
		return tagSource{out, o.Limit}, nil
	})
	config.Add(r, "CoNLLDataset", CoNLLDatasetOpts{}, func(c config.Component, o CoNLLDatasetOpts, _ struct{}) (tagSource, error) {
		var out tagSplit
		if o.DataFile == "" {
			return tagSource{}, c.Errorf("data_file is required")
		}
		var err error
		if out.sents, err = ReadCoNLL(o.DataFile, CoNLLOptions{TagColumn: o.TagColumn, Scheme: o.Scheme}); err != nil {
			return tagSource{}, err
		}
		if o.Strict && o.Scheme == "" {
			return tagSource{}, c.Errorf("strict needs a scheme (BIO or BIOES)")
		}
		out.strict, out.scheme = o.Strict, o.Scheme
		return tagSource{out, o.Limit}, nil
	})
	return r
}

// readTagSplit reads the sentences of a split's dataset component.
func readTagSplit(c config.Component) (tagSplit, error) {
	src, err := tagDatasets.Build(c, struct{}{})
	if err != nil {
		return tagSplit{}, err
	}
	out, limit := src.split, src.limit
	if len(out.sents) == 0 {
		return out, c.Errorf("no sentences")
	}
	if limit > 0 && len(out.sents) > limit {
		k := float64(len(out.sents)) / float64(limit)
		sub := make([]TagSentence, limit)
		for i := range sub {
			sub[i] = out.sents[int(float64(i)*k)]
		}
		out.sents = sub
	}
	return out, nil
}

// isSpanTags reports whether labels are BIO/BIOES-style span tags: O or
// <prefix>-<type>, with at least one typed tag.
func isSpanTags(labels []string) bool {
	typed := false
	for _, l := range labels {
		switch {
		case l == "O":
		case len(l) > 2 && l[1] == '-' && strings.IndexByte("BIESUL", l[0]) >= 0:
			typed = true
		default:
			return false
		}
	}
	return typed
}

// Vocabulary: index 0 pads, 1 is unknown.
const (
	tagPad = 0
	tagUNK = 1
)

// tagVocab maps strings (words or chars) to ids.
type tagVocab struct {
	Items []string // [PAD], [UNK], then entries
	index map[string]int
}

func newTagVocab(items []string) *tagVocab {
	v := &tagVocab{Items: items, index: make(map[string]int, len(items))}
	for i, s := range items {
		v.index[s] = i
	}
	return v
}

func (v *tagVocab) id(s string) int64 {
	if i, ok := v.index[s]; ok {
		return int64(i)
	}
	return tagUNK
}

var digitRun = regexp.MustCompile(`[0-9]`)

// normWord is how words are looked up: lower case, every digit 0.
func normWord(w string) string { return digitRun.ReplaceAllString(strings.ToLower(w), "0") }

// buildTagVocabs counts the training tokens: words (normalised) seen at
// least minFreq times, the size most frequent (ties by word), and every char.
func buildTagVocabs(sents []TagSentence, size, minFreq int) (words, chars *tagVocab) {
	wc, cc := map[string]int{}, map[string]int{}
	for _, s := range sents {
		for _, t := range s.Tokens {
			wc[normWord(t)]++
			for _, r := range t {
				cc[string(r)]++
			}
		}
	}
	top := func(counts map[string]int, size, minFreq int) []string {
		keys := make([]string, 0, len(counts))
		for k, n := range counts {
			if n >= minFreq {
				keys = append(keys, k)
			}
		}
		sort.Slice(keys, func(i, j int) bool {
			if counts[keys[i]] != counts[keys[j]] {
				return counts[keys[i]] > counts[keys[j]]
			}
			return keys[i] < keys[j]
		})
		if size > 2 && len(keys) > size-2 {
			keys = keys[:size-2]
		}
		return append([]string{"[PAD]", "[UNK]"}, keys...)
	}
	return newTagVocab(top(wc, size, minFreq)), newTagVocab(top(cc, 0, 1))
}

// writeTagVocab writes one item a line. Chars may be any rune but a
// newline (which the word splitters never produce).
func writeTagVocab(path string, v *tagVocab) error {
	return writeLines(path, v.Items)
}

func readTagVocab(path string) (*tagVocab, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tagging vocabulary: %w", err)
	}
	items := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(items) < 2 || items[0] != "[PAD]" || items[1] != "[UNK]" {
		return nil, fmt.Errorf("%s: want [PAD] and [UNK] on the first two lines", path)
	}
	return newTagVocab(items), nil
}

// TagBatch is a collated batch of sentences padded to the longest.
type TagBatch struct {
	Words   *tensor.Tensor // (N, T) int64
	Chars   *tensor.Tensor // (N, T, C) int64; nil without char features
	Tags    *tensor.Tensor // (N, T) int64 (0 in the padding)
	Lengths []int
	Sents   []TagSentence
}

// tagEncoder turns sentences into batches.
type tagEncoder struct {
	words, chars *tagVocab // chars nil: no char features
	labels       *LabelMap
	wordLen      int
}

func (e *tagEncoder) batch(ss []TagSentence) (TagBatch, error) {
	n, t := len(ss), 1
	for _, s := range ss {
		t = max(t, len(s.Tokens))
	}
	b := TagBatch{Words: tensor.New(tensor.Int64, n, t), Tags: tensor.New(tensor.Int64, n, t), Lengths: make([]int, n), Sents: ss}
	wv, tv := b.Words.I64(), b.Tags.I64()
	var cv []int64
	if e.chars != nil {
		b.Chars = tensor.New(tensor.Int64, n, t, e.wordLen)
		cv = b.Chars.I64()
	}
	for i, s := range ss {
		b.Lengths[i] = len(s.Tokens)
		for j, w := range s.Tokens {
			wv[i*t+j] = e.words.id(normWord(w))
			if cv != nil {
				k := 0
				for _, r := range w {
					if k == e.wordLen {
						break
					}
					cv[(i*t+j)*e.wordLen+k] = e.chars.id(string(r))
					k++
				}
			}
			if s.Tags != nil {
				c, ok := e.labels.Index(s.Tags[j])
				if !ok {
					return b, fmt.Errorf("%s:%d: tag %q is not in the label list %v", s.File, s.Line, s.Tags[j], e.labels.Names)
				}
				tv[i*t+j] = int64(c)
			}
		}
	}
	return b, nil
}

// lengthGroups returns the batches of one epoch as sentence indices: with
// shuffle, the epoch's permutation is cut into pools of 50 batches, each
// pool sorted by length and cut into batches of bs, and the batches
// shuffled; without, the sentences in order. There are ceil(len/bs) every
// epoch.
func lengthGroups(sents []TagSentence, bs int, shuffle bool, seed uint64, epoch int) [][]int {
	idx := make([]int, len(sents))
	for i := range idx {
		idx[i] = i
	}
	var r *rand.Rand
	if shuffle {
		r = rand.New(rand.NewPCG(seed, uint64(epoch)+1))
		r.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		pool := 50 * bs
		for lo := 0; lo < len(idx); lo += pool {
			p := idx[lo:min(lo+pool, len(idx))]
			sort.SliceStable(p, func(i, j int) bool { return len(sents[p[i]].Tokens) < len(sents[p[j]].Tokens) })
		}
	}
	var groups [][]int
	for lo := 0; lo < len(idx); lo += bs {
		groups = append(groups, idx[lo:min(lo+bs, len(idx))])
	}
	if shuffle {
		r.Shuffle(len(groups), func(i, j int) { groups[i], groups[j] = groups[j], groups[i] })
	}
	return groups
}

// groupBatch is the batch of sentences g.
func (e *tagEncoder) groupBatch(sents []TagSentence, g []int) (TagBatch, error) {
	ss := make([]TagSentence, len(g))
	for i, k := range g {
		ss[i] = sents[k]
	}
	return e.batch(ss)
}

// lengthBatches yields the batches of one epoch (lengthGroups) from batch
// start on.
func (e *tagEncoder) lengthBatches(sents []TagSentence, bs int, shuffle bool, seed uint64) func(ctx context.Context, epoch, start int) iter.Seq2[TagBatch, error] {
	return func(ctx context.Context, epoch, start int) iter.Seq2[TagBatch, error] {
		groups := lengthGroups(sents, bs, shuffle, seed, epoch)
		return func(yield func(TagBatch, error) bool) {
			for _, g := range groups[min(start, len(groups)):] {
				if err := ctx.Err(); err != nil {
					yield(TagBatch{}, err)
					return
				}
				b, err := e.groupBatch(sents, g)
				if !yield(b, err) || err != nil {
					return
				}
			}
		}
	}
}

// tagLabels reads the tag list: label.txt beside a checkpoint, else
// Global.label_file, else the training tags sorted.
func tagLabels(runDir, labelFile string, train []TagSentence) (*LabelMap, error) {
	switch {
	case runDir != "":
		return ReadLabelFile(filepath.Join(runDir, "label.txt"))
	case labelFile != "":
		return ReadLabelFile(labelFile)
	}
	seen := map[string]bool{}
	for _, s := range train {
		for _, t := range s.Tags {
			seen[t] = true
		}
	}
	return NewLabelMap(slices.Sorted(maps.Keys(seen)))
}

// abbreviations keep their period when tokenizeText splits text.
var abbreviations = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "dr": true, "jr": true, "sr": true, "st": true, "mt": true, "prof": true,
	"gen": true, "gov": true, "sen": true, "rep": true, "rev": true, "lt": true, "col": true, "capt": true, "sgt": true,
	"co": true, "corp": true, "inc": true, "ltd": true, "bros": true, "vs": true, "etc": true, "no": true,
	"jan": true, "feb": true, "aug": true, "sept": true, "oct": true, "nov": true, "dec": true,
}

// tokenizeText splits raw text into tokens the way the Brown corpus and
// CoNLL files are tokenised (words with inner apostrophes, hyphens, dots
// and commas kept, e.g. "Atlanta's", "term-end", "1,119"; the period of a
// few abbreviations such as "Mr." and "Jr." kept; other punctuation
// alone) and returns each token's range in code points.
func tokenizeText(text string) (tokens []string, spans [][2]int) {
	runes := []rune(text)
	isWord := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) }
	for i := 0; i < len(runes); {
		r := runes[i]
		switch {
		case unicode.IsSpace(r):
			i++
			continue
		case isWord(r):
			j := i + 1
			for j < len(runes) {
				if isWord(runes[j]) {
					j++
				} else if strings.ContainsRune("'’-.,", runes[j]) && j+1 < len(runes) && isWord(runes[j+1]) {
					j += 2
				} else {
					break
				}
			}
			if j < len(runes) && runes[j] == '.' && abbreviations[strings.ToLower(string(runes[i:j]))] {
				j++ // "Mr." is one token in Brown and CoNLL
			}
			tokens, spans = append(tokens, string(runes[i:j])), append(spans, [2]int{i, j})
			i = j
		default:
			tokens, spans = append(tokens, string(r)), append(spans, [2]int{i, i + 1})
			i++
		}
	}
	return tokens, spans
}
