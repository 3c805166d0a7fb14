package config

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// Range checks. A field of an options struct may carry a `check` tag whose
// rules the decoder applies to a value the config sets (defaults are not
// checked): `check:"min=1"` (at least 1), `check:"max=0.5"`, `check:"positive"`
// (greater than 0), `check:"prob"` (in [0, 1]), comma-separated to combine. A value out of range is an error
// at its file:line, like any other config error (exit 2):
//
//	configs/clas/x.yaml:7: Global.epochs: must be at least 1, got 0

// checkRange returns why v breaks rule, or "" when it holds (or v is not a number).
func checkRange(rule string, v reflect.Value) string {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return ""
		}
		v = v.Elem()
	}
	var x float64
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		x = float64(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		x = float64(v.Uint())
	case reflect.Float32, reflect.Float64:
		x = v.Float()
	default:
		return ""
	}
	got := strconv.FormatFloat(x, 'g', -1, 64)
	for _, r := range strings.Split(rule, ",") {
		name, arg, _ := strings.Cut(strings.TrimSpace(r), "=")
		switch name {
		case "positive":
			if !(x > 0) {
				return fmt.Sprintf("must be greater than 0, got %s", got)
			}
		case "prob":
			if !(x >= 0 && x <= 1) {
				return fmt.Sprintf("must be a probability in [0, 1], got %s", got)
			}
		case "min", "max":
			bound, err := strconv.ParseFloat(arg, 64)
			if err != nil {
				panic(fmt.Sprintf("config: bad check rule %q", rule)) // a programmer error in a tag
			}
			if name == "min" && !(x >= bound) {
				return fmt.Sprintf("must be at least %s, got %s", arg, got)
			}
			if name == "max" && !(x <= bound) {
				return fmt.Sprintf("must be at most %s, got %s", arg, got)
			}
		default:
			panic(fmt.Sprintf("config: unknown check rule %q", rule))
		}
	}
	return ""
}
