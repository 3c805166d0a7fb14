package metric

import (
	"strings"

	"paddle/core/editdist"
)

// ErrorRates accumulates word and character error rates over a corpus, by
// the standard definition: WER = (S + D + I) / N with S, D, I the
// substitutions, deletions and insertions of a minimum-edit (Levenshtein)
// alignment of each hypothesis to its reference and N the reference words,
// summed over all utterances before dividing (as sclite, jiwer and
// PaddleSpeech's error_rate do for a corpus); CER likewise over characters
// (Unicode code points) of the whitespace-normalised strings, spaces
// included (jiwer's cer). Words are split on whitespace; no other
// normalisation is applied (case, punctuation: the caller's choice). Rates
// can exceed 1 when the hypothesis has many insertions.
type ErrorRates struct {
	WordEdits, Words int // Σ word edit distance, Σ reference words
	CharEdits, Chars int // Σ character edit distance, Σ reference characters
	Utterances       int
	SentenceErrors   int // utterances whose words differ from the reference
}

// Add scores one hypothesis against its reference and returns its word and
// character edit distances.
func (e *ErrorRates) Add(ref, hyp string) (wordEdits, charEdits int) {
	rw, hw := strings.Fields(ref), strings.Fields(hyp)
	wordEdits = editdist.Distance(rw, hw)
	rc, hc := []rune(strings.Join(rw, " ")), []rune(strings.Join(hw, " "))
	charEdits = editdist.Distance(rc, hc)
	e.WordEdits += wordEdits
	e.Words += len(rw)
	e.CharEdits += charEdits
	e.Chars += len(rc)
	e.Utterances++
	if wordEdits > 0 {
		e.SentenceErrors++
	}
	return wordEdits, charEdits
}

// WER is the corpus word error rate (0 for an empty reference corpus with no
// edits, 1 per inserted word when the references are empty).
func (e *ErrorRates) WER() float64 { return rate(e.WordEdits, e.Words) }

// CER is the corpus character error rate.
func (e *ErrorRates) CER() float64 { return rate(e.CharEdits, e.Chars) }

func rate(edits, n int) float64 {
	if n == 0 {
		return float64(edits)
	}
	return float64(edits) / float64(n)
}

// WER is the word error rate of one hypothesis against its reference.
func WER(ref, hyp string) float64 {
	var e ErrorRates
	e.Add(ref, hyp)
	return e.WER()
}

// CER is the character error rate of one hypothesis against its reference.
func CER(ref, hyp string) float64 {
	var e ErrorRates
	e.Add(ref, hyp)
	return e.CER()
}
