package train

import "testing"

func TestEvalEpochs(t *testing.T) {
	tests := []struct {
		v     any
		steps int
		want  int
	}{
		{nil, 10, 0},
		{0, 10, 0},
		{25, 10, 3}, // 2.5 rounds to 3
		{24, 10, 2}, // 2.4 rounds to 2
		{3, 100, 1}, // at least one epoch
		{[]any{0, 40}, 20, 2},
		{[]any{0, -1}, 20, 0},
		{[]any{40}, 20, 0}, // not [start, every]
		{"40", 20, 0},      // not a number
		{[]any{0, "x"}, 20, 0},
	}
	for _, tt := range tests {
		if got := EvalEpochs(tt.v, tt.steps); got != tt.want {
			t.Errorf("EvalEpochs(%v, %d) = %d, want %d", tt.v, tt.steps, got, tt.want)
		}
	}
}
