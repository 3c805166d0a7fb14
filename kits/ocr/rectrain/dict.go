package rectrain

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"paddle/configs"
)

// DefaultCharacters is PaddleOCR's character set when no dictionary is given
// (labels are then lower-cased).
const DefaultCharacters = "0123456789abcdefghijklmnopqrstuvwxyz"

// Dict is a CTC character dictionary: class 0 is the blank, class i ≥ 1 is Chars[i].
type Dict struct {
	Chars []string // Chars[0] = "blank"
	Lower bool     // lower-case labels before encoding (the default dictionary)
	index map[string]int
}

// LoadDict reads a PaddleOCR dictionary file (one character per line, each
// line stripped of its "\n" / "\r\n"), appending " " when useSpace; an empty
// path gives DefaultCharacters with lower-casing, as BaseRecLabelEncode does.
// A relative path missing on disk is looked up among the embedded configs
// (configs/ocr/en_dict.txt ships with the binary).
func LoadDict(path string, useSpace bool) (*Dict, error) {
	var chars []string
	lower := false
	if path == "" {
		for _, c := range DefaultCharacters {
			chars = append(chars, string(c))
		}
		lower = true
	} else {
		path, err := ResolveStorePath(path) // "ppocrv4:ppocr_keys_v1.txt"
		if err != nil {
			return nil, fmt.Errorf("character dictionary: %w", err)
		}
		b, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) && !filepath.IsAbs(path) {
			// a dictionary shipped beside the embedded configs: "configs/ocr/en_dict.txt"
			if eb, eerr := fs.ReadFile(configs.FS, filepath.ToSlash(strings.TrimPrefix(path, "configs/"))); eerr == nil {
				b, err = eb, nil
			}
		}
		if err != nil {
			return nil, fmt.Errorf("character dictionary: %w", err)
		}
		s := string(b)
		s = strings.TrimSuffix(s, "\n")
		for _, line := range strings.Split(s, "\n") {
			chars = append(chars, strings.TrimSuffix(line, "\r"))
		}
		if len(chars) == 0 || len(chars) == 1 && chars[0] == "" {
			return nil, fmt.Errorf("character dictionary %s is empty", path)
		}
	}
	if useSpace {
		chars = append(chars, " ")
	}
	return NewDict(append([]string{"blank"}, chars...), lower), nil
}

// NewDict makes a Dict from its classes (blank first).
func NewDict(chars []string, lower bool) *Dict {
	d := &Dict{Chars: chars, Lower: lower, index: map[string]int{}}
	for i, c := range chars {
		d.index[c] = i // a repeated entry maps to its last index, as Python's dict comprehension
	}
	return d
}

// NumClasses is the CTC head's output size.
func (d *Dict) NumClasses() int { return len(d.Chars) }

// Encode maps text to class indices as CTCLabelEncode does: empty text or
// text longer than maxLen (in characters, before dropping) gives nil;
// characters outside the dictionary are dropped; nil if none is left.
func (d *Dict) Encode(text string, maxLen int) []int {
	if text == "" || len([]rune(text)) > maxLen {
		return nil
	}
	if d.Lower {
		text = strings.ToLower(text)
	}
	var out []int
	for _, c := range text {
		if i, ok := d.index[string(c)]; ok {
			out = append(out, i)
		}
	}
	return out
}

// Text maps class indices back to text (no CTC collapsing).
func (d *Dict) Text(ids []int) string {
	var sb strings.Builder
	for _, i := range ids {
		if i > 0 && i < len(d.Chars) {
			sb.WriteString(d.Chars[i])
		}
	}
	return sb.String()
}

// Decode is CTCLabelDecode's greedy decoding of one sequence of class
// scores (T×C, row-major; probabilities or logits): the arg-max per step
// (first maximum wins), repeats collapsed, blanks dropped. conf is the mean
// softmax probability of the kept steps when probs holds probabilities.
func (d *Dict) Decode(scores []float32, T, C int) (text string, kept [][2]int) {
	prev := -1
	for t := range T {
		row := scores[t*C : (t+1)*C]
		best := 0
		for c := 1; c < C; c++ {
			if row[c] > row[best] {
				best = c
			}
		}
		if best != 0 && best != prev {
			kept = append(kept, [2]int{best, t})
		}
		prev = best
	}
	ids := make([]int, len(kept))
	for i, k := range kept {
		ids[i] = k[0]
	}
	return d.Text(ids), kept
}
