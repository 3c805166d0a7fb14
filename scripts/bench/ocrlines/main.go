// Command ocrlines scores `paddle ocr predict --det=false --format jsonl` output
// against a PaddleOCR recognition label file (img_path<TAB>text), the way
// ../shared/bench/OCR.md scores lines: character accuracy = 1 − Σ Levenshtein / Σ
// ground-truth length (in runes), exact = share of lines read exactly; "strict"
// counts case and every space, "nospace" removes all white space first. It prints
// one JSON object, and with -errors the lines read wrongly.
//
// With -pages the label file is a detection one (img_path<TAB>[{"transcription",
// "points"}...]) and the predictions come from predict with detection: each
// ground-truth line takes the text of the predicted box it overlaps most (one to
// one, greedy by descending IoU of the boxes' axis-aligned bounding rectangles,
// IoU ≥ 0.5); an unmatched line counts as read empty. It also prints the
// detection's precision, recall and hmean (PaddleOCR's DetMetric: ICDAR 2015
// polygon IoU > 0.5, kits/ocr/dettrain) under "det".
//
//	paddle ocr predict --det=false --format jsonl - < list | go run ./scripts/bench/ocrlines -gt DIR/rec_gt.txt
//	paddle ocr predict --format jsonl - < list | go run ./scripts/bench/ocrlines -pages -gt DIR/det_gt.txt
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"paddle/core/editdist"
	"paddle/core/imgproc"
	"paddle/kits/ocr/dettrain"
)

type output struct {
	Image   string `json:"image"`
	Error   string `json:"error"`
	Results []struct {
		Text   string   `json:"text"`
		Points [][2]int `json:"points"`
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
	pages := flag.Bool("pages", false, "the label file is a detection one: score pages end to end")
	flag.Parse()
	if err := run(*gtPath, *predPath, *showErr, *pages); err != nil {
		fmt.Fprintln(os.Stderr, "ocrlines:", err)
		os.Exit(1)
	}
}

// detBox is one line of a detection label.
type detBox struct {
	Transcription string   `json:"transcription"`
	Points        [][2]int `json:"points"`
}

// rect is an axis-aligned rectangle.
type rect struct{ x0, y0, x1, y1 float64 }

func bounds(pts [][2]int) rect {
	r := rect{1e18, 1e18, -1e18, -1e18}
	for _, p := range pts {
		r.x0, r.y0 = min(r.x0, float64(p[0])), min(r.y0, float64(p[1]))
		r.x1, r.y1 = max(r.x1, float64(p[0])), max(r.y1, float64(p[1]))
	}
	return r
}

func iou(a, b rect) float64 {
	w, h := min(a.x1, b.x1)-max(a.x0, b.x0), min(a.y1, b.y1)-max(a.y0, b.y0)
	if w <= 0 || h <= 0 {
		return 0
	}
	in := w * h
	return in / ((a.x1-a.x0)*(a.y1-a.y0) + (b.x1-b.x0)*(b.y1-b.y0) - in)
}

// matchPage returns, for each ground-truth box, the text of its matched prediction ("" if none).
func matchPage(gt []detBox, pred []rect, texts []string) []string {
	type pair struct {
		g, p int
		v    float64
	}
	var pairs []pair
	for i, g := range gt {
		gb := bounds(g.Points)
		for j, p := range pred {
			if v := iou(gb, p); v >= 0.5 {
				pairs = append(pairs, pair{i, j, v})
			}
		}
	}
	sort.SliceStable(pairs, func(a, b int) bool { return pairs[a].v > pairs[b].v })
	out := make([]string, len(gt))
	usedG, usedP := map[int]bool{}, map[int]bool{}
	for _, p := range pairs {
		if !usedG[p.g] && !usedP[p.p] {
			usedG[p.g], usedP[p.p] = true, true
			out[p.g] = texts[p.p]
		}
	}
	return out
}

func run(gtPath, predPath string, showErr, pages bool) error {
	gt := map[string]string{}
	pageGT := map[string][]detBox{}
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
	if pages {
		for k, v := range gt {
			var boxes []detBox
			if err := json.Unmarshal([]byte(v), &boxes); err != nil {
				return fmt.Errorf("%s: %s: %w", gtPath, k, err)
			}
			pageGT[k] = boxes
		}
	}
	in := os.Stdin
	if predPath != "-" {
		if in, err = os.Open(predPath); err != nil {
			return err
		}
		defer in.Close()
	}
	var strict, nospace score
	var det dettrain.DetMetric
	poly := func(pts [][2]int) []imgproc.Point {
		out := make([]imgproc.Point, len(pts))
		for i, p := range pts {
			out[i] = imgproc.Point{X: float64(p[0]), Y: float64(p[1])}
		}
		return out
	}
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
		var boxes []rect
		for _, r := range o.Results {
			texts = append(texts, r.Text)
			boxes = append(boxes, bounds(r.Points))
		}
		ms = append(ms, o.Ms)
		var gots, wants []string
		if pages {
			for _, b := range pageGT[filepath.Clean(o.Image)] {
				wants = append(wants, b.Transcription)
			}
			gots = matchPage(pageGT[filepath.Clean(o.Image)], boxes, texts)
			var gp, dp [][]imgproc.Point
			for _, b := range pageGT[filepath.Clean(o.Image)] {
				gp = append(gp, poly(b.Points))
			}
			for _, r := range o.Results {
				dp = append(dp, poly(r.Points))
			}
			det.Update(gp, make([]bool, len(gp)), dp)
		} else {
			gots, wants = []string{strings.Join(texts, " ")}, []string{want}
		}
		for i, got := range gots {
			strict.add(got, wants[i])
			nospace.add(noSpace(got), noSpace(wants[i]))
			if showErr && got != wants[i] {
				fmt.Fprintf(os.Stderr, "%s\n  want %q\n  got  %q\n", o.Image, wants[i], got)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if len(gt) > 0 {
		return fmt.Errorf("%d lines of %s have no prediction", len(gt), gtPath)
	}
	res := map[string]any{"lines": strict.lines, "strict": strict.report(), "nospace": nospace.report(), "median_ms": median(ms)}
	if pages {
		v := det.Result().Values
		for k := range v {
			v[k] *= 100
		}
		res["det"] = v
	}
	return json.NewEncoder(os.Stdout).Encode(res)
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
