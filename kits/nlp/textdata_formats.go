package nlp

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"paddle/core/config"
)

// JSONLDatasetOpts read one JSON object a line, {"text": ..., "label": ...}
// (PaddleNLP's load_dataset json files), with configurable keys.
type JSONLDatasetOpts struct {
	DataFile string `yaml:"data_file"`
	Limit    int    `yaml:"limit"`     // keep every k-th line so that about Limit remain (0: all)
	TextKey  string `yaml:"text_key"`  // default "text"
	LabelKey string `yaml:"label_key"` // default "label"
}

// CSVDatasetOpts read a CSV file (RFC 4180 quoting, fields may span lines).
// With a header row (the default) the columns are chosen by name; without
// one, text_column and label_column are 0-based column numbers.
type CSVDatasetOpts struct {
	DataFile    string `yaml:"data_file"`
	Limit       int    `yaml:"limit"`
	TextColumn  string `yaml:"text_column"`  // default "text" (header) or "0"
	LabelColumn string `yaml:"label_column"` // default "label" (header) or "1"
	Header      *bool  `yaml:"header"`       // default true
	Delimiter   string `yaml:"delimiter"`    // one character, default ","
}

// ReadJSONL reads one JSON object per line; the text is the string under
// textKey, the label the string or number under labelKey. Blank lines are
// skipped; a line that is not an object with both keys is an error naming
// the file and line. Labels map as in ReadTSV.
func ReadJSONL(path, textKey, labelKey string, labels *LabelMap) ([]Example, *LabelMap, error) {
	if textKey == "" {
		textKey = "text"
	}
	if labelKey == "" {
		labelKey = "label"
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read jsonl: %w", err)
	}
	defer f.Close()
	var rows []rawExample
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		l := bytes.TrimSpace(sc.Bytes())
		if len(l) == 0 {
			continue
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(l, &obj); err != nil {
			return nil, nil, fmt.Errorf("%s:%d: want a JSON object: %w", path, n, err)
		}
		var text string
		raw, ok := obj[textKey]
		if !ok {
			return nil, nil, fmt.Errorf("%s:%d: no %q key (set text_key)", path, n, textKey)
		}
		if err := json.Unmarshal(raw, &text); err != nil {
			return nil, nil, fmt.Errorf("%s:%d: %q: want a string, got %s", path, n, textKey, raw)
		}
		raw, ok = obj[labelKey]
		if !ok {
			return nil, nil, fmt.Errorf("%s:%d: no %q key (set label_key)", path, n, labelKey)
		}
		lab, err := jsonLabel(raw)
		if err != nil {
			return nil, nil, fmt.Errorf("%s:%d: %q: %w", path, n, labelKey, err)
		}
		rows = append(rows, rawExample{text, lab, n})
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return labelRows(path, rows, labels)
}

// jsonLabel returns a label given as a JSON string or number ("1" for 1).
func jsonLabel(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		if s = strings.TrimSpace(s); s == "" {
			return "", errors.New("empty label")
		}
		return s, nil
	}
	var num json.Number
	if err := json.Unmarshal(raw, &num); err == nil {
		return num.String(), nil
	}
	return "", fmt.Errorf("want a string or a number, got %s", raw)
}

// ReadCSV reads a CSV file as o describes (o.DataFile is path). Rows with
// every field empty are skipped; a short row or an empty label is an error
// naming the file and the line the row starts on.
func ReadCSV(path string, o CSVDatasetOpts, labels *LabelMap) ([]Example, *LabelMap, error) {
	header := o.Header == nil || *o.Header
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read csv: %w", err)
	}
	defer f.Close()
	r := csv.NewReader(bufio.NewReader(f))
	r.FieldsPerRecord = -1
	r.ReuseRecord = true
	if o.Delimiter != "" {
		d := []rune(o.Delimiter)
		if len(d) != 1 {
			return nil, nil, fmt.Errorf("%s: delimiter %q: want one character", path, o.Delimiter)
		}
		r.Comma = d[0]
	}
	textCol, labelCol := -1, -1
	if !header {
		textCol, labelCol = 0, 1
		for _, c := range []struct {
			s   string
			dst *int
		}{{o.TextColumn, &textCol}, {o.LabelColumn, &labelCol}} {
			if c.s == "" {
				continue
			}
			v, err := strconv.Atoi(c.s)
			if err != nil || v < 0 {
				return nil, nil, fmt.Errorf("%s: column %q: without a header, columns are 0-based numbers", path, c.s)
			}
			*c.dst = v
		}
	}
	var rows []rawExample
	for first := true; ; first = false {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err) // csv.ParseError names the line
		}
		line, _ := r.FieldPos(0)
		if first && header {
			textCol, labelCol = column(rec, o.TextColumn, "text"), column(rec, o.LabelColumn, "label")
			if textCol < 0 || labelCol < 0 {
				return nil, nil, fmt.Errorf("%s:%d: header %q lacks the text column %q or the label column %q (set text_column, label_column)",
					path, line, rec, or(o.TextColumn, "text"), or(o.LabelColumn, "label"))
			}
			continue
		}
		if strings.TrimSpace(strings.Join(rec, "")) == "" {
			continue
		}
		if textCol >= len(rec) || labelCol >= len(rec) {
			return nil, nil, fmt.Errorf("%s:%d: %d fields, want at least %d", path, line, len(rec), max(textCol, labelCol)+1)
		}
		lab := strings.TrimSpace(rec[labelCol])
		if lab == "" {
			return nil, nil, fmt.Errorf("%s:%d: empty label", path, line)
		}
		rows = append(rows, rawExample{rec[textCol], lab, line})
	}
	return labelRows(path, rows, labels)
}

// column is the index of name (default def) in a header row, or -1.
func column(header []string, name, def string) int {
	name = or(name, def)
	for i, h := range header {
		if strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")) == name {
			return i
		}
	}
	return -1
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// textSource is a decoded dataset component: its file, its limit, and how
// to read it.
type textSource struct {
	file  string
	limit int
	read  func() ([]Example, *LabelMap, error)
}

// textDatasets are the data sets a classification config's DataLoader.*.dataset
// can name; their env is the label map read so far (nil: none yet).
var textDatasets = newDatasets()

func newDatasets() *config.Registry[*LabelMap, textSource] {
	r := config.NewRegistry[*LabelMap, textSource]("dataset")
	config.Add(r, "CSVDataset", CSVDatasetOpts{}, func(_ config.Component, o CSVDatasetOpts, labels *LabelMap) (textSource, error) {
		return textSource{o.DataFile, o.Limit, func() ([]Example, *LabelMap, error) { return ReadCSV(o.DataFile, o, labels) }}, nil
	})
	config.Add(r, "JSONLDataset", JSONLDatasetOpts{}, func(_ config.Component, o JSONLDatasetOpts, labels *LabelMap) (textSource, error) {
		return textSource{o.DataFile, o.Limit, func() ([]Example, *LabelMap, error) { return ReadJSONL(o.DataFile, o.TextKey, o.LabelKey, labels) }}, nil
	})
	config.Add(r, "TSVDataset", TSVDatasetOpts{}, func(_ config.Component, o TSVDatasetOpts, labels *LabelMap) (textSource, error) {
		return textSource{o.DataFile, o.Limit, func() ([]Example, *LabelMap, error) { return ReadTSV(o.DataFile, labels) }}, nil
	})
	return r
}

// readDataset reads the file of a dataset component (TSVDataset,
// JSONLDataset or CSVDataset), keeping every k-th example when limit asks.
func readDataset(c config.Component, labels *LabelMap) ([]Example, *LabelMap, error) {
	src, err := textDatasets.Build(c, labels)
	if err != nil {
		return nil, nil, err
	}
	file, limit, read := src.file, src.limit, src.read
	if file == "" {
		return nil, nil, c.Errorf("data_file is required")
	}
	ex, labels, err := read()
	if err != nil {
		return nil, nil, err
	}
	if limit > 0 && len(ex) > limit {
		// every k-th example: keeps the class mix of a stratified file
		k := float64(len(ex)) / float64(limit)
		sub := make([]Example, limit)
		for i := range sub {
			sub[i] = ex[int(float64(i)*k)]
		}
		ex = sub
	}
	return ex, labels, nil
}
