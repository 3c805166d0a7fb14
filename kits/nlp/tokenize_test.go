package nlp

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/cli/cmdutil"
	"paddle/core/cli/iostreams"
	"paddle/core/config"
)

func writeVocab(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "vocab.txt")
	v := "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nhello\nworld\n##s\n!\nword\n中\n"
	if err := os.WriteFile(p, []byte(v), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func run(t *testing.T, stdin string, args ...string) (string, error) {
	t.Helper()
	ios, in, out, _ := iostreams.Test()
	in.WriteString(stdin)
	f := &cmdutil.Factory{IOStreams: ios}
	f.Settings.Threads = 2
	cmd := newCmdTokenize(f, nil)
	cmd.SetArgs(args)
	cmd.SetOut(out)
	cmd.SetErr(out)
	err := cmd.Execute()
	return out.String(), err
}

func TestTokenizeLines(t *testing.T) {
	vocab := writeVocab(t)
	// \n splits lines, \r stays in the text (BERT treats it as whitespace),
	// an empty line is an empty text, and the last line needs no newline.
	out, err := run(t, "Hello worlds!\r\n\n中 x", "--tokenizer", vocab)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	want := []tokenized{
		{IDs: []int{2, 5, 6, 7, 8, 3}, Tokens: []string{"[CLS]", "hello", "world", "##s", "!", "[SEP]"},
			Offsets: [][2]int{{0, 0}, {0, 5}, {6, 11}, {11, 12}, {12, 13}, {0, 0}}},
		{IDs: []int{2, 3}, Tokens: []string{"[CLS]", "[SEP]"}, Offsets: [][2]int{{0, 0}, {0, 0}}},
		{IDs: []int{2, 10, 1, 3}, Tokens: []string{"[CLS]", "中", "[UNK]", "[SEP]"}, Offsets: [][2]int{{0, 0}, {0, 1}, {2, 3}, {0, 0}}},
	}
	if len(lines) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(lines), len(want), out)
	}
	for i, l := range lines {
		var got tokenized
		if err := json.Unmarshal([]byte(l), &got); err != nil {
			t.Fatalf("line %d %q: %v", i, l, err)
		}
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want[i])
		if string(g) != string(w) {
			t.Errorf("line %d: got %s want %s", i, g, w)
		}
	}
}

func TestTokenizeNoSpecial(t *testing.T) {
	out, err := run(t, "hello\n", "--tokenizer", writeVocab(t), "--no-special-tokens")
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"ids":[5],"tokens":["hello"],"offsets":[[0,5]]}` + "\n"; out != want {
		t.Errorf("got %q want %q", out, want)
	}
}

func TestTokenizeErrors(t *testing.T) {
	_, err := run(t, "", "--tokenizer", "")
	var fe *cmdutil.FlagError
	if !errors.As(err, &fe) {
		t.Errorf("missing --tokenizer: got %v, want a flag error", err)
	}
	_, err = run(t, "", "--tokenizer", filepath.Join(t.TempDir(), "nope.json"))
	var ue *config.UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "nope.json") {
		t.Errorf("missing file: got %v, want a usage error naming the file", err)
	}
}

func TestTokenizeManyLinesKeepOrder(t *testing.T) {
	var sb strings.Builder
	for i := 0; i < 1000; i++ {
		if i%2 == 0 {
			sb.WriteString("hello\n")
		} else {
			sb.WriteString("world world\n")
		}
	}
	out, err := run(t, sb.String(), "--tokenizer", writeVocab(t), "--no-special-tokens")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 1000 {
		t.Fatalf("got %d lines", len(lines))
	}
	for i, l := range lines {
		want := `{"ids":[5],"tokens":["hello"],"offsets":[[0,5]]}`
		if i%2 == 1 {
			want = `{"ids":[6,6],"tokens":["world","world"],"offsets":[[0,5],[6,11]]}`
		}
		if l != want {
			t.Fatalf("line %d: got %s want %s", i, l, want)
		}
	}
}
