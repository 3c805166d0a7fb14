package nlp

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

func TestParseCoNLL(t *testing.T) {
	in := "-DOCSTART- -X- O O\n\nEU NNP B-ORG\nrejects VBZ O\r\n\n\n" +
		"Peter NNP B-PER\nBlackburn NNP I-PER\n"
	got, err := ParseCoNLL(strings.NewReader(in), "x.conll", CoNLLOptions{Scheme: "BIO"})
	if err != nil {
		t.Fatal(err)
	}
	want := []TagSentence{
		{Tokens: []string{"EU", "rejects"}, Tags: []string{"B-ORG", "O"}, File: "x.conll", Line: 3},
		{Tokens: []string{"Peter", "Blackburn"}, Tags: []string{"B-PER", "I-PER"}, File: "x.conll", Line: 7},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	// second column as the tag, round trip through WriteCoNLL
	got, err = ParseCoNLL(strings.NewReader(in), "x", CoNLLOptions{TagColumn: 1})
	if err != nil || got[0].Tags[0] != "NNP" {
		t.Fatalf("tag column 1: %v %v", got, err)
	}
	var b bytes.Buffer
	if err := WriteCoNLL(&b, want); err != nil {
		t.Fatal(err)
	}
	back, err := ParseCoNLL(&b, "x.conll", CoNLLOptions{Scheme: "BIOES"})
	if err != nil || len(back) != 2 || !reflect.DeepEqual(back[1].Tags, want[1].Tags) {
		t.Fatalf("round trip: %+v %v", back, err)
	}
}

func TestParseCoNLLErrors(t *testing.T) {
	tests := []struct{ in, scheme, want string }{
		{"EU B-ORG\nrejects\n", "", "x.conll:2: want a token and a tag"},
		{"EU B-ORG\nrejects S-ORG\n", "BIO", `x.conll:2: tag "S-ORG" is not a BIO tag`},
		{"EU B-ORG\nrejects X\n", "BIOES", `x.conll:2: tag "X" is not a BIOES tag`},
		{"EU B-ORG\n", "IOX", "unknown tag scheme"},
	}
	for _, tt := range tests {
		_, err := ParseCoNLL(strings.NewReader(tt.in), "x.conll", CoNLLOptions{Scheme: tt.scheme})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseCoNLL(%q, %q) error %v, want %q", tt.in, tt.scheme, err, tt.want)
		}
	}
}
