package speech

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"paddle/core/tensor"
)

// Sphinx MFCC inputs. pocketsphinx-testdata ships its 31 TIDIGITS
// utterances only as Sphinx-format cepstra (*.mfc: a big-endian int32
// count, then float32 frames of 13 coefficients; 100 frames/s; 20 mel
// filters 1-4000 Hz of 8 kHz audio, the orthonormal DCT-II "dct"
// transform). The inverse DCT of the 13 coefficients gives back the
// cepstrally smoothed log mel spectrum, up to a constant per bin that
// CMN removes; a model trained with Feature.cepstral_smoothing 13 on the
// same filterbank sees the same kind of input. A list line names a word as
// "<file>.mfc@<start>-<end>" (seconds).

// mfcSegment is a word inside a .mfc file.
type mfcSegment struct {
	Start, End float64 // seconds
}

// parseMFCPath splits "x.mfc@0.39-0.65".
func parseMFCPath(p string) (string, *mfcSegment, error) {
	i := strings.LastIndex(p, ".mfc@")
	if i < 0 {
		return p, nil, nil
	}
	file, span := p[:i+4], p[i+5:]
	a, b, ok := strings.Cut(span, "-")
	st, err1 := strconv.ParseFloat(a, 64)
	en, err2 := strconv.ParseFloat(b, 64)
	if !ok || err1 != nil || err2 != nil || en <= st || st < 0 {
		return "", nil, fmt.Errorf("%q: want <file>.mfc@<start>-<end> in seconds", p)
	}
	return file, &mfcSegment{st, en}, nil
}

// ReadSphinxMFC reads a Sphinx cepstrum file of ncep coefficients per frame.
func ReadSphinxMFC(path string, ncep int) ([][]float64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(b) < 4 {
		return nil, fmt.Errorf("%s: too short for a Sphinx .mfc header", path)
	}
	n := int(binary.BigEndian.Uint32(b))
	order := binary.ByteOrder(binary.BigEndian)
	if n*4+4 != len(b) { // Sphinx writes big-endian; accept a little-endian file too
		if m := int(binary.LittleEndian.Uint32(b)); m*4+4 == len(b) {
			n, order = m, binary.LittleEndian
		} else {
			return nil, fmt.Errorf("%s: header says %d floats, the file holds %d", path, n, (len(b)-4)/4)
		}
	}
	if n%ncep != 0 {
		return nil, fmt.Errorf("%s: %d floats are not whole frames of %d coefficients", path, n, ncep)
	}
	out := make([][]float64, n/ncep)
	for i := range out {
		out[i] = make([]float64, ncep)
		for j := range ncep {
			out[i][j] = float64(math.Float32frombits(order.Uint32(b[4+4*(i*ncep+j):])))
		}
	}
	return out, nil
}

// dct2 is the orthonormal DCT-II matrix (ncep × nbins), Kaldi's and
// Sphinx's "dct": c_k = s_k Σ_j x_j cos(π k (j + 1/2) / N), s_0 = √(1/N),
// s_k = √(2/N).
func dct2(ncep, nbins int) [][]float64 {
	m := make([][]float64, ncep)
	for k := range m {
		m[k] = make([]float64, nbins)
		s := math.Sqrt(2 / float64(nbins))
		if k == 0 {
			s = math.Sqrt(1 / float64(nbins))
		}
		for j := range m[k] {
			m[k][j] = s * math.Cos(math.Pi*float64(k)*(float64(j)+0.5)/float64(nbins))
		}
	}
	return m
}

// cepstralSmooth replaces each row of log-mel energies by its projection
// on the first ncep DCT basis vectors (in place).
func cepstralSmooth(rows [][]float64, ncep int) {
	if len(rows) == 0 {
		return
	}
	nb := len(rows[0])
	d := dct2(min(ncep, nb), nb)
	c := make([]float64, len(d))
	for _, r := range rows {
		for k := range d {
			c[k] = 0
			for j, v := range r {
				c[k] += d[k][j] * v
			}
		}
		for j := range r {
			var s float64
			for k := range d {
				s += d[k][j] * c[k]
			}
			r[j] = s
		}
	}
}

// inverseDCT maps cepstra rows (ncep) back to nbins log-mel values.
func inverseDCT(ceps [][]float64, nbins int) [][]float64 {
	if len(ceps) == 0 {
		return nil
	}
	d := dct2(len(ceps[0]), nbins)
	out := make([][]float64, len(ceps))
	for i, c := range ceps {
		out[i] = make([]float64, nbins)
		for j := range nbins {
			var s float64
			for k := range d {
				s += d[k][j] * c[k]
			}
			out[i][j] = s
		}
	}
	return out
}

// mfcFeatures makes the model input (1, T, F) from a word of a .mfc file:
// the word's frames (padded by padFrames each side) centred in T frames,
// the rest filled with the utterance's quietest frame (lowest c0: its
// background), then CMN when the featurizer does it.
func (z featurizer) mfcFeatures(path string, seg *mfcSegment, padFrames int) (*tensor.Tensor, error) {
	return z.mfcFeaturesWarped(path, seg, padFrames, 1)
}

// mfcFeaturesWarped is mfcFeatures with the mel axis stretched by warp
// (then smoothed again to the file's cepstra, as audio features are).
func (z featurizer) mfcFeaturesWarped(path string, seg *mfcSegment, padFrames int, warp float64) (*tensor.Tensor, error) {
	if z.smooth <= 0 {
		return nil, fmt.Errorf("%s: .mfc inputs need a model trained with Feature.cepstral_smoothing (e.g. 13)", path)
	}
	ceps, err := ReadSphinxMFC(path, z.smooth)
	if err != nil {
		return nil, err
	}
	if len(ceps) == 0 {
		return nil, fmt.Errorf("%s: no frames", path)
	}
	quiet := 0
	for i, c := range ceps {
		if c[0] < ceps[quiet][0] {
			quiet = i
		}
	}
	lo := max(int(math.Round(seg.Start*100))-padFrames, 0)
	hi := min(int(math.Round(seg.End*100))+padFrames, len(ceps))
	if hi <= lo {
		return nil, fmt.Errorf("%s: segment %.2f-%.2f s is outside its %d frames", path, seg.Start, seg.End, len(ceps))
	}
	nb := z.opts.NumMelBins
	word := inverseDCT(ceps[lo:hi], nb)
	bg := inverseDCT(ceps[quiet:quiet+1], nb)[0]
	t := z.frames()
	rows := make([][]float64, t)
	off := (t - len(word)) / 2
	for i := range rows {
		if j := i - off; j >= 0 && j < len(word) {
			rows[i] = word[j]
		} else {
			rows[i] = append([]float64(nil), bg...)
		}
	}
	if warp != 1 {
		warpRows(rows, warp)
		cepstralSmooth(rows, z.smooth)
	}
	if z.opts.SubtractMean {
		subtractMean(rows)
	}
	return rowsTensor(rows), nil
}

func subtractMean(rows [][]float64) {
	nb := len(rows[0])
	for j := range nb {
		var s float64
		for _, r := range rows {
			s += r[j]
		}
		s /= float64(len(rows))
		for _, r := range rows {
			r[j] -= s
		}
	}
}

func rowsTensor(rows [][]float64) *tensor.Tensor {
	t, f := len(rows), len(rows[0])
	out := tensor.New(tensor.Float32, 1, t, f)
	v := out.F32()
	for i, row := range rows {
		for j, e := range row {
			v[i*f+j] = float32(e)
		}
	}
	return out
}
