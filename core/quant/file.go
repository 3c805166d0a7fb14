package quant

import (
	"paddle/core/graph"
	"paddle/core/onnx"
	"paddle/core/tensor"
)

// Passes returns how many times Calibrate runs over the calibration inputs
// with method (the histogram methods read them twice), for progress bars.
func Passes(method string) int {
	if needsHist(method) {
		return 2
	}
	return 1
}

// OptionsError is Job.Run's error when New refuses the options or the
// model (an unknown method or excluded node, nothing to quantize): the
// caller's input is wrong, nothing failed.
type OptionsError struct{ Err error }

func (e *OptionsError) Error() string { return e.Err.Error() }

// Unwrap returns the error New returned.
func (e *OptionsError) Unwrap() error { return e.Err }

// Job is one whole quantization: the float model, the options, count
// calibration inputs from Feed, and where to write the QDQ ONNX file.
type Job struct {
	Load    Load
	Options Options
	Feed    Feed
	Count   int
	Output  string
	// Step, when not nil, is called after each calibration input is read
	// (Passes(method)·Count times in all): a progress hook.
	Step func()
	// Sensitivity, when > 0, also measures each node's sensitivity on that
	// many of the inputs (Quantizer.Sensitivity).
	Sensitivity int
}

// Run chooses the nodes, calibrates, quantizes and writes j.Output as ONNX,
// returning the quantized graph and a report per node. The ONNX file is
// written last, so a failed job leaves none.
func (j Job) Run() (*graph.Graph, []NodeReport, error) {
	q, err := New(j.Load, j.Options)
	if err != nil {
		return nil, nil, &OptionsError{err}
	}
	feed := j.Feed
	if j.Step != nil {
		feed = func(i int) (map[string]*tensor.Tensor, error) {
			in, err := j.Feed(i)
			j.Step()
			return in, err
		}
	}
	if err := q.Calibrate(feed, j.Count); err != nil {
		return nil, nil, err
	}
	g, reports, err := q.Quantize(nil)
	if err != nil {
		return nil, nil, err
	}
	if j.Sensitivity > 0 {
		if err := q.Sensitivity(j.Feed, min(j.Sensitivity, j.Count), reports); err != nil {
			return nil, nil, err
		}
	}
	if j.Output != "" {
		if err := onnx.WriteFile(j.Output, g); err != nil {
			return nil, nil, err
		}
	}
	return g, reports, nil
}
