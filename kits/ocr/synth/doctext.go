package synth

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"unicode"
)

// The document snippets of --doc: what real documents and screenshots hold
// besides running text. Each kind draws from the random source only, so output
// stays deterministic for a seed.
var docKinds = []func(r *rand.Rand, word func() string) string{
	// prices
	func(r *rand.Rand, _ func() string) string {
		cur := []string{"$", "$", "USD ", "EUR ", ""}[r.IntN(5)]
		v := thousands(r.IntN(pick(r, 100, 10000, 1000000)))
		return fmt.Sprintf("%s%s.%02d", cur, v, r.IntN(100))
	},
	// dates
	func(r *rand.Rand, _ func() string) string {
		y, m, d := 1950+r.IntN(90), 1+r.IntN(12), 1+r.IntN(28)
		months := []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
		long := []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
		switch r.IntN(5) {
		case 0:
			return fmt.Sprintf("%04d-%02d-%02d", y, m, d)
		case 1:
			return fmt.Sprintf("%02d/%02d/%04d", m, d, y)
		case 2:
			return fmt.Sprintf("%d.%d.%04d", d, m, y)
		case 3:
			return fmt.Sprintf("%s %d, %d", months[m-1], d, y)
		}
		return fmt.Sprintf("%d %s %d", d, long[m-1], y)
	},
	// times
	func(r *rand.Rand, _ func() string) string {
		if r.IntN(2) == 0 {
			return fmt.Sprintf("%02d:%02d", r.IntN(24), r.IntN(60))
		}
		return fmt.Sprintf("%d:%02d %s", 1+r.IntN(12), r.IntN(60), []string{"AM", "PM", "am", "pm"}[r.IntN(4)])
	},
	// e-mail addresses
	func(r *rand.Rand, word func() string) string {
		sep := []string{".", "_", "", "-"}[r.IntN(4)]
		user := strings.ToLower(word()) + sep + strings.ToLower(word())
		if r.IntN(3) == 0 {
			user += fmt.Sprint(r.IntN(100))
		}
		return user + "@" + strings.ToLower(word()) + "." + tld(r)
	},
	// URLs
	func(r *rand.Rand, word func() string) string {
		s := []string{"https://", "http://", "www.", "https://www."}[r.IntN(4)] + strings.ToLower(word()) + "." + tld(r)
		for range r.IntN(3) {
			s += "/" + strings.ToLower(word())
		}
		if r.IntN(3) == 0 {
			s += fmt.Sprintf("?id=%d", r.IntN(10000))
		}
		return s
	},
	// phone numbers
	func(r *rand.Rand, _ func() string) string {
		a, b, c := 200+r.IntN(800), r.IntN(1000), r.IntN(10000)
		switch r.IntN(4) {
		case 0:
			return fmt.Sprintf("(%03d) %03d-%04d", a, b, c)
		case 1:
			return fmt.Sprintf("+1 %03d %03d %04d", a, b, c)
		case 2:
			return fmt.Sprintf("+%d %d %04d %04d", 30+r.IntN(60), 10+r.IntN(90), r.IntN(10000), c)
		}
		return fmt.Sprintf("%03d-%03d-%04d", a, b, c)
	},
	// codes and IDs
	func(r *rand.Rand, _ func() string) string {
		const up, al = "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789"
		code := func(set string, n int) string {
			b := make([]byte, n)
			for i := range b {
				b[i] = set[r.IntN(len(set))]
			}
			return string(b)
		}
		switch r.IntN(5) {
		case 0:
			return fmt.Sprintf("%s-%d-%04d", code(up, 2+r.IntN(2)), 2000+r.IntN(30), r.IntN(10000))
		case 1:
			return fmt.Sprintf("No. %d", r.IntN(100000))
		case 2:
			return code(al, 4) + "-" + code(al, 4) + "-" + code(al, 4)
		case 3:
			return fmt.Sprintf("#%d", r.IntN(1000000))
		}
		return fmt.Sprintf("%s%d", code(up, 1+r.IntN(3)), r.IntN(100000))
	},
	// numbers: percentages, quantities, decimals
	func(r *rand.Rand, _ func() string) string {
		switch r.IntN(4) {
		case 0:
			return fmt.Sprintf("%d.%d%%", r.IntN(100), r.IntN(10))
		case 1:
			return fmt.Sprintf("%d x %d", 1+r.IntN(20), r.IntN(1000))
		case 2:
			return thousands(r.IntN(10000000))
		}
		return fmt.Sprintf("%d.%03d", r.IntN(1000), r.IntN(1000))
	},
	// labels: "Total:", "Invoice No.", "Page 3 of 12"
	func(r *rand.Rand, word func() string) string {
		switch r.IntN(3) {
		case 0:
			return fmt.Sprintf("Page %d of %d", 1+r.IntN(9), 10+r.IntN(90))
		case 1:
			return titleCase(word()) + ":"
		}
		return strings.ToUpper(word())
	},
}

func pick(r *rand.Rand, v ...int) int { return v[r.IntN(len(v))] }

func tld(r *rand.Rand) string {
	return []string{"com", "org", "net", "io", "de", "co.uk", "edu", "gov"}[r.IntN(8)]
}

// thousands writes n with comma separators: 1234567 → "1,234,567".
func thousands(n int) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func titleCase(w string) string {
	rs := []rune(strings.ToLower(w))
	if len(rs) > 0 {
		rs[0] = unicode.ToUpper(rs[0])
	}
	return string(rs)
}

// docLine builds a document-like line of about target characters: corpus words
// in varied case with document snippets between them.
func (t *Texts) docLine(r *rand.Rand, target int) string {
	word := func() string {
		for range 20 {
			var w string
			if len(t.Lines) > 0 {
				ws := strings.Fields(t.Lines[r.IntN(len(t.Lines))])
				w = strings.Trim(ws[r.IntN(len(ws))], ".,;:!?\"'()[]")
			} else {
				w = t.random(r)
			}
			if w != "" {
				return w
			}
		}
		return "text"
	}
	var parts []string
	n := 0
	for n < target {
		var p string
		switch k := r.IntN(10); {
		case k < 4:
			p = docKinds[r.IntN(len(docKinds))](r, word)
		case k < 5:
			p = strings.ToUpper(word())
		case k < 7:
			p = titleCase(word())
		default:
			p = word()
		}
		if n > 0 && n+1+len([]rune(p)) > target && len(parts) > 0 {
			break
		}
		parts = append(parts, p)
		n += len([]rune(p)) + 1
	}
	return t.filter(strings.Join(parts, " "))
}
