package metric

import "testing"

// Worked examples of the standard definition (counted by hand).
func TestErrorRates(t *testing.T) {
	tests := []struct {
		ref, hyp       string
		wEdits, cEdits int
		wer, cer       float64
	}{
		{"the cat sat", "the cat sat", 0, 0, 0, 0},
		// one substitution (sat→sit): 1/3 words; 1 char of 11
		{"the cat sat", "the cat sit", 1, 1, 1.0 / 3, 1.0 / 11},
		// deletion of "cat": 1/3; "the sat" vs "the cat sat": 4 chars deleted ("cat ")
		{"the cat sat", "the sat", 1, 4, 1.0 / 3, 4.0 / 11},
		// two insertions: 2/1 words (rates exceed 1); "a" → "a b c": 4 chars inserted
		{"a", "a b c", 2, 4, 2, 4},
		// whitespace is normalised before counting characters
		{"  hello   world ", "hello world", 0, 0, 0, 0},
		// empty hypothesis: every word deleted
		{"four of clubs", "", 3, 13, 1, 1},
		// kitten/sitting per word: substitution, then the classic 3 character edits
		{"kitten", "sitting", 1, 3, 1, 0.5},
	}
	var all ErrorRates
	for _, tt := range tests {
		var e ErrorRates
		w, c := e.Add(tt.ref, tt.hyp)
		all.Add(tt.ref, tt.hyp)
		if w != tt.wEdits || c != tt.cEdits || e.WER() != tt.wer || e.CER() != tt.cer {
			t.Errorf("%q vs %q: edits %d/%d WER %g CER %g, want %d/%d %g %g", tt.ref, tt.hyp, w, c, e.WER(), e.CER(), tt.wEdits, tt.cEdits, tt.wer, tt.cer)
		}
		if WER(tt.ref, tt.hyp) != tt.wer || CER(tt.ref, tt.hyp) != tt.cer {
			t.Errorf("%q vs %q: WER/CER functions disagree with ErrorRates", tt.ref, tt.hyp)
		}
	}
	// corpus rates sum edits and lengths before dividing (not a mean of rates)
	if all.WordEdits != 8 || all.Words != 3+3+3+1+2+3+1 || all.WER() != 8.0/16 {
		t.Errorf("corpus WER %d/%d = %g, want 8/16", all.WordEdits, all.Words, all.WER())
	}
	if all.CharEdits != 0+1+4+4+0+13+3 || all.Chars != 11+11+11+1+11+13+6 || all.SentenceErrors != 5 || all.Utterances != 7 {
		t.Errorf("corpus chars %d/%d, sentence errors %d of %d", all.CharEdits, all.Chars, all.SentenceErrors, all.Utterances)
	}
	var empty ErrorRates
	empty.Add("", "x y")
	if empty.WER() != 2 {
		t.Errorf("empty reference with 2 insertions: WER %g, want 2", empty.WER())
	}
}
