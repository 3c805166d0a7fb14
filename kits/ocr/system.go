package ocr

import (
	"fmt"
	"sort"

	"paddle/core/imgproc"
	"paddle/core/tensor"
)

// Model runs one network: named input tensors to named output tensors. It must be safe
// for concurrent use when a System is shared by several goroutines.
type Model interface {
	Run(inputs map[string]*tensor.Tensor) (map[string]*tensor.Tensor, error)
}

// InputNamer is implemented by models that know their input names; the first one is
// fed. Models without it get their input as "x" (PaddleOCR's exports).
type InputNamer interface {
	InputNames() []string
}

// OutputNamer is implemented by models that know their output names; with several
// outputs the first one is read.
type OutputNamer interface {
	OutputNames() []string
}

// Recycler is implemented by models that take back outputs their caller
// is done with, for later calls' outputs (runtime.Predictor.Recycle):
// detection and recognition outputs are megabytes, and fresh ones often
// fault their pages in again.
type Recycler interface {
	Recycle(out map[string]*tensor.Tensor)
}

// runOne feeds x to m's single input and returns its (first) output, and
// done, which gives the outputs back to m (Recycler) once the caller no
// longer uses them, nor anything that shares their data.
func runOne(m Model, x *tensor.Tensor) (y *tensor.Tensor, done func(), err error) {
	name := "x"
	if n, ok := m.(InputNamer); ok {
		if names := n.InputNames(); len(names) > 0 {
			name = names[0]
		}
	}
	out, err := m.Run(map[string]*tensor.Tensor{name: x})
	if err != nil {
		return nil, nil, err
	}
	done = func() {}
	if r, ok := m.(Recycler); ok {
		done = func() { r.Recycle(out) }
	}
	if n, ok := m.(OutputNamer); ok {
		if names := n.OutputNames(); len(names) > 0 {
			if y := out[names[0]]; y != nil {
				return y, done, nil
			}
		}
	}
	if len(out) == 1 {
		for _, y := range out {
			return y, done, nil
		}
	}
	names := make([]string, 0, len(out))
	for k := range out {
		names = append(names, k)
	}
	sort.Strings(names)
	return nil, nil, fmt.Errorf("model returned %d outputs %v, want one", len(out), names)
}

// f32Data returns the values of t as a contiguous float32 slice.
func f32Data(t *tensor.Tensor) []float32 {
	if t.DType() != tensor.Float32 {
		t = t.Cast(tensor.Float32)
	}
	return t.Contiguous().F32()
}

// System is the PP-OCR system of predict_system.py: detection, optional angle
// classification, recognition.
type System struct {
	Det   Model    // DB text detector
	Rec   Model    // CTC text recogniser
	Cls   Model    // 0/180 angle classifier; nil: no classification
	Chars []string // CTC classes (LoadDict)
	RecIn RecShape // Rec's input height and minimum width (zero: PP-OCRv4's 48×320)
	// LineStretch, when above 0, is RecIn's Stretch for whole images read
	// as one line (PredictLine); crops cut by the detector are read at
	// RecIn's own.
	LineStretch float64
	Decode      Decoder // CTC decoder (DecoderFor); nil: CTCDecode, PaddleOCR's
	RecSteps    int     // Rec's output steps per feature column (RecSteps); 0: one
	Profile     Profile
}

// Result is one recognised text line; Box is its quad when detection ran.
type Result struct {
	Text  string
	Score float64
	Box   Box
}

// Predict runs the whole system on a BGR image (TextSystem.__call__): detect, sort into
// reading order, crop, classify the angle (when Cls is set), recognise, and keep the
// lines with score >= Profile.DropScore.
func (s *System) Predict(img imgproc.Mat8) ([]Result, error) {
	if img.C != 3 {
		return nil, fmt.Errorf("ocr: want a 3-channel BGR image, got %d channels", img.C)
	}
	boxes, err := Detect(s.Det, img, s.Profile)
	if err != nil {
		return nil, err
	}
	order := imgproc.SortedBoxes(boxes)
	sorted := make([]Box, 0, len(boxes))
	crops := make([]imgproc.Mat8, 0, len(boxes))
	for _, i := range order {
		crop, ok := imgproc.GetRotateCropImage(img, boxes[i])
		if !ok {
			continue
		}
		sorted = append(sorted, boxes[i])
		crops = append(crops, crop)
	}
	rec, err := s.recognize(crops, s.RecIn)
	if err != nil {
		return nil, err
	}
	var out []Result
	for i, r := range rec {
		if r.Score >= s.Profile.DropScore {
			out = append(out, Result{Text: r.Text, Score: r.Score, Box: sorted[i]})
		}
	}
	return out, nil
}

// PredictLine recognises the whole image as one text line (PaddleOCR's det=False):
// angle classification when Cls is set, then recognition; no score drop.
func (s *System) PredictLine(img imgproc.Mat8) (Result, error) {
	if img.C != 3 {
		return Result{}, fmt.Errorf("ocr: want a 3-channel BGR image, got %d channels", img.C)
	}
	in := s.RecIn
	if s.LineStretch > 0 {
		in.Stretch = s.LineStretch
	}
	rec, err := s.recognize([]imgproc.Mat8{img}, in)
	if err != nil {
		return Result{}, err
	}
	return Result{Text: rec[0].Text, Score: rec[0].Score}, nil
}

// recognize classifies (when Cls is set) and recognises crops read at shape in.
func (s *System) recognize(crops []imgproc.Mat8, in RecShape) ([]RecResult, error) {
	if len(crops) == 0 {
		return nil, nil
	}
	if s.Cls != nil {
		var err error
		if crops, _, err = Classify(s.Cls, crops, s.Profile); err != nil {
			return nil, err
		}
	}
	dec := s.Decode
	if dec == nil {
		dec = CTCDecode
	}
	return in.RecognizeWith(s.Rec, crops, s.Chars, s.Profile.RecBatch, dec)
}
