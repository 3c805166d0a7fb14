package main

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

func TestIoUAndMatch(t *testing.T) {
	a, b := rect{0, 0, 10, 10}, rect{5, 0, 15, 10}
	if v := iou(a, b); math.Abs(v-50.0/150) > 1e-12 {
		t.Errorf("iou %v", v)
	}
	if iou(a, rect{20, 20, 30, 30}) != 0 {
		t.Error("disjoint boxes overlap")
	}
	gt := []detBox{
		{"one", [][2]int{{0, 0}, {100, 0}, {100, 20}, {0, 20}}},
		{"two", [][2]int{{0, 40}, {100, 40}, {100, 60}, {0, 60}}},
		{"three", [][2]int{{0, 80}, {100, 80}, {100, 100}, {0, 100}}},
	}
	// the second prediction overlaps "two" better than the first; nothing overlaps "three"
	pred := []rect{{0, 35, 100, 58}, {0, 40, 100, 61}, {0, 0, 100, 20}}
	got := matchPage(gt, pred, []string{"a", "b", "c"})
	if got[0] != "c" || got[1] != "b" || got[2] != "" {
		t.Errorf("matched %q", got)
	}
}

func TestRunScores(t *testing.T) {
	dir := t.TempDir()
	gt := filepath.Join(dir, "rec_gt.txt")
	os.WriteFile(gt, []byte("images/a.jpg\tHello World\nimages/b.jpg\tab\n"), 0o644)
	pred := filepath.Join(dir, "p.jsonl")
	a, b := filepath.Join(dir, "images/a.jpg"), filepath.Join(dir, "images/b.jpg")
	os.WriteFile(pred, []byte(`{"image":"`+a+`","results":[{"text":"HelloWorld"}],"ms":3}`+"\n"+
		`{"image":"`+b+`","results":[{"text":"ab"}],"ms":5}`+"\n"), 0o644)
	var s, ns score
	s.add("HelloWorld", "Hello World")
	s.add("ab", "ab")
	ns.add(noSpace("HelloWorld"), noSpace("Hello World"))
	if r := s.report(); math.Abs(r["char_acc"]-100*(1-1.0/13)) > 1e-9 || r["exact"] != 50 {
		t.Errorf("strict %v", r)
	}
	if r := ns.report(); r["char_acc"] != 100 || r["exact"] != 100 {
		t.Errorf("nospace %v", r)
	}
	if err := run(gt, pred, false, false); err != nil {
		t.Error(err)
	}
	os.WriteFile(pred, []byte(`{"image":"`+a+`","results":[]}`+"\n"), 0o644)
	if err := run(gt, pred, false, false); err == nil {
		t.Error("a line without prediction was not reported")
	}
}
