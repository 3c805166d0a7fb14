package serve

import (
	"fmt"
	"strconv"
	"strings"
)

// sizeUnits are the suffixes ParseSize knows, longest first. Like nginx's
// client_max_body_size, a megabyte here is 1024×1024 bytes.
var sizeUnits = []struct {
	suffix string
	n      int64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30},
	{"kb", 1 << 10}, {"mb", 1 << 20}, {"gb", 1 << 30},
	{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30},
	{"b", 1},
}

// ParseSize reads a byte count: "1048576", "512KB", "20MB", "1.5GB", "20MiB"
// or "20m" (all powers of 1024); case does not matter.
func ParseSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.n
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v < 1 || v*float64(mult) > 1<<62 {
		return 0, fmt.Errorf("size %q: want a positive number of bytes such as 20MB, 512KB or 1048576", s)
	}
	return int64(v * float64(mult)), nil
}

// FormatSize writes n bytes the way ParseSize reads them back exactly: "20MB",
// "1.5KB", and plain bytes ("20000000B") when no unit gives a short number.
func FormatSize(n int64) string {
	for _, u := range []struct {
		suffix string
		n      int64
	}{{"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}} {
		if n >= u.n {
			if v := strconv.FormatFloat(float64(n)/float64(u.n), 'f', -1, 64); len(v) <= 6 {
				return v + u.suffix
			}
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}
