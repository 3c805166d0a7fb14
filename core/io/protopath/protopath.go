// Package protopath is the error of the project's hand-written protobuf
// decoders (ONNX models, PaddlePaddle programs): which format, the file when
// known, and the path of fields down to the bad one, so a user sees
//
//	onnx: model.onnx: graph.node[12].attribute[0]: truncated length-delimited value
package protopath

import (
	"errors"
	"strconv"
)

// Error is a decoding error located by format, file and field path.
type Error struct {
	Format string // "onnx", "pdmodel"
	File   string // the file, when known
	Path   string // e.g. "graph.node[12].attribute[0]"; empty at the top level
	Err    error
}

// Error formats the error as "FORMAT: FILE: PATH: ERR", leaving out the empty parts.
func (e *Error) Error() string {
	s := e.Format + ": "
	if e.File != "" {
		s += e.File + ": "
	}
	if e.Path != "" {
		s += e.Path + ": "
	}
	return s + e.Err.Error()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// At prefixes the path of err with elem ("graph", "node[3]"), making err an
// *Error of format when it is not one yet.
func At(format string, err error, elem string) error {
	var de *Error
	if errors.As(err, &de) {
		if de.Path == "" {
			de.Path = elem
		} else {
			de.Path = elem + "." + de.Path
		}
		return de
	}
	return &Error{Format: format, Path: elem, Err: err}
}

// AtIndex is At with an indexed element name, "node[3]".
func AtIndex(format string, err error, name string, i int) error {
	return At(format, err, name+"["+strconv.Itoa(i)+"]")
}

// Top makes err an *Error of format, as every error of a decoder is.
func Top(format string, err error) error {
	var de *Error
	if errors.As(err, &de) {
		return de
	}
	return &Error{Format: format, Err: err}
}
