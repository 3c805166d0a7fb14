package workflow

import (
	"maps"
	"testing"
)

func TestOutputStems(t *testing.T) {
	var in []Input
	for _, p := range []string{"a/same.png", "b/same.png", "c/same_2.jpg", "d/SAME.jpeg", "a/same.png", "x.tar.gz", "doc.pdf"} {
		in = append(in, Input{Path: p})
	}
	got := OutputStems(in)
	want := map[string]string{
		"a/same.png": "same", "b/same.png": "same_2", "c/same_2.jpg": "same_2_2", "d/SAME.jpeg": "SAME_3",
		"x.tar.gz": "x.tar", "doc.pdf": "doc",
	}
	if !maps.Equal(got, want) {
		t.Errorf("OutputStems = %v\nwant %v", got, want)
	}
}
