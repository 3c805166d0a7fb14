// Command ocrlines scores `paddle ocr predict --det=false --format jsonl` output
// against a PaddleOCR recognition label file (img_path<TAB>text), the way
// ../shared/bench/OCR.md scores lines: character accuracy = 1 − Σ Levenshtein / Σ
// ground-truth length (in runes), exact = share of lines read exactly; "strict"
// counts case and every space, "nospace" removes all white space first. It prints
// one JSON object, and with -errors the lines read wrongly.
//
//	paddle ocr predict --det=false --format jsonl - < list | go run ./scripts/bench/ocrlines -gt DIR/rec_gt.txt
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"paddle/core/editdist"
)

type output struct {
	Image   string `json:"image"`
	Error   string `json:"error"`
	Results []struct {
		Text string `json:"text"`
	} `json:"results"`
	Ms float64 `json:"ms"`
}

// score accumulates one way of comparing lines.
type score struct{ dist, chars, exact, lines int }

func (s *score) add(pred, gt string) {
	s.dist += editdist.Levenshtein(pred, gt)
	s.chars += len([]rune(gt))
	s.lines++
	if pred == gt {
		s.exact++
	}
}

func (s score) report() map[string]float64 {
	return map[string]float64{
		"char_acc": 100 * (1 - float64(s.dist)/float64(max(s.chars, 1))),
		"exact":    100 * float64(s.exact) / float64(max(s.lines, 1)),
	}
}

func noSpace(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

func main() {
	gtPath := flag.String("gt", "", "label file: img_path<TAB>text, paths relative to its folder")
	predPath := flag.String("pred", "-", "predict's jsonl output (- for stdin)")
	showErr := flag.Bool("errors", false, "print each line read wrongly to stderr")
	flag.Parse()
	if err := run(*gtPath, *predPath, *showErr); err != nil {
		fmt.Fprintln(os.Stderr, "ocrlines:", err)
		os.Exit(1)
	}
}

func run(gtPath, predPath string, showErr bool) error {
	gt := map[string]string{}
	b, err := os.ReadFile(gtPath)
	if err != nil {
		return err
	}
	dir := filepath.Dir(gtPath)
	for i, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		p, text, ok := strings.Cut(line, "\t")
		if !ok {
			return fmt.Errorf("%s:%d: want img_path<TAB>text", gtPath, i+1)
		}
		gt[filepath.Clean(filepath.Join(dir, p))] = text
	}
	in := os.Stdin
	if predPath != "-" {
		if in, err = os.Open(predPath); err != nil {
			return err
		}
		defer in.Close()
	}
	var strict, nospace score
	var ms []float64
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for n := 1; sc.Scan(); n++ {
		var o output
		if err := json.Unmarshal(sc.Bytes(), &o); err != nil {
			return fmt.Errorf("%s:%d: %w", predPath, n, err)
		}
		want, ok := gt[filepath.Clean(o.Image)]
		if !ok {
			return fmt.Errorf("%s:%d: image %s is not in %s", predPath, n, o.Image, gtPath)
		}
		delete(gt, filepath.Clean(o.Image))
		var texts []string
		for _, r := range o.Results {
			texts = append(texts, r.Text)
		}
		got := strings.Join(texts, " ")
		strict.add(got, want)
		nospace.add(noSpace(got), noSpace(want))
		ms = append(ms, o.Ms)
		if showErr && got != want {
			fmt.Fprintf(os.Stderr, "%s\n  want %q\n  got  %q\n", o.Image, want, got)
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if len(gt) > 0 {
		return fmt.Errorf("%d lines of %s have no prediction", len(gt), gtPath)
	}
	enc := json.NewEncoder(os.Stdout)
	return enc.Encode(map[string]any{"lines": strict.lines, "strict": strict.report(), "nospace": nospace.report(), "median_ms": median(ms)})
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	for i := range s { // insertion sort: a few hundred values
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s[len(s)/2]
}
