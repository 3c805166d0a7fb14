package ocr

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"paddle/core/metric"
)

// Space modes of the recognition decoder (`ocr predict --space-mode`).
const (
	// SpaceCTC is PaddleOCR's CTCLabelDecode: a space is written only where the
	// space class wins a time step (the default; exact to PaddleOCR 2.x).
	SpaceCTC = "ctc"
	// SpaceGaps also writes a space between two non-CJK characters when the space
	// class's probability peaks at SpaceGapThresh or more on the blank steps
	// between them, and drops spaces at the ends of a line. ch_PP-OCRv4_rec sees
	// most gaps between Latin words but rarely lets the space class win a step, so
	// it prints "Thequickbrownfox" under SpaceCTC; at the margins of a crop it often
	// lets it win, giving " there was".
	SpaceGaps = "gaps"
)

// SpaceGapThresh is SpaceGaps's threshold on the space class's probability; it was
// chosen on a development set of rendered lines apart from the test set (docs/ocr.md).
const SpaceGapThresh = 0.04

// After sentence punctuation (.,:;!?) SpaceGaps writes a space on weaker evidence:
// a peak of PunctGapThresh or more over at least PunctGapSteps blank steps ("No. 2024",
// "Total: $1", where the model's space peak is 0.01–0.07; "1,234.56", "12:30" and
// "example.com" have at most 2 blank steps after the mark). docs/ocr.md says how
// these were chosen.
const (
	PunctGapThresh = 0.01
	PunctGapSteps  = 3
)

// ParseSpaceMode checks a --space-mode value ("" means SpaceCTC).
func ParseSpaceMode(s string) (string, error) {
	switch s {
	case "", SpaceCTC:
		return SpaceCTC, nil
	case SpaceGaps:
		return SpaceGaps, nil
	}
	return "", fmt.Errorf("unknown space mode %q (known: %s, %s)", s, SpaceCTC, SpaceGaps)
}

// Decoder turns one sequence of T steps of C class probabilities into text and a
// score (CTCDecode's signature).
type Decoder func(probs []float32, T, C int, chars []string) (string, float64)

// DecoderFor returns the decoder of a space mode (ParseSpaceMode's values) for
// a recogniser with steps output steps per feature column (RecSteps; 0 or 1:
// one, as PP-OCRv4's): SpaceGaps counts PunctGapSteps in columns.
func DecoderFor(mode string, steps int) Decoder {
	if mode == SpaceGaps {
		punct := PunctGapSteps * max(steps, 1)
		return func(probs []float32, T, C int, chars []string) (string, float64) {
			return decodeGaps(probs, T, C, chars, SpaceGapThresh, punct)
		}
	}
	return CTCDecode
}

// CTCDecodeGaps is CTCDecode that also writes a space between two kept characters
// when both are non-CJK (below U+2E80), no space class was kept between them, and the
// space class's probability reaches thresh on a step between them (or, after one of
// .,:;!?, PunctGapThresh over at least PunctGapSteps blank steps); spaces at the
// start and end of the text are dropped. The score is CTCDecode's (spaces written or
// dropped here change nothing in it). Without a " " class it is CTCDecode.
func CTCDecodeGaps(probs []float32, T, C int, chars []string, thresh float32) (string, float64) {
	return decodeGaps(probs, T, C, chars, thresh, PunctGapSteps)
}

// decodeGaps is CTCDecodeGaps with the weak rule after punctuation over at
// least punct blank steps.
func decodeGaps(probs []float32, T, C int, chars []string, thresh float32, punct int) (string, float64) {
	space := -1
	for i, c := range chars {
		if c == " " && i < C {
			space = i
		}
	}
	if space < 0 {
		return CTCDecode(probs, T, C, chars)
	}
	var sb strings.Builder
	var kept []float32
	prev := -1
	last := -1       // class of the last kept character (-1: none yet)
	var peak float32 // space probability peak since the last kept character
	blanks := 0      // blank steps since the last kept character
	for t := 0; t < T; t++ {
		row := probs[t*C : (t+1)*C]
		best := 0
		for c := 1; c < C; c++ {
			if row[c] > row[best] {
				best = c
			}
		}
		if best != 0 && best != prev {
			if last >= 0 && last != space && best != space && nonCJK(chars, last) && nonCJK(chars, best) &&
				(peak >= thresh || blanks >= punct && peak >= PunctGapThresh && strings.Contains(".,:;!?", chars[last])) {
				sb.WriteByte(' ')
			}
			if best < len(chars) {
				sb.WriteString(chars[best])
			}
			kept = append(kept, row[best])
			last, peak, blanks = best, 0, 0
		} else if best == 0 {
			peak = max(peak, row[space])
			blanks++
		}
		prev = best
	}
	text := strings.Trim(sb.String(), " ")
	if len(kept) == 0 {
		return text, 0
	}
	return text, float64(float32(float64(metric.PairwiseSum(kept)) / float64(len(kept))))
}

// nonCJK reports whether class k is a character below U+2E80 (Latin, digits,
// punctuation, Greek, Cyrillic...): where word spaces are written.
func nonCJK(chars []string, k int) bool {
	if k >= len(chars) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(chars[k])
	return r != utf8.RuneError && r < 0x2E80
}
