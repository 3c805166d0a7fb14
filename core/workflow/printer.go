package workflow

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
)

// The keys that name a predict record's input, by modality (DESIGN §10
// "Outputs", docs/formats.md): every predict record starts with one of
// them, and a failed input's record is {"<key>": input, "error": "..."}.
const (
	KeyImage  = "image"  // an image file (or a PDF page: "doc.pdf#page=2")
	KeyAudio  = "audio"  // an audio file
	KeyText   = "text"   // a line of text
	KeySMILES = "smiles" // a molecule as SMILES
)

// Failed is the record of an input that failed: {"<Key>": Input, "error":
// Error}. Input is the path (or text, SMILES) as given; nil writes null
// (nlp: a file that could not be read has no line of text).
type Failed struct {
	Key   string
	Input any
	Error string
}

// MarshalJSON writes {"<Key>": Input, "error": Error} in that order.
func (f Failed) MarshalJSON() ([]byte, error) {
	k, err := marshal(f.Key)
	if err != nil {
		return nil, err
	}
	in, err := marshal(f.Input)
	if err != nil {
		return nil, err
	}
	e, err := marshal(f.Error)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteByte('{')
	b.Write(k)
	b.WriteByte(':')
	b.Write(in)
	b.WriteString(`,"error":`)
	b.Write(e)
	b.WriteByte('}')
	return b.Bytes(), nil
}

// marshal is json.Marshal without HTML escaping (records carry paths and
// text as written).
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Printer writes the records of a predict command in the --format chosen:
// jsonl streams one JSON object per line as records arrive (input order),
// json collects them into one indented array that Close writes, and text
// writes the line the kit's function makes (it ends with a newline).
// Fail writes a failed input's record in the same stream.
type Printer[T any] struct {
	w      io.Writer
	format string
	key    string
	text   func(T) string
	all    []any
}

// NewPrinter returns a Printer writing to w in format ("jsonl", "json" or
// "text"; "" is jsonl) whose records name their input under key (KeyImage,
// KeyAudio, KeyText or KeySMILES).
func NewPrinter[T any](w io.Writer, format, key string, text func(T) string) *Printer[T] {
	return &Printer[T]{w: w, format: format, key: key, text: text}
}

// Print writes (or, for json, keeps) one record.
func (p *Printer[T]) Print(v T) error {
	if p.format == "text" {
		_, err := io.WriteString(p.w, p.text(v))
		return err
	}
	return p.record(v)
}

// Fail reports an input that failed: it logs err and writes the record
// {"<key>": input, "error": err} (text: "<input>\terror: <err>").
func (p *Printer[T]) Fail(input any, err error) error {
	slog.Error("predict", p.key, input, "err", err)
	if p.format == "text" {
		_, werr := fmt.Fprintf(p.w, "%v\terror: %s\n", input, err)
		return werr
	}
	return p.record(Failed{Key: p.key, Input: input, Error: err.Error()})
}

func (p *Printer[T]) record(v any) error {
	if p.format == "json" {
		p.all = append(p.all, v)
		return nil
	}
	b, err := marshal(v)
	if err != nil {
		return err
	}
	_, err = p.w.Write(append(b, '\n'))
	return err
}

// Close writes the json array; other formats have nothing left to write.
func (p *Printer[T]) Close() error {
	if p.format != "json" {
		return nil
	}
	if p.all == nil {
		p.all = []any{}
	}
	enc := json.NewEncoder(p.w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(p.all)
}

// Finish ends a predict run over n inputs that RunOrdered answered with
// failed and err: it closes p unless err is set and returns err, else the
// close error, else "<failed> of <n> inputs failed" when any failed.
func (p *Printer[T]) Finish(failed, n int, err error) error {
	if err == nil {
		err = p.Close()
	}
	if err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d inputs failed", failed, n)
	}
	return nil
}

// PrintResults is the result callback of RunOrdered for a predict command:
// a result that failed becomes a Fail record named by its input's path,
// the others are printed as rec makes them.
func PrintResults[V, T any](p *Printer[T], rec func(Result[V]) T) func(Result[V]) error {
	return func(r Result[V]) error {
		if r.Err != nil {
			return p.Fail(r.Input.Path, r.Err)
		}
		return p.Print(rec(r))
	}
}
