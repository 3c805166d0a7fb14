package ocr

import (
	"testing"
)

// gapProbs builds T steps over chars where each step's arg-max is steps[t].k with
// probability steps[t].p, the space class gets steps[t].sp and the rest share what is left.
func gapProbs(chars []string, steps []gapStep) []float32 {
	C := len(chars)
	probs := make([]float32, len(steps)*C)
	for i, s := range steps {
		row := probs[i*C : (i+1)*C]
		rest := (1 - s.p - s.sp) / float32(C-2)
		for c := range row {
			row[c] = rest
		}
		row[C-1] = s.sp
		row[s.k] = s.p
	}
	return probs
}

type gapStep struct {
	k     int
	p, sp float32
}

func TestCTCDecodeGaps(t *testing.T) {
	chars := []string{"blank", "a", "b", "中", "文", ".", " "}
	C := len(chars)
	cases := []struct {
		name      string
		steps     []gapStep
		ctc, gaps string
	}{
		// a, blank with space 0.3, b: a gap between two Latin letters → "a b"
		{"gap", []gapStep{{1, .9, 0}, {0, .6, .3}, {2, .9, 0}}, "ab", "a b"},
		// the peak is below the threshold: no space
		{"below", []gapStep{{1, .9, 0}, {0, .9, .03}, {2, .9, 0}}, "ab", "ab"},
		// between CJK characters, or Latin and CJK, never
		{"cjk", []gapStep{{3, .9, 0}, {0, .6, .3}, {4, .9, 0}, {0, .6, .3}, {1, .9, 0}}, "中文a", "中文a"},
		// a space the CTC kept stays single; spaces at the ends go
		{"kept", []gapStep{{6, .9, .9}, {1, .9, 0}, {0, .5, .4}, {6, .9, .9}, {0, .5, .4}, {2, .9, 0}, {6, .9, .9}}, " a b ", "a b"},
		// the peak is reset by each kept character: a b (gap) then no gap before a
		{"reset", []gapStep{{1, .9, 0}, {0, .6, .3}, {2, .9, 0}, {0, .9, 0.01}, {1, .9, 0}}, "aba", "a ba"},
		// after '.', a weak peak over 3 blank steps is a space ("No. 2024"); over 2 it is not ("1.5")
		{"punct", []gapStep{{5, .9, 0}, {0, .9, .02}, {0, .9, 0}, {0, .9, 0}, {1, .9, 0}}, ".a", ". a"},
		{"punct2", []gapStep{{5, .9, 0}, {0, .9, .02}, {0, .9, 0}, {1, .9, 0}}, ".a", ".a"},
		// the weak rule is for punctuation only
		{"letter", []gapStep{{2, .9, 0}, {0, .9, .02}, {0, .9, 0}, {0, .9, 0}, {1, .9, 0}}, "ba", "ba"},
	}
	for _, c := range cases {
		probs := gapProbs(chars, c.steps)
		ctc, s1 := CTCDecode(probs, len(c.steps), C, chars)
		gaps, s2 := CTCDecodeGaps(probs, len(c.steps), C, chars, SpaceGapThresh)
		if ctc != c.ctc || gaps != c.gaps {
			t.Errorf("%s: ctc %q gaps %q, want %q %q", c.name, ctc, gaps, c.ctc, c.gaps)
		}
		if s1 != s2 {
			t.Errorf("%s: scores differ: %v %v", c.name, s1, s2)
		}
	}
	// with two output steps per column (RecSteps), the weak rule after
	// punctuation counts columns: 3 blank steps are 1.5 columns, 6 are 3
	dec := DecoderFor(SpaceGaps, 2)
	for blanks, want := range map[int]string{3: ".a", 5: ".a", 6: ". a"} {
		st := []gapStep{{5, .9, 0}, {0, .9, .02}}
		for range blanks - 1 {
			st = append(st, gapStep{0, .9, 0})
		}
		st = append(st, gapStep{1, .9, 0})
		if got, _ := dec(gapProbs(chars, st), len(st), C, chars); got != want {
			t.Errorf("2 steps per column, %d blank steps after '.': %q, want %q", blanks, got, want)
		}
	}
	// without a space class it is CTCDecode
	noSpace := chars[:C-1]
	probs := gapProbs(chars, []gapStep{{1, .9, 0}, {0, .6, .3}, {2, .9, 0}})
	// drop the last column to make a 5-class output
	var p5 []float32
	for i := 0; i < 3; i++ {
		p5 = append(p5, probs[i*C:i*C+C-1]...)
	}
	if got, _ := CTCDecodeGaps(p5, 3, C-1, noSpace, SpaceGapThresh); got != "ab" {
		t.Errorf("no space class: %q", got)
	}
}

func TestParseSpaceMode(t *testing.T) {
	for in, want := range map[string]string{"": SpaceCTC, "ctc": SpaceCTC, "gaps": SpaceGaps} {
		if got, err := ParseSpaceMode(in); err != nil || got != want {
			t.Errorf("%q: %q %v", in, got, err)
		}
	}
	if _, err := ParseSpaceMode("blanks"); err == nil {
		t.Error("unknown mode accepted")
	}
}
