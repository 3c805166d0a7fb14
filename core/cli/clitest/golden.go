package clitest

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files of predict outputs (testdata/golden/predict_*.jsonl)")

// GoldenTol is the tolerance Golden allows between numbers: the absolute
// difference of two scores, and for two integers (pixel coordinates) one
// unit, so that kernels of another CPU level still match.
const GoldenTol = 1e-3

// Golden compares got, the output of a predict command in --format jsonl or
// json, with the golden file path after normalising both: every value
// on one line, keys in their written order, "ms" timings dropped (DESIGN
// §10: timings only in live output) and each key of replace found in got
// written as its value (a temp folder as "$TMP"). Numbers agree within
// GoldenTol, or one unit for two integers; everything else exactly. With
// -update it writes the golden file instead.
func Golden(t testing.TB, path string, got string, replace map[string]string) {
	t.Helper()
	for from, to := range replace {
		if from != "" {
			got = strings.ReplaceAll(got, from, to)
		}
	}
	norm, err := NormalizeJSON([]byte(got))
	if err != nil {
		t.Fatalf("golden %s: the output is not JSON: %v\n%s", path, err, got)
	}
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, norm, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden %s: %v (go test -run %s -update writes it)", path, err, t.Name())
	}
	wl, gl := strings.Split(strings.TrimSpace(string(want)), "\n"), strings.Split(strings.TrimSpace(string(norm)), "\n")
	if len(wl) != len(gl) {
		t.Fatalf("golden %s: %d lines, want %d\ngot:\n%s", path, len(gl), len(wl), norm)
	}
	for i := range wl {
		if err := sameJSON(wl[i], gl[i]); err != nil {
			t.Errorf("golden %s line %d: %v\n got %s\nwant %s", path, i+1, err, gl[i], wl[i])
		}
	}
}

// NormalizeJSON rewrites a stream of JSON values (jsonl lines, or one json
// array of records, which is split into its elements) as one compact value
// per line in the original key order, without any "ms" member.
func NormalizeJSON(b []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out bytes.Buffer
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return out.Bytes(), nil
		}
		if err != nil {
			return nil, err
		}
		if d, ok := tok.(json.Delim); ok && d == '[' && out.Len() == 0 && dec.More() {
			// a json array of records: one record a line
			for dec.More() {
				first, err := dec.Token()
				if err != nil {
					return nil, err
				}
				if err := writeValue(&out, dec, first); err != nil {
					return nil, err
				}
				out.WriteByte('\n')
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			continue
		}
		if err := writeValue(&out, dec, tok); err != nil {
			return nil, err
		}
		out.WriteByte('\n')
	}
}

// writeValue writes the value that starts with tok, compact, dropping "ms".
func writeValue(w *bytes.Buffer, dec *json.Decoder, tok json.Token) error {
	switch v := tok.(type) {
	case json.Delim:
		if v == '[' {
			w.WriteByte('[')
			for i := 0; dec.More(); i++ {
				if i > 0 {
					w.WriteByte(',')
				}
				t, err := dec.Token()
				if err != nil {
					return err
				}
				if err := writeValue(w, dec, t); err != nil {
					return err
				}
			}
			_, err := dec.Token()
			w.WriteByte(']')
			return err
		}
		w.WriteByte('{')
		n := 0
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return err
			}
			t, err := dec.Token()
			if err != nil {
				return err
			}
			if k == "ms" {
				var skip bytes.Buffer
				if err := writeValue(&skip, dec, t); err != nil {
					return err
				}
				continue
			}
			if n > 0 {
				w.WriteByte(',')
			}
			n++
			writeScalar(w, k)
			w.WriteByte(':')
			if err := writeValue(w, dec, t); err != nil {
				return err
			}
		}
		_, err := dec.Token()
		w.WriteByte('}')
		return err
	}
	writeScalar(w, tok)
	return nil
}

func writeScalar(w *bytes.Buffer, tok json.Token) {
	switch v := tok.(type) {
	case nil:
		w.WriteString("null")
	case json.Number:
		w.WriteString(v.String())
	default:
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		enc.Encode(v)
		w.Truncate(w.Len() - 1) // Encode's newline
	}
}

// sameJSON compares two normalised lines token by token.
func sameJSON(want, got string) error {
	dw, dg := json.NewDecoder(strings.NewReader(want)), json.NewDecoder(strings.NewReader(got))
	dw.UseNumber()
	dg.UseNumber()
	for {
		tw, ew := dw.Token()
		tg, eg := dg.Token()
		if errors.Is(ew, io.EOF) && errors.Is(eg, io.EOF) {
			return nil
		}
		if ew != nil || eg != nil {
			return fmt.Errorf("structure differs (%v, %v)", ew, eg)
		}
		nw, okw := tw.(json.Number)
		ng, okg := tg.(json.Number)
		if okw && okg {
			if !closeNumbers(nw, ng) {
				return fmt.Errorf("number %s, want %s", ng, nw)
			}
			continue
		}
		if tw != tg {
			return fmt.Errorf("%v, want %v", tg, tw)
		}
	}
}

func closeNumbers(a, b json.Number) bool {
	if ia, err := a.Int64(); err == nil {
		if ib, err := b.Int64(); err == nil {
			return ia-ib <= 1 && ib-ia <= 1
		}
	}
	fa, err1 := a.Float64()
	fb, err2 := b.Float64()
	return err1 == nil && err2 == nil && math.Abs(fa-fb) <= GoldenTol
}
