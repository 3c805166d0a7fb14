package metric

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// The expected values below are derived by hand from seqeval's documented
// rules (see seqeval.go) and its README / docstring examples.

func spanString(ss []Span) string {
	var b []string
	for _, s := range ss {
		b = append(b, fmt.Sprintf("%s:%d-%d", s.Type, s.Start, s.End))
	}
	return strings.Join(b, " ")
}

func TestSpansDefault(t *testing.T) {
	tests := []struct{ tags, want string }{
		{"B-PER I-PER O B-LOC", "PER:0-2 LOC:3-4"}, // get_entities docstring
		{"I-PER I-PER", "PER:0-2"},                 // I after the start begins a chunk
		{"O I-PER I-PER O", "PER:1-3"},
		{"B-PER I-LOC", "PER:0-1 LOC:1-2"}, // a type change ends and starts
		{"B-PER B-PER", "PER:0-1 PER:1-2"},
		{"I-PER B-PER", "PER:0-1 PER:1-2"},
		{"B-PER E-PER S-LOC", "PER:0-2 LOC:2-3"},
		{"E-PER E-PER", "PER:0-1 PER:1-2"}, // E after E starts again
		{"S-PER I-PER", "PER:0-1 PER:1-2"},
		{"O E-PER I-PER", "PER:1-2 PER:2-3"},
		{"B-PER I-PER I-LOC", "PER:0-2 LOC:2-3"},
		{"B I O", "_:0-2"}, // no type: "_"
		{"B-MISC-X I-MISC-X", "MISC-X:0-2"},
		{"O O", ""},
		{"", ""},
	}
	for _, tt := range tests {
		got := spanString(Spans(strings.Fields(tt.tags)))
		if got != tt.want {
			t.Errorf("Spans(%q) = %q, want %q", tt.tags, got, tt.want)
		}
	}
}

func TestStrictSpans(t *testing.T) {
	tests := []struct {
		scheme     Scheme
		tags, want string
	}{
		{IOB2, "B-PER", "PER:0-1"},
		{IOB2, "I-PER", ""},
		{IOB2, "O I-PER", ""},
		{IOB2, "O B-PER", "PER:1-2"},
		{IOB2, "I-PER I-PER", ""},
		{IOB2, "I-PER B-ORG", "ORG:1-2"},
		{IOB2, "B-PER I-PER", "PER:0-2"},
		{IOB2, "B-PER I-ORG", "PER:0-1"},
		{IOB2, "B-PER B-PER", "PER:0-1 PER:1-2"},
		{IOB2, "B I", "_:0-2"},
		{IOB2, "I B", "_:1-2"},
		{IOBES, "S-PER", "PER:0-1"},
		{IOBES, "B-PER", ""},
		{IOBES, "B-PER I-PER", ""}, // never closed by E
		{IOBES, "B-PER E-PER", "PER:0-2"},
		{IOBES, "B-PER E-ORG", ""},
		{IOBES, "B-PER S-PER", "PER:1-2"},
		{IOBES, "I-PER S-PER", "PER:1-2"},
		{IOBES, "S-PER E-PER", "PER:0-1"},
		{IOBES, "S-PER S-PER", "PER:0-1 PER:1-2"},
		{IOBES, "B-PER I-PER I-PER E-PER O", "PER:0-4"},
		{IOBES, "B E", "_:0-2"},
		{IOE2, "I-PER E-PER", "PER:0-2"},
		{IOE2, "E-PER E-PER", "PER:0-1 PER:1-2"},
		{IOE2, "I-PER I-PER", ""},
		{IOE2, "I-PER I-ORG E-ORG", "ORG:1-3"},
		{BILOU, "U-PER B-LOC L-LOC", "PER:0-1 LOC:1-3"},
		{BILOU, "B-LOC I-LOC", ""},
	}
	for _, tt := range tests {
		ss, err := StrictSpans(strings.Fields(tt.tags), tt.scheme)
		if err != nil {
			t.Errorf("StrictSpans(%q, %v): %v", tt.tags, tt.scheme, err)
			continue
		}
		if got := spanString(ss); got != tt.want {
			t.Errorf("StrictSpans(%q, %v) = %q, want %q", tt.tags, tt.scheme, got, tt.want)
		}
	}
	for _, bad := range []struct {
		scheme Scheme
		tags   string
	}{{IOB2, "B-PER E-PER"}, {IOB2, "B-PER S-PER"}, {IOBES, "U-PER"}, {IOE2, "B-PER"}, {IOB2, "X-PER"}} {
		if _, err := StrictSpans(strings.Fields(bad.tags), bad.scheme); err == nil {
			t.Errorf("StrictSpans(%q, %v): no error", bad.tags, bad.scheme)
		}
	}
}

func sents(s string) [][]string {
	var out [][]string
	for _, x := range strings.Split(s, "|") {
		out = append(out, strings.Fields(x))
	}
	return out
}

func evalAll(t *testing.T, m *SeqEval, truth, pred string) SpanReport {
	t.Helper()
	ts, ps := sents(truth), sents(pred)
	for i := range ts {
		if err := m.Add(ts[i], ps[i]); err != nil {
			t.Fatal(err)
		}
	}
	return m.Result()
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestSeqEvalDocExample(t *testing.T) {
	// precision_recall_fscore_support / classification_report docstring:
	// MISC 0/0/0 support 1, PER 1/1/1 support 1; micro, macro, weighted all
	// 0.5; accuracy_score 0.8
	truth := "O O O B-MISC I-MISC I-MISC O | B-PER I-PER O"
	pred := "O O B-MISC I-MISC I-MISC I-MISC O | B-PER I-PER O"
	for _, strict := range []bool{false, true} {
		r := evalAll(t, NewSeqEval(strict, IOB2), truth, pred)
		if len(r.Types) != 2 || r.Types[0].Type != "MISC" || r.Types[0].F1 != 0 || r.Types[1].F1 != 1 || r.Types[0].Support != 1 {
			t.Fatalf("strict=%v: per type %+v", strict, r.Types)
		}
		for _, s := range []SpanScore{r.Micro, r.Macro, r.Weighted} {
			if !near(s.Precision, 0.5) || !near(s.Recall, 0.5) || !near(s.F1, 0.5) || s.Support != 2 {
				t.Errorf("strict=%v: %s = %+v, want 0.5/0.5/0.5/2", strict, s.Type, s)
			}
		}
		if !near(r.Accuracy, 0.8) {
			t.Errorf("accuracy %v, want 0.8", r.Accuracy)
		}
		if rep := r.Report(); rep.MainValue() != 0.5 || rep.Values["f1_PER"] != 1 {
			t.Errorf("Report() = %v", rep)
		}
		// classification_report's docstring (its header line is one space short
		// there; this is what the reporter's format strings give)
		want := `              precision    recall  f1-score   support

        MISC       0.00      0.00      0.00         1
         PER       1.00      1.00      1.00         1

   micro avg       0.50      0.50      0.50         2
   macro avg       0.50      0.50      0.50         2
weighted avg       0.50      0.50      0.50         2
`
		if got := r.Table(2); got != want {
			t.Errorf("Table:\n%s\nwant:\n%s", got, want)
		}
	}
}

func TestSeqEvalStrictVsDefault(t *testing.T) {
	// README: true B-NP I-NP O, pred I-NP I-NP O: default mode counts the
	// chunk (F1 1), strict IOB2 finds no predicted chunk (F1 0).
	if r := evalAll(t, NewSeqEval(false, 0), "B-NP I-NP O", "I-NP I-NP O"); r.Micro.F1 != 1 {
		t.Errorf("default F1 %v, want 1", r.Micro.F1)
	}
	r := evalAll(t, NewSeqEval(true, IOB2), "B-NP I-NP O", "I-NP I-NP O")
	if r.Micro.F1 != 0 || r.Micro.Predicted != 0 || r.Micro.Support != 1 {
		t.Errorf("strict %+v, want F1 0, nothing predicted, support 1", r.Micro)
	}
	// an IOBES chunk without its E: strict finds none, default finds it
	if r := evalAll(t, NewSeqEval(true, IOBES), "B-PER E-PER O", "B-PER I-PER O"); r.Micro.F1 != 0 {
		t.Errorf("strict IOBES F1 %v, want 0", r.Micro.F1)
	}
	if r := evalAll(t, NewSeqEval(false, 0), "B-PER E-PER O", "B-PER I-PER O"); r.Micro.F1 != 1 {
		t.Errorf("default IOBES F1 %v, want 1", r.Micro.F1)
	}
	if err := NewSeqEval(true, IOB2).Add([]string{"B-PER", "E-PER"}, []string{"O", "O"}); err == nil {
		t.Error("strict IOB2 accepted an E- tag")
	}
	if err := NewSeqEval(false, 0).Add([]string{"O"}, []string{"O", "O"}); err == nil {
		t.Error("lengths differ: no error")
	}
}

// TestSeqEvalAverages: three types with different supports, counted by hand.
//
//	true: PER 0-2, LOC 3-4 | PER 0-1, ORG 2-4      (PER 2, LOC 1, ORG 1)
//	pred: PER 0-2, LOC 3-4 | LOC 0-1, ORG 2-3      (PER 1, LOC 2, ORG 1)
//	tp:   PER 1, LOC 1, ORG 0
//	PER: P 1, R .5, F 2/3; LOC: P .5, R 1, F 2/3; ORG: 0, 0, 0
//	micro: tp 2 / pred 4 / true 4 → .5 .5 .5
//	macro: P (1+.5+0)/3 = .5, R .5, F (4/3)/3 = 4/9
//	weighted (2,1,1)/4: P (2+.5)/4 = .625, R (1+1)/4 = .5, F (4/3+2/3)/4 = .5
func TestSeqEvalAverages(t *testing.T) {
	truth := "B-PER I-PER O B-LOC | B-PER O B-ORG I-ORG"
	pred := "B-PER I-PER O B-LOC | B-LOC O B-ORG O"
	r := evalAll(t, NewSeqEval(false, 0), truth, pred)
	checks := []struct {
		name      string
		got, want float64
	}{
		{"micro P", r.Micro.Precision, .5}, {"micro R", r.Micro.Recall, .5}, {"micro F", r.Micro.F1, .5},
		{"macro P", r.Macro.Precision, .5}, {"macro R", r.Macro.Recall, .5}, {"macro F", r.Macro.F1, 4.0 / 9},
		{"weighted P", r.Weighted.Precision, .625}, {"weighted R", r.Weighted.Recall, .5}, {"weighted F", r.Weighted.F1, .5},
		{"PER F", r.Types[2].F1, 2.0 / 3}, {"LOC F", r.Types[0].F1, 2.0 / 3}, {"ORG F", r.Types[1].F1, 0},
		{"accuracy", r.Accuracy, 6.0 / 8},
	}
	for _, c := range checks {
		if !near(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if tab := r.Table(2); !strings.Contains(tab, "weighted avg       0.62      0.50      0.50         4") {
		t.Errorf("table:\n%s", tab)
	}
}
