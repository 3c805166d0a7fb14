package workflow

import (
	"encoding/json"
	"fmt"
	"io"
)

// Printer writes the results of a predict command in the --format chosen:
// jsonl streams one JSON object per line as results arrive (input order),
// json collects them into one indented array that Close writes, and text
// writes the line the kit's function makes (it ends with a newline).
type Printer[T any] struct {
	w      io.Writer
	format string
	text   func(T) string
	all    []T
}

// NewPrinter returns a Printer writing to w in format ("jsonl", "json" or "text").
func NewPrinter[T any](w io.Writer, format string, text func(T) string) *Printer[T] {
	return &Printer[T]{w: w, format: format, text: text}
}

// Print writes (or, for json, keeps) one result.
func (p *Printer[T]) Print(v T) error {
	switch p.format {
	case "json":
		p.all = append(p.all, v)
		return nil
	case "text":
		_, err := io.WriteString(p.w, p.text(v))
		return err
	}
	b, err := json.Marshal(v)
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
		p.all = []T{}
	}
	enc := json.NewEncoder(p.w)
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
