package nlp

import (
	"encoding/csv"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadJSONL(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "a.jsonl", `{"text": "good film", "label": "pos"}`+"\n\n"+
		`{"label": "neg", "text": "bad\tfilm\nreally", "id": 7}`+"\r\n"+`{"text": "meh", "label": "pos"}`+"\n")
	ex, labels, err := ReadJSONL(p, "", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(labels.Names, ",") != "neg,pos" || len(ex) != 3 ||
		ex[0] != (Example{"good film", 1}) || ex[1] != (Example{"bad\tfilm\nreally", 0}) || ex[2].Label != 1 {
		t.Fatalf("labels %v examples %+v", labels.Names, ex)
	}
	// other keys; numeric labels become their decimal names
	p2 := writeFile(t, dir, "b.jsonl", `{"sentence": "x", "y": 1}`+"\n"+`{"sentence": "z", "y": 0}`+"\n")
	ex, labels, err = ReadJSONL(p2, "sentence", "y", nil)
	if err != nil || strings.Join(labels.Names, ",") != "0,1" || ex[0] != (Example{"x", 1}) {
		t.Fatalf("numeric labels: %v %v %+v", err, labels, ex)
	}
	lm, _ := NewLabelMap([]string{"neg", "pos"})
	for _, c := range []struct{ body, want string }{
		{`{"text": "a", "label": "pos"}` + "\n" + `{"text": "b", "label": "pos"`, "a.jsonl:2: want a JSON object"},
		{"\n" + `{"txt": "a", "label": "pos"}`, `a.jsonl:2: no "text" key (set text_key)`},
		{`{"text": "a"}`, `a.jsonl:1: no "label" key`},
		{`{"text": 3, "label": "pos"}`, `a.jsonl:1: "text": want a string, got 3`},
		{`{"text": "a", "label": ""}`, `a.jsonl:1: "label": empty label`},
		{`{"text": "a", "label": ["pos"]}`, `a.jsonl:1: "label": want a string or a number`},
		{`{"text": "a", "label": "pos"}` + "\n" + `{"text": "b", "label": "neutral"}`, `a.jsonl:2: label "neutral" is not in the label map [neg pos]`},
	} {
		writeFile(t, dir, "a.jsonl", c.body)
		if _, _, err := ReadJSONL(p, "", "", lm); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err %v, want %q", c.body, err, c.want)
		}
	}
}

func TestReadCSV(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "a.csv", "id,label,text\n1,pos,\"good, \"\"great\"\" film\"\n\n2,neg,\"two\nlines\"\n3,pos,meh\n")
	ex, labels, err := ReadCSV(p, CSVDatasetOpts{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(labels.Names, ",") != "neg,pos" || len(ex) != 3 ||
		ex[0] != (Example{`good, "great" film`, 1}) || ex[1] != (Example{"two\nlines", 0}) || ex[2].Label != 1 {
		t.Fatalf("labels %v examples %+v", labels.Names, ex)
	}
	// no header: columns by number; another delimiter
	no := false
	p2 := writeFile(t, dir, "b.csv", "pos;nice\nneg;awful\n")
	ex, _, err = ReadCSV(p2, CSVDatasetOpts{Header: &no, TextColumn: "1", LabelColumn: "0", Delimiter: ";"}, nil)
	if err != nil || len(ex) != 2 || ex[1] != (Example{"awful", 0}) {
		t.Fatalf("no header: %v %+v", err, ex)
	}
	for _, c := range []struct {
		body string
		o    CSVDatasetOpts
		want string
	}{
		{"sentence,label\na,pos\n", CSVDatasetOpts{}, `a.csv:1: header ["sentence" "label"] lacks the text column "text"`},
		{"text,label\na,pos\n\"b,neg\n", CSVDatasetOpts{}, `a.csv: parse error on line 3`},
		{"text,label\na,pos\nb\n", CSVDatasetOpts{}, "a.csv:3: 1 fields, want at least 2"},
		{"text,label\na,pos\n\"b\nc\",\n", CSVDatasetOpts{}, "a.csv:3: empty label"},
		{"a,pos\n", CSVDatasetOpts{Header: &no, TextColumn: "x"}, `column "x": without a header, columns are 0-based numbers`},
		{"a,pos\n", CSVDatasetOpts{Delimiter: "::"}, `delimiter "::": want one character`},
	} {
		writeFile(t, dir, "a.csv", c.body)
		if _, _, err := ReadCSV(p, c.o, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err %v, want %q", c.body, err, c.want)
		}
	}
}

func TestCharSegmenter(t *testing.T) {
	s, err := NewSegmenter("char", 2)
	if err != nil {
		t.Fatal(err)
	}
	// " ab  C\n" → " ab c ": 1-grams a b c (lone spaces dropped), 2-grams " a" ab "b " " c" "c "
	got := strings.Join(s.Split(" Ab  C\n", 0), "|")
	if want := " a|a|ab|b|b | c|c|c "; got != want {
		t.Fatalf("Split = %q, want %q", got, want)
	}
	if got := strings.Join(s.Split("abcdef", 2), "|"); got != " a|a|ab|b" {
		t.Fatalf("Split to 2 chars = %q", got)
	}
	one, _ := NewSegmenter("char", 0)
	if got := strings.Join(one.Split("中文 ok", 0), "|"); got != " |中|文| |o|k| " {
		t.Fatalf("1-grams = %q", got)
	}
	for _, c := range []struct {
		unit string
		n    int
	}{{"word", 2}, {"byte", 1}, {"char", 9}} {
		if _, err := NewSegmenter(c.unit, c.n); err == nil {
			t.Errorf("NewSegmenter(%q, %d) accepted", c.unit, c.n)
		}
	}
	v := BuildVocab([]string{"ab", "ab", "ba"}, s, 0, 2)
	if strings.Join(v.Words, "|") != "[PAD]|[UNK]|a|b| a|a |ab|b |b" && len(v.Words) < 5 {
		t.Fatalf("vocab %q", v.Words)
	}
}

func TestCleanFortune(t *testing.T) {
	in := "\x1b[1mBold\x1b[0m  _\bu_\bn_\bd_\be_\br\tline\r\n\n   -- Someone\x07\xff\n"
	if got, want := CleanFortune(in), "Bold under line -- Someone"; got != want {
		t.Fatalf("CleanFortune = %q, want %q", got, want)
	}
	got := ParseFortunes([]byte("first fortune, long enough\n%\n%\n  /\\_/\\ \n ( o.o )\n%\nsecond one\nhas two lines\n"))
	if len(got) != 2 || got[1] != "second one has two lines" {
		t.Fatalf("ParseFortunes = %q", got)
	}
}

// JSONLDataset and CSVDataset in a config: the toy task trains from a JSONL
// file with renamed keys and evaluates on a CSV file without a header, the
// eval set cut to 10 by limit; an unknown dataset name lists the known ones.
func TestDatasetComponents(t *testing.T) {
	dir := t.TempDir()
	train, dev := toyData(t, dir)
	ex, _, err := ReadTSV(train, nil)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"neg", "pos"}
	var jl strings.Builder
	for _, e := range ex {
		b, _ := json.Marshal(map[string]string{"sentence": e.Text, "y": names[e.Label]})
		jl.Write(append(b, '\n'))
	}
	jsonl := writeFile(t, dir, "train.jsonl", jl.String())
	dx, _, err := ReadTSV(dev, nil)
	if err != nil {
		t.Fatal(err)
	}
	var cs strings.Builder
	w := csv.NewWriter(&cs)
	for _, e := range dx {
		w.Write([]string{names[e.Label], e.Text})
	}
	w.Flush()
	csvFile := writeFile(t, dir, "dev.csv", cs.String())
	cfg := writeFile(t, dir, "m.yaml", `
Global: {epochs: 6, seed: 1, print_batch_step: 100, min_freq: 1}
Model: {name: BoE, embedding_dim: 16, hidden_dim: 16}
Optimizer: {name: Adam, lr: {name: Const, learning_rate: 0.01}}
DataLoader:
  Train: {dataset: {name: JSONLDataset, data_file: `+jsonl+`, text_key: sentence, label_key: y}, sampler: {batch_size: 16, shuffle: true}}
  Eval: {dataset: {name: CSVDataset, data_file: `+csvFile+`, header: false, text_column: 1, label_column: 0, limit: 10}, sampler: {batch_size: 20}}
`)
	out := filepath.Join(dir, "out")
	if code, _, errOut := paddle(t, "", "nlp", "train", "-c", cfg, "--output", out); code != 0 {
		t.Fatalf("train exit %d:\n%s", code, errOut)
	}
	code, stdout, errOut := paddle(t, "", "nlp", "eval", "-c", cfg, "--weights", filepath.Join(out, "latest"), "--format", "json")
	if code != 0 || !strings.Contains(stdout, `"samples":10`) || !strings.Contains(stdout, `"accuracy":1`) {
		t.Fatalf("eval exit %d: %s\n%s", code, stdout, errOut)
	}
	code, _, errOut = paddle(t, "", "nlp", "train", "-c", cfg, "--output", out, "-o", "DataLoader.Train.dataset.name=ParquetDataset")
	if code != 2 || !strings.Contains(errOut, `unknown "ParquetDataset" (known: CSVDataset, JSONLDataset, TSVDataset`) {
		t.Errorf("unknown dataset: exit %d\n%s", code, errOut)
	}
}
