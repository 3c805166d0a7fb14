package ocr

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"paddle/core/metric"
	"sort"
	"strings"

	"paddle/core/imgproc"
	"paddle/core/tensor"
)

// Recognition input height and the minimum batch width (rec_image_shape 3,48,320).
const (
	recH    = 48
	recMinW = 320
)

// LoadDict reads a PaddleOCR character dictionary (one entry per line, as
// CTCLabelDecode reads it) and returns the CTC classes: "blank" at index 0, then the
// dictionary lines, then " " when useSpace.
func LoadDict(path string, useSpace bool) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseDict(b, useSpace), nil
}

// ParseDict is LoadDict on the file's bytes. Each line is stripped like Python's
// line.strip("\n").strip("\r\n").
func ParseDict(b []byte, useSpace bool) []string {
	chars := []string{"blank"}
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		var line []byte
		if i < 0 {
			line, b = b, nil
		} else {
			line, b = b[:i+1], b[i+1:]
		}
		s := strings.Trim(strings.Trim(string(line), "\n"), "\r\n")
		chars = append(chars, s)
	}
	if useSpace {
		chars = append(chars, " ")
	}
	return chars
}

// CTCDecode is CTCLabelDecode's greedy decoding of one sequence: probs holds T steps of
// C class probabilities; per step the first maximum wins; steps equal to their
// predecessor and blanks (class 0) are dropped; the score is the mean of the kept steps'
// probabilities (float32 pairwise sum as numpy does; 0 when nothing is kept).
func CTCDecode(probs []float32, T, C int, chars []string) (string, float64) {
	var sb strings.Builder
	var kept []float32
	prev := -1
	for t := 0; t < T; t++ {
		row := probs[t*C : (t+1)*C]
		best := 0
		for c := 1; c < C; c++ {
			if row[c] > row[best] {
				best = c
			}
		}
		if best != 0 && best != prev {
			if best < len(chars) {
				sb.WriteString(chars[best])
			}
			kept = append(kept, row[best])
		}
		prev = best
	}
	if len(kept) == 0 {
		return sb.String(), 0
	}
	return sb.String(), float64(float32(float64(metric.PairwiseSum(kept)) / float64(len(kept))))
}

// RecResizeWidth is the width a crop of size h×w is resized to inside a batch of width
// imgW: ceil(48*w/h), capped at imgW.
func RecResizeWidth(h, w, imgW int) int { return RecShape{}.orDefault().resizeWidth(h, w, imgW) }

// RecBatchWidth is the input width of a recognition batch whose largest width/height
// ratio is maxRatio: int(48 * max(320/48, maxRatio)).
func RecBatchWidth(maxRatio float64) int { return RecShape{}.batchWidth(maxRatio) }

// RecShape is a recognition model's input geometry: height H and the minimum batch
// width W, RecResizeImg's image_shape [3, H, W] (an export's inference.yaml gives it),
// and Stretch, a horizontal scale for every crop: a crop of h×w is read as if it
// were h×(Stretch·w), which gives the CTC more time steps per character (0 or 1:
// none, as PaddleOCR). The zero value is PP-OCRv4's 48×320 without stretch.
type RecShape struct {
	H, W    int
	Stretch float64
}

func (r RecShape) orDefault() RecShape {
	if r.H <= 0 {
		r.H = recH
	}
	if r.W <= 0 {
		r.W = recMinW
	}
	if r.Stretch <= 0 {
		r.Stretch = 1
	}
	return r
}

// ratio is the width/height ratio a crop of h×w is read at: w/h, times
// Stretch (r.orDefault()'s; times 1 is exact, so no stretch is PaddleOCR's).
func (r RecShape) ratio(h, w int) float64 { return float64(w) / float64(h) * r.Stretch }

// resizeWidth is the width a crop of h×w is resized to in a batch of width
// imgW: ceil(H·ratio), capped at imgW.
func (r RecShape) resizeWidth(h, w, imgW int) int {
	return int(min(math.Ceil(float64(r.H)*r.ratio(h, w)), float64(imgW)))
}

// batchWidth is int(H * max(W/H, maxRatio)).
func (r RecShape) batchWidth(maxRatio float64) int {
	r = r.orDefault()
	return int(float64(r.H) * max(float64(r.W)/float64(r.H), maxRatio))
}

// byAspect returns the crop indices sorted by width/height, ascending (stable).
func byAspect(crops []imgproc.Mat8) ([]int, []float64) {
	ratios := make([]float64, len(crops))
	idx := make([]int, len(crops))
	for i, c := range crops {
		ratios[i] = float64(c.W) / float64(c.H)
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return ratios[idx[a]] < ratios[idx[b]] })
	return idx, ratios
}

// normalizeInto writes crop resized to rw×48 (cv2 INTER_LINEAR) as CHW float32
// ((x/255 - 0.5) / 0.5) into dst, a 3×48×imgW plane set whose right part stays 0.
func normalizeInto(dst []float32, crop imgproc.Mat8, rw, imgW int) {
	normalizeIntoH(dst, crop, rw, recH, imgW)
}

// normalizeIntoH is normalizeInto for height h.
func normalizeIntoH(dst []float32, crop imgproc.Mat8, rw, h, imgW int) {
	r := imgproc.ResizeLinear(crop, rw, h)
	for y := 0; y < h; y++ {
		for x := 0; x < rw; x++ {
			for c := 0; c < 3; c++ {
				v := float32(r.Pix[(y*rw+x)*3+c]) / 255
				dst[(c*h+y)*imgW+x] = (v - 0.5) / 0.5
			}
		}
	}
}

// RecBatchInput builds the recognition input [n,3,48,imgW] for crops (in the given
// order) with imgW = RecBatchWidth of their largest ratio.
func RecBatchInput(crops []imgproc.Mat8) *tensor.Tensor { return RecShape{}.BatchInput(crops) }

// BatchInput is RecBatchInput for a model of input shape r: [n,3,H,imgW] with
// imgW = int(H * max(W/H, largest ratio)).
func (r RecShape) BatchInput(crops []imgproc.Mat8) *tensor.Tensor {
	r = r.orDefault()
	maxRatio := 0.0
	for _, c := range crops {
		maxRatio = max(maxRatio, r.ratio(c.H, c.W))
	}
	imgW := r.batchWidth(maxRatio)
	x := tensor.New(tensor.Float32, len(crops), 3, r.H, imgW)
	data := x.F32()
	per := 3 * r.H * imgW
	for i, c := range crops {
		normalizeIntoH(data[i*per:(i+1)*per], c, r.resizeWidth(c.H, c.W, imgW), r.H, imgW)
	}
	return x
}

// RecResult is the recognised text of one crop and its score.
type RecResult struct {
	Text  string
	Score float64
}

// Recognize runs the recognition model m on crops (BGR, 3 channels) in batches of
// batch sorted by aspect ratio, and CTC-decodes each with chars; results come back in
// the order of crops.
func Recognize(m Model, crops []imgproc.Mat8, chars []string, batch int) ([]RecResult, error) {
	return RecShape{}.Recognize(m, crops, chars, batch)
}

// Recognize is the package's Recognize for a model of input shape r.
func (r RecShape) Recognize(m Model, crops []imgproc.Mat8, chars []string, batch int) ([]RecResult, error) {
	return r.RecognizeWith(m, crops, chars, batch, CTCDecode)
}

// RecognizeWith is Recognize with the decoder dec (DecoderFor) instead of CTCDecode.
func (r RecShape) RecognizeWith(m Model, crops []imgproc.Mat8, chars []string, batch int, dec Decoder) ([]RecResult, error) {
	batch = max(batch, 1)
	idx, _ := byAspect(crops)
	res := make([]RecResult, len(crops))
	for beg := 0; beg < len(idx); beg += batch {
		end := min(len(idx), beg+batch)
		group := make([]imgproc.Mat8, 0, end-beg)
		for _, i := range idx[beg:end] {
			group = append(group, crops[i])
		}
		y, done, err := runOne(m, r.BatchInput(group))
		if err != nil {
			return nil, fmt.Errorf("recognition model: %w", err)
		}
		sh := y.Shape()
		if len(sh) != 3 || sh[0] != len(group) {
			return nil, fmt.Errorf("recognition model: output shape %v, want [%d T C]", sh, len(group))
		}
		if sh[2] != len(chars) {
			return nil, fmt.Errorf("recognition model: %d classes but the dictionary gives %d (blank + entries + space); wrong --rec-dict?", sh[2], len(chars))
		}
		probs := f32Data(y)
		T, C := sh[1], sh[2]
		for k, i := range idx[beg:end] {
			text, score := dec(probs[k*T*C:(k+1)*T*C], T, C, chars)
			res[i] = RecResult{text, score}
		}
		done()
	}
	return res, nil
}
