package tokenizer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func TestCharVocab(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "keys.txt")
	if err := os.WriteFile(p, []byte("a\nb\n中\n文\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tok, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	e, err := tok.Encode("ab中x文", true)
	if err != nil {
		t.Fatal(err)
	}
	wantIDs := []int{0, 1, 2, 4, 3} // x is unknown: [UNK] = len(vocab)
	wantOff := [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}}
	if !equalInts(e.IDs, wantIDs) || !equalOffs(e.Offsets, wantOff) {
		t.Errorf("got %v %v, want %v %v", e.IDs, e.Offsets, wantIDs, wantOff)
	}
	if got := tok.Decode([]int{2, 3, 0}, true); got != "中文a" {
		t.Errorf("decode: got %q", got)
	}
}

func TestLoadFolderErrors(t *testing.T) {
	if _, err := Load(t.TempDir()); err == nil {
		t.Error("empty folder: want an error")
	}
	if _, err := FromJSON([]byte(`{"model":{"type":"Nope"}}`)); err == nil {
		t.Error("unknown model: want an error")
	}
	if _, err := FromJSON([]byte(`{"model":{"type":"BPE","vocab":{"a":0},"merges":["a b"]}}`)); err == nil {
		t.Error("merge with a token outside the vocabulary: want an error")
	}
}

func TestTruncatePad(t *testing.T) {
	tok := FromWordPieceVocab([]string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "a", "b", "c"}, true)
	tok.Truncation = &Truncation{MaxLength: 4}
	e, err := tok.Encode("a b c a b", true)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{2, 4, 5, 3}; !equalInts(e.IDs, want) {
		t.Errorf("right truncation: got %v want %v", e.IDs, want)
	}
	tok.Truncation = &Truncation{MaxLength: 4, Left: true}
	e, _ = tok.Encode("a b c a b", true)
	if want := []int{2, 4, 5, 3}; !equalInts(e.IDs, want) || e.Offsets[1] != [2]int{6, 7} {
		t.Errorf("left truncation: got %v %v", e.IDs, e.Offsets)
	}
	tok.Truncation = nil
	tok.Padding = &Padding{PadToMultipleOf: 4, PadToken: "[PAD]"}
	es, err := tok.EncodeBatch([]string{"a", "a b c"}, true, 2)
	if err != nil {
		t.Fatal(err)
	}
	if es[0].Len() != 8 || es[1].Len() != 8 || es[0].AttentionMask[3] != 0 || es[0].AttentionMask[2] != 1 {
		t.Errorf("padding: got %v %v mask %v", es[0].IDs, es[1].IDs, es[0].AttentionMask)
	}
}

func TestUTF8Lossy(t *testing.T) {
	// Rust's from_utf8_lossy: one U+FFFD per maximal invalid subsequence.
	for _, c := range []struct{ in, want string }{
		{"a\xF0\x90\x80b", "a\uFFFDb"},
		{"\xff\xfe", "\uFFFD\uFFFD"},
		{"\xE4\xB8", "\uFFFD"},
		{"\xED\xA0\x80", "\uFFFD\uFFFD\uFFFD"}, // surrogates are not a valid prefix
		{"ok", "ok"},
	} {
		if got := utf8Lossy([]byte(c.in)); got != c.want {
			t.Errorf("%q: got %q want %q", c.in, got, c.want)
		}
	}
}

// TestDecoders pins decoder outputs printed by the library (npm
// @anush008/tokenizers 0.6.0, tokenizers 0.22.2) for the same inputs.
func TestDecoders(t *testing.T) {
	for _, c := range []struct {
		name string
		d    Decoder
		in   []string
		want string
	}{
		{"metaspace", metaspaceDec{'▁', true}, []string{"▁▁a", "▁b▁", "c"}, "a b c"},
		{"strip", stripDec{'x', 2, 1}, []string{"xxxaxx", "b", "xab"}, "xaxbab"},
		{"bytefallback", byteFallbackDec{}, []string{"<0xE4>", "<0xB8>", "<0x96>", "a", "<0xFF>", "<0x41>"}, "世a\uFFFD\uFFFD"},
		{"wordpiece", wordPieceDec{"##", true}, []string{"hello", "##s", ",", "do", "not", "don", "'", "t"}, "hellos, do not don ' t"},
		{"bpe", bpeDec{"</w>"}, []string{"hel", "lo</w>", "wor", "ld</w>"}, "hello world"},
	} {
		var got string
		for _, s := range c.d.decodeChain(c.in) {
			got += s
		}
		if got != c.want {
			t.Errorf("%s: got %q want %q", c.name, got, c.want)
		}
	}
}

// TestPadSingle pins the library's padding of a single encode and of a batch
// with batch-longest padding and pad_to_multiple_of 8 (printed by
// @anush008/tokenizers 0.6.0 for testdata/tokenizer_wordlevel.json.gz).
func TestPadSingle(t *testing.T) {
	var raw json.RawMessage
	readGz(t, "tokenizer_wordlevel.json.gz", &raw)
	tok, err := FromJSON(raw)
	if err != nil {
		t.Fatal(err)
	}
	tok.Padding = &Padding{PadID: 1, PadToken: "[PAD]", PadToMultipleOf: 8}
	e, err := tok.Encode("the jury said", true)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{429, 260, 385, 1, 1, 1, 1, 1}; !equalInts(e.IDs, want) || !equalInts(e.AttentionMask, []int{1, 1, 1, 0, 0, 0, 0, 0}) {
		t.Errorf("single: got %v %v want %v", e.IDs, e.AttentionMask, want)
	}
	es, err := tok.EncodeBatch([]string{"the jury said", "a"}, true, 2)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{34, 1, 1, 1, 1, 1, 1, 1}; !equalInts(es[1].IDs, want) {
		t.Errorf("batch: got %v want %v", es[1].IDs, want)
	}
}

// TestSerdeFloat pins serde_json's default float parsing: "-9.839729134330291"
// comes out one ulp below the correctly rounded value (seen through the
// library's Unigram choices; the same two-step computation in JS gives it).
func TestSerdeFloat(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
	}{
		{"-9.839729134330291", -9.839729134330293},
		{"-7.816363535748419", -7.816363535748419},
		{"0", 0}, {"-0.0", 0}, {"1e3", 1000}, {"2.5E-3", 0.0025}, {"123", 123},
		{"18446744073709551616", 18446744073709551616}, // one past u64: last digit counted as a power of ten
	} {
		got, err := parseSerdeFloat(c.in)
		if err != nil || got != c.want {
			t.Errorf("%s: got %v (%v) want %v", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"", "-", "1.", "1e", "abc", "1.5x"} {
		if _, err := parseSerdeFloat(in); err == nil {
			t.Errorf("%q: want an error", in)
		}
	}
}

func TestInvalidUTF8(t *testing.T) {
	tok := FromCharVocab([]string{"a", "\uFFFD"})
	e, err := tok.Encode("a\xff\xfea", true)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 1, 0}; !equalInts(e.IDs, want) || e.Offsets[2] != [2]int{2, 3} {
		t.Errorf("got %v %v, want %v", e.IDs, e.Offsets, want)
	}
}
