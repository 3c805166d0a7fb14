// Package editdist computes Levenshtein edit distances: over characters for
// OCR metrics and config-key suggestions, and over any comparable tokens
// (words for WER).
package editdist

// Distance is the Levenshtein distance between token sequences a and b:
// insertions, deletions and substitutions each cost 1.
func Distance[T comparable](a, b []T) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Levenshtein is the edit distance between a and b in characters (runes).
func Levenshtein(a, b string) int { return Distance([]rune(a), []rune(b)) }

// Normalized is rapidfuzz's Levenshtein.normalized_distance: the distance
// divided by the longer length in characters, 0 when both are empty.
func Normalized(a, b string) float64 {
	ra, rb := []rune(a), []rune(b)
	n := max(len(ra), len(rb))
	if n == 0 {
		return 0
	}
	return float64(Distance(ra, rb)) / float64(n)
}
