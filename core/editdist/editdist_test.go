package editdist

import "testing"

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
		norm float64
	}{
		{"", "", 0, 0},
		{"kitten", "sitting", 3, 3.0 / 7},
		{"abc", "", 3, 1},
		{"你好世界", "你们世界", 1, 0.25}, // characters, not bytes
		{"flaw", "lawn", 2, 0.5},
	}
	for _, tt := range tests {
		if got := Levenshtein(tt.a, tt.b); got != tt.want {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := Normalized(tt.a, tt.b); got != tt.norm {
			t.Errorf("Normalized(%q, %q) = %g, want %g", tt.a, tt.b, got, tt.norm)
		}
	}
	if got := Distance([]string{"the", "cat", "sat"}, []string{"the", "sat"}); got != 1 {
		t.Errorf("word distance = %d, want 1", got)
	}
}
