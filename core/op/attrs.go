package op

import "fmt"

// Attrs are an op's non-tensor arguments, keyed by name. Values are int,
// float64, string, bool, []int or []float64.
type Attrs map[string]any

// Int returns attribute k as an int, or def when absent.
func (a Attrs) Int(k string, def int) int {
	switch v := a[k].(type) {
	case nil:
		return def
	case int:
		return v
	case int64:
		return int(v)
	case float64:
		return int(v)
	}
	panic(fmt.Sprintf("op: attribute %s is %T, want int", k, a[k]))
}

// Float returns attribute k as a float64, or def when absent.
func (a Attrs) Float(k string, def float64) float64 {
	switch v := a[k].(type) {
	case nil:
		return def
	case float64:
		return v
	case float32:
		return float64(v)
	case int:
		return float64(v)
	}
	panic(fmt.Sprintf("op: attribute %s is %T, want float", k, a[k]))
}

// Bool returns attribute k as a bool, or def when absent.
func (a Attrs) Bool(k string, def bool) bool {
	if v, ok := a[k].(bool); ok {
		return v
	}
	return def
}

// Str returns attribute k as a string, or def when absent.
func (a Attrs) Str(k, def string) string {
	if v, ok := a[k].(string); ok {
		return v
	}
	return def
}

// Ints returns attribute k as []int, or def when absent.
func (a Attrs) Ints(k string, def []int) []int {
	switch v := a[k].(type) {
	case nil:
		return def
	case []int:
		return v
	case []int64:
		out := make([]int, len(v))
		for i, x := range v {
			out[i] = int(x)
		}
		return out
	}
	panic(fmt.Sprintf("op: attribute %s is %T, want []int", k, a[k]))
}

// Floats returns attribute k as []float64, or def when absent.
func (a Attrs) Floats(k string, def []float64) []float64 {
	if v, ok := a[k].([]float64); ok {
		return v
	}
	return def
}

// With returns a copy of a with k set to v.
func (a Attrs) With(k string, v any) Attrs {
	out := make(Attrs, len(a)+1)
	for kk, vv := range a {
		out[kk] = vv
	}
	out[k] = v
	return out
}
