package protopath

import (
	"errors"
	"io"
	"testing"
)

func TestPathsAndMessages(t *testing.T) {
	err := AtIndex("onnx", At("onnx", io.ErrUnexpectedEOF, "attribute[0]"), "node", 12)
	err = At("onnx", err, "graph")
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("%v is not an *Error wrapping the cause", err)
	}
	e.File = "model.onnx"
	if got, want := err.Error(), "onnx: model.onnx: graph.node[12].attribute[0]: unexpected EOF"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := Top("pdmodel", errors.New("no blocks")).Error(), "pdmodel: no blocks"; got != want {
		t.Errorf("Top: got %q, want %q", got, want)
	}
	if Top("pdmodel", err) != err {
		t.Error("Top wrapped an *Error again")
	}
}
