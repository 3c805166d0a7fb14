package tokenizer

import (
	"fmt"
	"strconv"
)

// pow10 holds 1e0 … 1e308, each correctly rounded.
var pow10 = func() [309]float64 {
	var t [309]float64
	for i := range t {
		t[i], _ = strconv.ParseFloat("1e"+strconv.Itoa(i), 64)
	}
	return t
}()

// parseSerdeFloat parses a JSON number the way Rust's serde_json does by
// default (without its float_roundtrip feature): the decimal digits are
// gathered into a u64 (digits past its range are dropped), converted to f64,
// then multiplied or divided by one power of ten. That result can be one ulp
// away from the correctly rounded value strconv gives, and Unigram scores
// must match the library's bit for bit: segmentations that tie in exact
// arithmetic are decided by these last bits.
func parseSerdeFloat(s string) (float64, error) {
	bad := fmt.Errorf("invalid JSON number %q", s)
	i, neg := 0, false
	if i < len(s) && s[i] == '-' {
		neg, i = true, i+1
	}
	var sig uint64
	exp, over, digits := 0, false, 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		digits++
		d := uint64(s[i] - '0')
		if over || sig > (^uint64(0)-d)/10 {
			over = true
			exp++ // an integer digit past the u64: counted, not kept
			continue
		}
		sig = sig*10 + d
	}
	if digits == 0 {
		return 0, bad
	}
	if i < len(s) && s[i] == '.' {
		i++
		frac := 0
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			frac++
			d := uint64(s[i] - '0')
			if over || sig > (^uint64(0)-d)/10 {
				over = true // later decimals are dropped
				continue
			}
			sig = sig*10 + d
			exp--
		}
		if frac == 0 {
			return 0, bad
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg, i = s[i] == '-', i+1
		}
		e, n := 0, 0
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			if e < 1<<20 {
				e = e*10 + int(s[i]-'0')
			}
			n++
		}
		if n == 0 {
			return 0, bad
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	if i != len(s) {
		return 0, bad
	}
	f := float64(sig)
	for {
		a := exp
		if a < 0 {
			a = -a
		}
		if a < len(pow10) {
			if exp >= 0 {
				f *= pow10[a]
			} else {
				f /= pow10[a]
			}
			break
		}
		if f == 0 {
			break
		}
		if exp >= 0 {
			return 0, fmt.Errorf("JSON number %q out of range", s)
		}
		f /= 1e308
		exp += 308
	}
	if neg {
		f = -f
	}
	return f, nil
}
