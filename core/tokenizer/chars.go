package tokenizer

import "unicode"

// isWhitespace is Rust's char::is_whitespace (the White_Space property).
func isWhitespace(r rune) bool {
	if r < 0x80 {
		return r == ' ' || (r >= '\t' && r <= '\r')
	}
	return unicode.Is(unicode.White_Space, r)
}

func isL(r rune) bool {
	if r < 0x80 {
		return (r|0x20) >= 'a' && (r|0x20) <= 'z'
	}
	return unicode.IsLetter(r)
}

func isN(r rune) bool {
	if r < 0x80 {
		return r >= '0' && r <= '9'
	}
	return unicode.IsNumber(r)
}

// isOther is [^\s\p{L}\p{N}].
func isOther(r rune) bool { return !isWhitespace(r) && !isL(r) && !isN(r) }

// isUpperish is [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}] (o200k's "upper" class).
func isUpperish(r rune) bool {
	if r < 0x80 {
		return r >= 'A' && r <= 'Z'
	}
	return unicode.In(r, unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo, unicode.M)
}

// isLowerish is [\p{Ll}\p{Lm}\p{Lo}\p{M}] (o200k's "lower" class).
func isLowerish(r rune) bool {
	if r < 0x80 {
		return r >= 'a' && r <= 'z'
	}
	return unicode.In(r, unicode.Ll, unicode.Lm, unicode.Lo, unicode.M)
}

// isBertPunc is ASCII punctuation or Unicode P*.
func isBertPunc(r rune) bool {
	if r < 0x80 {
		return (r >= 33 && r <= 47) || (r >= 58 && r <= 64) || (r >= 91 && r <= 96) || (r >= 123 && r <= 126)
	}
	return unicode.IsPunct(r)
}

// isControl is BERT's control test: Cc, Cf, Co, Cs or unassigned, except \t \n \r.
func isControl(r rune) bool {
	if r == '\t' || r == '\n' || r == '\r' {
		return false
	}
	if unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs) {
		return true
	}
	return !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z)
}

// isBertWhitespace is whitespace plus \t \n \r.
func isBertWhitespace(r rune) bool { return r == '\t' || r == '\n' || r == '\r' || isWhitespace(r) }

// isChineseChar is the CJK-ideograph test of BERT's basic tokenizer.
func isChineseChar(r rune) bool {
	return (r >= 0x4E00 && r <= 0x9FFF) || (r >= 0x3400 && r <= 0x4DBF) || (r >= 0x20000 && r <= 0x2A6DF) ||
		(r >= 0x2A700 && r <= 0x2B73F) || (r >= 0x2B740 && r <= 0x2B81F) || (r >= 0x2B920 && r <= 0x2CEAF) ||
		(r >= 0xF900 && r <= 0xFAFF) || (r >= 0x2F800 && r <= 0x2FA1F)
}

// isWordChar is the Unicode \w of Rust's regex (Alphabetic, M, Nd, Pc, Join_Control).
func isWordChar(r rune) bool {
	if r < 0x80 {
		return r == '_' || isL(r) || isN(r)
	}
	return unicode.In(r, unicode.L, unicode.M, unicode.Nd, unicode.Nl, unicode.Pc, unicode.Other_Alphabetic, unicode.Join_Control)
}
